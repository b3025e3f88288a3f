"""ImageLocality (Score): prefers nodes that already have the pod's container images, by
their size, scaled by how many nodes have them (so one popular image does not pull every
pod to the same node). Upstream's thresholds: 23 MiB minimum, 1000 MiB per container."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import (
    BatchScorePlugin,
    EnqueueExtensions,
    PreScorePlugin,
    ScorePlugin,
)
from scheduler.framework.interface import Handle
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import MAX_NODE_SCORE, ClusterEvent, NodeInfo

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
_PRE_SCORE_KEY = "PreScoreImageLocality"


def normalized_image_name(name: str) -> str:
    """``nginx`` -> ``nginx:latest`` (no tag after the last ``/``)."""
    return name + ":latest" if name.rfind(":") <= name.rfind("/") else name


def pod_images(pod: Object) -> list[str]:
    spec = pod.get("spec") or {}
    containers = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    return [normalized_image_name(str(c.get("image") or "")) for c in containers]


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    if num_containers == 0:
        return 0
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    sum_scores = min(max(sum_scores, MIN_THRESHOLD), max_threshold)
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(PreScorePlugin, ScorePlugin, BatchScorePlugin, EnqueueExtensions):
    """Score only; registers no events."""

    name = "ImageLocality"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.handle = handle

    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        """How widespread each of the pod's images is: (images, spread per image, the
        (image, spread) pairs that can add to a score, the score of a node with none)."""
        images = pod_images(pod)
        snapshot = self.handle.snapshot
        total = len(snapshot.list())
        spread: dict[str, float] = {}
        for image in set(images):
            spread[image] = snapshot.num_nodes_with_image(image) / total if total else 0.0
        # an image no node has (spread 0) adds int(size * 0.0) == 0 wherever it is
        weighted = [(image, spread[image]) for image in images if spread[image]]
        state.write(_PRE_SCORE_KEY, (images, spread, weighted, calculate_priority(0, len(images))))
        return SUCCESS

    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]:
        pre: tuple[list[str], dict[str, float], list[tuple[str, float]], int] | None = state.get(
            _PRE_SCORE_KEY
        )
        if pre is None:
            self.pre_score(state, pod, [])
            pre = state.read(_PRE_SCORE_KEY)
        images, _spread, weighted, empty = pre
        if not weighted:
            return empty, SUCCESS
        sizes = node_info.image_sizes
        total = 0
        for image, image_spread in weighted:
            size = sizes.get(image)
            if size is not None:
                total += int(size * image_spread)
        return calculate_priority(total, len(images)), SUCCESS

    def score_nodes(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """``score`` of each node: the same value everywhere when no node has the pod's images."""
        pre = state.get(_PRE_SCORE_KEY)
        if pre is not None and not pre[2]:
            return [pre[3]] * len(nodes), SUCCESS
        return [self.score(state, pod, node)[0] for node in nodes], SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return []

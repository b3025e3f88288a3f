"""NodeResourcesBalancedAllocation (Score): prefers nodes whose resource fractions (cpu,
memory by default) would be closest to each other with the pod on them. Best-effort pods
(no requests for the scored resources) are skipped."""

from __future__ import annotations

import math
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
from scheduler.plugins.noderesources.allocation import make_node_scorer, parse_resources, pod_request_list

_PRE_SCORE_KEY = "PreScoreNodeResourcesBalancedAllocation"


def balanced_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    fractions = [min(r / a, 1.0) for r, a in zip(requested, allocatable, strict=True) if a]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


class NodeResourcesBalancedAllocation(PreScorePlugin, ScorePlugin, BatchScorePlugin, EnqueueExtensions):
    """Score only; registers no events. Args: ``resources`` [{name, weight}]."""

    name = "NodeResourcesBalancedAllocation"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.resources = parse_resources(args.get("resources"))
        self._node_score = make_node_scorer(self.resources, True, balanced_score, "balanced")

    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        requests = pod_request_list(pod, self.resources, True)
        if not any(requests):
            return Status.skip()
        state.write(_PRE_SCORE_KEY, requests)
        return SUCCESS

    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]:
        scores, status = self.score_nodes(state, pod, [node_info])
        return scores[0], status

    def score_nodes(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        requests: list[int] | None = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = pod_request_list(pod, self.resources, True)
        node_score = self._node_score
        return [node_score(node, requests) for node in nodes], SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return []

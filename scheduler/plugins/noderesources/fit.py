"""NodeResourcesFit: Filter rejects nodes without room for the pod's requests (pods count,
cpu, memory, ephemeral-storage, extended resources); Score ranks nodes by the configured
``scoringStrategy`` (LeastAllocated by default, MostAllocated, RequestedToCapacityRatio).

Args: ``ignoredResources``, ``ignoredResourceGroups`` (extended resources not checked),
``scoringStrategy`` {``type``, ``resources`` [{name, weight}], ``requestedToCapacityRatio``
{``shape`` [{utilization, score}]}}."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import (
    BatchScorePlugin,
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from scheduler.framework.interface import Handle, PreFilterResult
from scheduler.framework.status import SUCCESS, Code, Status
from scheduler.framework.types import (
    ActionType,
    ClusterEvent,
    NodeInfo,
    Object,
    Resource,
    compute_pod_resource_request,
)
from scheduler.plugins.events import NODE, POD
from scheduler.plugins.noderesources.allocation import (
    Scorer,
    least_allocated,
    make_node_scorer,
    most_allocated,
    parse_resources,
    pod_request_list,
    requested_to_capacity_ratio,
)

_PRE_FILTER_KEY = "PreFilterNodeResourcesFit"
_PRE_SCORE_KEY = "PreScoreNodeResourcesFit"
LEAST_ALLOCATED, MOST_ALLOCATED = "LeastAllocated", "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


def fits_request(
    request: Resource,
    node_info: NodeInfo,
    ignored: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """Every resource the node lacks for ``request`` (upstream ``fitsRequest``)."""
    out = []
    alloc, used = node_info.allocatable, node_info.requested
    if len(node_info.pods) + 1 > alloc.allowed_pod_number:
        count = len(node_info.pods)
        out.append(InsufficientResource("pods", "Too many pods", 1, count, alloc.allowed_pod_number))
    if not (request.milli_cpu or request.memory or request.ephemeral_storage or request.scalar):
        return out
    for name, want, have, in_use in (
        ("cpu", request.milli_cpu, alloc.milli_cpu, used.milli_cpu),
        ("memory", request.memory, alloc.memory, used.memory),
        ("ephemeral-storage", request.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage),
    ):
        if want > 0 and want > have - in_use:
            out.append(InsufficientResource(name, f"Insufficient {name}", want, in_use, have, want > have))
    for name, want in request.scalar.items():
        if want == 0 or name in ignored or name.split("/", 1)[0] in ignored_groups:
            continue
        have, in_use = alloc.scalar.get(name, 0), used.scalar.get(name, 0)
        if want > have - in_use:
            out.append(InsufficientResource(name, f"Insufficient {name}", want, in_use, have, want > have))
    return out


def make_scorer(strategy: dict[str, Any]) -> tuple[tuple[tuple[str, int], ...], Scorer]:
    resources = parse_resources(strategy.get("resources"))
    kind = strategy.get("type") or LEAST_ALLOCATED
    if kind == LEAST_ALLOCATED:
        return resources, least_allocated(resources)
    if kind == MOST_ALLOCATED:
        return resources, most_allocated(resources)
    if kind == REQUESTED_TO_CAPACITY_RATIO:
        shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape")
        return resources, requested_to_capacity_ratio(resources, shape)
    raise ValueError(f"scoring strategy {kind} is not supported")


class NodeResourcesFit(
    PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, BatchScorePlugin, EnqueueExtensions
):
    """Events: an assigned pod deleted or scaled down, a node added or its allocatable changed."""

    name = "NodeResourcesFit"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.ignored = frozenset(args.get("ignoredResources") or ())
        self.ignored_groups = frozenset(args.get("ignoredResourceGroups") or ())
        strategy = args.get("scoringStrategy") or {}
        self.resources, self.scorer = make_scorer(strategy)
        kinds = {LEAST_ALLOCATED: "least", MOST_ALLOCATED: "most"}
        kind = kinds.get(strategy.get("type") or LEAST_ALLOCATED, "")
        self._node_score = make_node_scorer(self.resources, False, self.scorer, kind)

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        state.write(_PRE_FILTER_KEY, compute_pod_resource_request(pod))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        request: Resource | None = state.get(_PRE_FILTER_KEY)
        if request is None:
            request = compute_pod_resource_request(pod)
        if not request.scalar:
            # the common case, checked inline; fits_request (below) builds the reasons
            alloc, used = node_info.allocatable, node_info.requested
            if (
                len(node_info.pods) < alloc.allowed_pod_number
                and (request.milli_cpu <= 0 or request.milli_cpu <= alloc.milli_cpu - used.milli_cpu)
                and (request.memory <= 0 or request.memory <= alloc.memory - used.memory)
                and (
                    request.ephemeral_storage <= 0
                    or request.ephemeral_storage <= alloc.ephemeral_storage - used.ephemeral_storage
                )
            ):
                return SUCCESS
        insufficient = fits_request(request, node_info, self.ignored, self.ignored_groups)
        if not insufficient:
            return SUCCESS
        unresolvable = any(r.unresolvable for r in insufficient)
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
        return Status(code, tuple(r.reason for r in insufficient))

    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        state.write(_PRE_SCORE_KEY, pod_request_list(pod, self.resources, False))
        return SUCCESS

    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]:
        scores, status = self.score_nodes(state, pod, [node_info])
        return scores[0], status

    def score_nodes(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        requests: list[int] | None = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = pod_request_list(pod, self.resources, False)
        node_score = self._node_score
        return [node_score(node, requests) for node in nodes], SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return [
            ClusterEvent(POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN, "AssignedPodDelete"),
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE, "NodeAdd"),
        ]

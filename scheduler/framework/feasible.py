"""Finding the nodes a pod fits and choosing one (upstream ``schedule_one.go``:
``findNodesThatFitPod``, ``numFeasibleNodesToFind``, host selection, and ``FitError``'s message).

In a big cluster the scheduler stops filtering once it has enough feasible nodes to score: all
nodes under 100; otherwise ``percentageOfNodesToScore`` of them, which by default shrinks from
50% as the cluster grows (``50 - nodes/125``, at least 5%), and never fewer than 100. Each
cycle starts where the previous one stopped, so every node gets its turn.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.runtime import Framework
from scheduler.framework.status import Code, Status, filter_failure
from scheduler.framework.types import NodeInfo, PodInfo

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


class SchedulingError(Exception):
    """A plugin failed with an Error (not a rejection): the cycle stops; the pod is retried."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int | None) -> int:
    """How many feasible nodes end the search (``percentage`` None or 0: adaptive)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if not percentage:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND)


def find_nodes_that_fit(
    fw: Framework,
    state: CycleState,
    pod: Object,
    nodes: Sequence[NodeInfo],
    start_index: int,
    percentage: int | None,
    nominated: Mapping[str, list[PodInfo]] | None = None,
) -> tuple[list[NodeInfo], dict[str, Status], int]:
    """Run the Filter plugins over ``nodes`` from ``start_index`` (round robin) until enough
    fit. Returns the feasible nodes, the status of every node that did not fit (with its
    plugin), and the start index for the next cycle. A plugin Error raises SchedulingError.
    Without Score plugins one feasible node is enough. ``nominated`` (node -> pods nominated
    there that this pod must leave room for): see ``filter_with_nominated_pods``."""
    count = len(nodes)
    if count == 0:
        return [], {}, 0
    start_index %= count
    wanted = num_feasible_nodes_to_find(count, percentage) if fw.has_score_plugins() else 1
    filters = fw.filters_for(state)
    if not filters:
        feasible = [nodes[(start_index + i) % count] for i in range(wanted)]
        return feasible, {}, (start_index + wanted) % count
    feasible = []
    statuses: dict[str, Status] = {}
    ordered = list(nodes[start_index:]) + list(nodes[:start_index]) if start_index else nodes
    for node in ordered:
        extra = nominated.get(node.name) if nominated else None
        if extra:
            status = filter_with_nominated_pods(fw, state, pod, node, extra)
            if status.code:
                if status.code == Code.ERROR:
                    raise SchedulingError(status)
                statuses[node.name] = status
                continue
            feasible.append(node)
            if len(feasible) >= wanted:
                break
            continue
        for name, fn in filters:
            status = fn(state, pod, node)
            if status.code:
                status = filter_failure(name, status)
                if status.code == Code.ERROR:
                    raise SchedulingError(status)
                statuses[node.name] = status
                break
        else:
            feasible.append(node)
            if len(feasible) >= wanted:
                break
    return feasible, statuses, (start_index + len(feasible) + len(statuses)) % count


def filter_with_nominated_pods(
    fw: Framework, state: CycleState, pod: Object, node: NodeInfo, nominated: Sequence[PodInfo]
) -> Status:
    """Upstream ``RunFilterPluginsWithNominatedPods``: the pods nominated to ``node`` (of at
    least this pod's priority, other than it) hold their room, so the filters run first on
    copies of the node and of the cycle state with them added (PreFilter extensions told:
    PodTopologySpread and InterPodAffinity count them), then, when that passes, on the node as
    it is (a pod that needs one of them, e.g. by affinity, must not count on it)."""
    with_them, added = node.clone(), state.clone()
    for info in nominated:
        with_them.add_pod(info)
        status = fw.run_pre_filter_extension_add_pod(added, pod, info, with_them)
        if not status.is_success():
            return status
    status = fw.run_filter_plugins(added, pod, with_them)
    if status.code:
        return status
    return fw.run_filter_plugins(state, pod, node)


@dataclass
class Diagnosis:
    """Why a pod fits nowhere: each node's status, the rejecting plugins (only events they
    registered can make the pod fit), and PreFilter's message when PreFilter rejected it."""

    statuses: dict[str, Status] = field(default_factory=dict)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_message: str = ""

    def add(self, node_name: str, status: Status) -> None:
        self.statuses[node_name] = status
        self.add_plugin_status(status)

    def add_plugin_status(self, status: Status) -> None:
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code == Code.PENDING:
            self.pending_plugins.add(status.plugin)

    def message(self, num_nodes: int, post_filter_message: str = "") -> str:
        return fit_error_message(
            num_nodes, self.statuses, post_filter_message, pre_filter_message=self.pre_filter_message
        )


@dataclass
class FitResult:
    feasible: list[NodeInfo]
    diagnosis: Diagnosis
    next_start_index: int


def find_nodes_that_fit_pod(
    fw: Framework,
    state: CycleState,
    pod: Object,
    nodes: Sequence[NodeInfo],
    start_index: int,
    percentage: int | None,
    nominated: Mapping[str, list[PodInfo]] | None = None,
) -> FitResult:
    """Upstream ``findNodesThatFitPod``: PreFilter (a rejection gives every node its status),
    the pod's nominated node first when it has one, PreFilterResult narrowing (the other nodes
    get ``node(s) didn't satisfy plugin(s) [...]``), then ``find_nodes_that_fit``. On failure
    ``diagnosis.statuses`` holds every node. A plugin Error raises SchedulingError."""
    diagnosis = Diagnosis()
    result, status, narrowing = fw.run_pre_filter_plugins(state, pod)
    if status.code != Code.SUCCESS:
        if not status.is_rejected():
            raise SchedulingError(status)
        diagnosis.statuses = dict.fromkeys((node.name for node in nodes), status)
        diagnosis.pre_filter_message = status.message()
        diagnosis.add_plugin_status(status)
        diagnosis.unschedulable_plugins |= narrowing
        return FitResult([], diagnosis, start_index)
    diagnosis.unschedulable_plugins |= narrowing
    own_nomination = ((pod.get("status") or {}).get("nominatedNodeName")) or ""
    if own_nomination:
        node = next((n for n in nodes if n.name == own_nomination), None)
        extra = nominated.get(own_nomination) if nominated else None
        if node is not None:
            if extra:
                status = filter_with_nominated_pods(fw, state, pod, node, extra)
            else:
                status = fw.run_filter_plugins(state, pod, node)
            if status.code == Code.SUCCESS:
                return FitResult([node], diagnosis, start_index)
    candidates: Sequence[NodeInfo] = nodes
    if result is not None and result.node_names is not None:
        candidates = [node for node in nodes if node.name in result.node_names]
        absent = Status.unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(narrowing))}]")
        for node in nodes:
            if node.name not in result.node_names:
                diagnosis.statuses[node.name] = absent
    feasible, statuses, next_index = find_nodes_that_fit(
        fw, state, pod, candidates, start_index, percentage, nominated
    )
    for name, node_status in statuses.items():
        diagnosis.add(name, node_status)
    if nodes and candidates is not nodes:
        next_index = (start_index + len(feasible) + len(statuses)) % len(nodes)
    return FitResult(feasible, diagnosis, next_index)


def fit_error_message(
    num_nodes: int,
    statuses: dict[str, Status],
    post_filter_message: str = "",
    *,
    pre_filter_message: str = "",
) -> str:
    """Upstream ``FitError.Error()``: ``0/3 nodes are available: 1 Insufficient cpu, 2 node(s)
    didn't match Pod's node affinity/selector. preemption: ...``. Reasons are counted over the
    nodes and sorted as strings; when PreFilter rejected the pod its message stands alone."""
    message = NO_NODE_AVAILABLE_MSG.format(num_nodes) + ":"
    if pre_filter_message:
        message += f" {pre_filter_message}."
    else:
        counts: dict[str, int] = {}
        for status in statuses.values():
            for reason in status.reasons:
                counts[reason] = counts.get(reason, 0) + 1
        histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
        if histogram:
            message += f" {', '.join(histogram)}."
    if post_filter_message:
        message += f" {post_filter_message}"
    return message


def select_host(scores: Sequence[tuple[str, int]], rng: random.Random) -> str:
    """The node with the highest total score; ties are broken uniformly at random (reservoir
    sampling, one pass)."""
    if not scores:
        raise ValueError("empty priorityList")
    selected, best = scores[0]
    ties = 1
    for name, score in scores[1:]:
        if score > best:
            selected, best, ties = name, score, 1
        elif score == best:
            ties += 1
            if rng.randrange(ties) == 0:
                selected = name
    return selected

"""TaintToleration: Filter rejects nodes with a NoSchedule/NoExecute taint the pod does not
tolerate; Score prefers nodes with fewer untolerated PreferNoSchedule taints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import (
    BatchNormalizeScorePlugin,
    BatchScorePlugin,
    EnqueueExtensions,
    FilterPlugin,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from scheduler.framework.interface import Handle
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import MAX_NODE_SCORE, ActionType, ClusterEvent, NodeInfo, NodeScore
from scheduler.plugins.events import NODE
from scheduler.plugins.helper.normalize import default_normalize_score, default_normalize_values
from scheduler.plugins.helper.taints import (
    DO_NOT_SCHEDULE_EFFECTS,
    PREFER_NO_SCHEDULE,
    Taint,
    Toleration,
    find_untolerated_taint,
    pod_tolerations,
    tolerated,
)

_PRE_SCORE_KEY = "PreScoreTaintToleration"


def prefer_no_schedule_tolerations(pod: Object) -> list[Toleration]:
    """The tolerations that can tolerate PreferNoSchedule taints (that effect, or any)."""
    return [t for t in pod_tolerations(pod) if (t.get("effect") or PREFER_NO_SCHEDULE) == PREFER_NO_SCHEDULE]


class TaintToleration(
    FilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    BatchScorePlugin,
    ScoreExtensions,
    BatchNormalizeScorePlugin,
    EnqueueExtensions,
):
    """Events: a node added or its taints changed."""

    name = "TaintToleration"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        pass

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        taints = node_info.taints
        if not taints:
            if node_info.node is None:
                return Status.unresolvable("invalid nodeInfo")
            return SUCCESS
        taint = find_untolerated_taint(taints, pod_tolerations(pod), DO_NOT_SCHEDULE_EFFECTS)
        if taint is None:
            return SUCCESS
        return Status.unresolvable(
            f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}"
        )

    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        state.write(_PRE_SCORE_KEY, prefer_no_schedule_tolerations(pod))
        return SUCCESS

    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]:
        taints = node_info.taints
        if not taints:
            return 0, SUCCESS
        tolerations: list[Toleration] | None = state.get(_PRE_SCORE_KEY)
        if tolerations is None:
            tolerations = prefer_no_schedule_tolerations(pod)
        return _intolerable(taints, tolerations), SUCCESS

    def score_nodes(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """``score`` of each node; nodes without taints (the usual case) count 0 at once."""
        tolerations: list[Toleration] | None = state.get(_PRE_SCORE_KEY)
        if tolerations is None:
            tolerations = prefer_no_schedule_tolerations(pod)
        return [_intolerable(n.taints, tolerations) if n.taints else 0 for n in nodes], SUCCESS

    def normalize_score(
        self, state: CycleState, pod: Object, scores: list[NodeScore]
    ) -> tuple[list[NodeScore], Status]:
        return default_normalize_score(MAX_NODE_SCORE, True, scores), SUCCESS

    def normalize_scores(self, state: CycleState, pod: Object, scores: list[int]) -> tuple[list[int], Status]:
        return default_normalize_values(MAX_NODE_SCORE, True, scores), SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return [ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT, "NodeAddOrTaintChange")]


def _intolerable(taints: list[Taint], tolerations: list[Toleration]) -> int:
    """How many PreferNoSchedule taints ``tolerations`` do not tolerate."""
    return sum(1 for t in taints if t.get("effect") == PREFER_NO_SCHEDULE and not tolerated(t, tolerations))

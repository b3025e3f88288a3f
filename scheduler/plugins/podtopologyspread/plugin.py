"""PodTopologySpread: spreads pods matching a selector across topology domains (zones,
hosts...). Filter enforces ``whenUnsatisfiable: DoNotSchedule`` constraints (``maxSkew``,
``minDomains``, node inclusion policies); Score prefers emptier domains for
``ScheduleAnyway`` constraints, or the system defaults (hostname maxSkew 3, zone maxSkew 5)
for pods owned by a controller that have no constraints of their own.

Args: ``defaultConstraints``, ``defaultingType`` (``System`` or ``List``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from minikube_py.api.labels import SelectorError
from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterExtensions,
    PreFilterExtensionsProvider,
    PreFilterPlugin,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from scheduler.framework.interface import Handle, PreFilterResult
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo, NodeScore, PodInfo
from scheduler.plugins.events import ASSIGNED_POD_CHANGE, NODE
from scheduler.plugins.helper.nodeselector import RequiredNodeAffinity
from scheduler.plugins.helper.taints import Toleration, pod_tolerations
from scheduler.plugins.podtopologyspread import filtering, scoring
from scheduler.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    Constraint,
    compile_constraints,
    default_constraints,
    pod_labels,
)

_PRE_FILTER_KEY = "PreFilterPodTopologySpread"
_PRE_SCORE_KEY = "PreScorePodTopologySpread"


@dataclass
class _FilterState:
    """The spread counts plus what preemption's AddPod/RemovePod need again."""

    counts: filtering.PreFilterState
    required: RequiredNodeAffinity
    tolerations: list[Toleration]

    def clone(self) -> _FilterState:
        return _FilterState(self.counts.clone(), self.required, self.tolerations)


class PodTopologySpread(
    PreFilterPlugin,
    PreFilterExtensionsProvider,
    PreFilterExtensions,
    FilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    ScoreExtensions,
    EnqueueExtensions,
):
    """Events: assigned pods added, relabelled or deleted; nodes added, deleted, relabelled or
    retainted (domains appear and disappear)."""

    name = "PodTopologySpread"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.handle = handle
        self.system_defaulted = (args.get("defaultingType") or "System") == "System"
        self.defaults: Sequence[Mapping[str, Any]] = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else args.get("defaultConstraints") or []
        )

    def _constraints(self, pod: Object, action: str) -> list[Constraint]:
        raw = (pod.get("spec") or {}).get("topologySpreadConstraints") or []
        if raw:
            return compile_constraints(raw, pod_labels(pod), action)
        return default_constraints(pod, self.defaults, action)

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        try:
            constraints = self._constraints(pod, DO_NOT_SCHEDULE)
        except SelectorError as exc:
            return None, Status.as_error(exc)
        if not constraints:
            return None, Status.skip()
        labels = pod_labels(pod)
        self_match = [1 if c.matches(labels) else 0 for c in constraints]
        required, tolerations = RequiredNodeAffinity.of(pod), pod_tolerations(pod)
        counts = filtering.compute_state(
            constraints, self_match, pod, self.handle.snapshot.list(), required, tolerations
        )
        state.write(_PRE_FILTER_KEY, _FilterState(counts, required, tolerations))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        pre: _FilterState | None = state.get(_PRE_FILTER_KEY)
        if pre is None:
            _, status = self.pre_filter(state, pod, [])
            if not status.is_success():
                return SUCCESS if status.is_skip() else status
            pre = state.read(_PRE_FILTER_KEY)
            assert pre is not None
        if node_info.node is None:
            return Status.as_error(ValueError("node not found"))
        reason = filtering.fits(pre.counts, node_info)
        if reason is None:
            return SUCCESS
        if reason == filtering.ERR_REASON_NODE_LABEL_NOT_MATCH:
            return Status.unresolvable(reason)
        return Status.unschedulable(reason)

    def pre_filter_extensions(self) -> PodTopologySpread:
        """AddPod/RemovePod keep the PreFilter counts true when preemption removes victims or
        nominated pods are counted (upstream's ``PreFilterExtensions``: the plugin itself)."""
        return self

    def add_pod(self, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo) -> Status:
        """PreFilter extension (preemption): count ``pod_info`` as placed on the node."""
        return self._update(state, pod, pod_info, node_info, 1)

    def remove_pod(self, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo) -> Status:
        """PreFilter extension (preemption): no longer count ``pod_info`` (a victim)."""
        return self._update(state, pod, pod_info, node_info, -1)

    def _update(
        self, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo, delta: int
    ) -> Status:
        pre: _FilterState | None = state.get(_PRE_FILTER_KEY)
        if pre is not None:
            filtering.update_with_pod(
                pre.counts, pod_info.pod, pod, node_info.node, delta, pre.required, pre.tolerations
            )
        return SUCCESS

    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        all_nodes = self.handle.snapshot.list()
        if not nodes or not all_nodes:
            return SUCCESS
        try:
            constraints = self._constraints(pod, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return Status.as_error(exc)
        if not constraints:
            return Status.skip()
        has_own = bool((pod.get("spec") or {}).get("topologySpreadConstraints"))
        require_all = has_own or not self.system_defaulted
        pre = scoring.compute_state(
            constraints,
            pod,
            nodes,
            all_nodes,
            require_all,
            RequiredNodeAffinity.of(pod),
            pod_tolerations(pod),
        )
        state.write(_PRE_SCORE_KEY, pre)
        return SUCCESS

    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]:
        pre: scoring.PreScoreState | None = state.get(_PRE_SCORE_KEY)
        if pre is None:
            return 0, SUCCESS
        return scoring.score(pre, node_info), SUCCESS

    def normalize_score(
        self, state: CycleState, pod: Object, scores: list[NodeScore]
    ) -> tuple[list[NodeScore], Status]:
        pre: scoring.PreScoreState | None = state.get(_PRE_SCORE_KEY)
        if pre is None:
            return scores, SUCCESS
        return scoring.normalize(pre, scores), SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return [
            ASSIGNED_POD_CHANGE,
            ClusterEvent(
                NODE,
                ActionType.ADD
                | ActionType.DELETE
                | ActionType.UPDATE_NODE_LABEL
                | ActionType.UPDATE_NODE_TAINT,
                "NodeChange",
            ),
        ]

"""InterPodAffinity: Filter enforces required pod affinity and anti-affinity, both the
incoming pod's and the anti-affinity of pods already placed; Score sums preferred terms'
weights (and existing pods' required affinity at ``hardPodAffinityWeight``) per topology.

Args: ``hardPodAffinityWeight`` (default 1), ``ignorePreferredTermsOfExistingPods``.
Namespace selectors see namespace labels through ``handle.namespace_labels``
(``namespace -> labels``; the scheduler serves it from its namespace informer); without it
every namespace has no labels."""

from __future__ import annotations

from collections.abc import Sequence
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
from scheduler.plugins.interpodaffinity import filtering, scoring
from scheduler.plugins.interpodaffinity.terms import NamespaceLabels, parse_pod

_PRE_FILTER_KEY = "PreFilterInterPodAffinity"
_PRE_SCORE_KEY = "PreScoreInterPodAffinity"


class InterPodAffinity(
    PreFilterPlugin,
    PreFilterExtensionsProvider,
    PreFilterExtensions,
    FilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    ScoreExtensions,
    EnqueueExtensions,
):
    """Events: assigned pods added, relabelled or deleted; nodes added or relabelled."""

    name = "InterPodAffinity"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.handle = handle
        weight = args.get("hardPodAffinityWeight")
        self.hard_weight = 1 if weight is None else int(weight)
        self.ignore_existing_preferred = bool(args.get("ignorePreferredTermsOfExistingPods"))

    @property
    def ns_lookup(self) -> NamespaceLabels | None:
        """Read at each use: the scheduler provides it after building its frameworks."""
        return self.handle.namespace_labels

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        try:
            terms = parse_pod(pod)
        except SelectorError as exc:
            return None, Status.as_error(exc)
        snapshot = self.handle.snapshot
        pre = filtering.compute_state(
            pod, terms, snapshot.list(), snapshot.have_pods_with_required_anti_affinity_list(), self.ns_lookup
        )
        if not pre.existing_anti_affinity and not terms.has_required:
            return None, Status.skip()
        state.write(_PRE_FILTER_KEY, pre)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        pre: filtering.PreFilterState | None = state.get(_PRE_FILTER_KEY)
        if pre is None:
            _, status = self.pre_filter(state, pod, [])
            if not status.is_success():
                return SUCCESS if status.is_skip() else status
            pre = state.read(_PRE_FILTER_KEY)
            assert pre is not None
        if node_info.node is None:
            return Status.as_error(ValueError("node not found"))
        reason = filtering.fits(pre, node_info)
        if reason is None:
            return SUCCESS
        if reason == filtering.ERR_REASON_AFFINITY:
            return Status.unresolvable(reason)
        return Status.unschedulable(reason)

    def pre_filter_extensions(self) -> InterPodAffinity:
        """AddPod/RemovePod keep the PreFilter counts true when preemption removes victims or
        nominated pods are counted (upstream's ``PreFilterExtensions``: the plugin itself)."""
        return self

    def add_pod(self, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo) -> Status:
        """PreFilter extension (preemption): count ``pod_info`` as placed on the node."""
        pre: filtering.PreFilterState | None = state.get(_PRE_FILTER_KEY)
        if pre is not None:
            pre.update_with_pod(pod_info, node_info.node, 1)
        return SUCCESS

    def remove_pod(self, state: CycleState, pod: Object, pod_info: PodInfo, node_info: NodeInfo) -> Status:
        """PreFilter extension (preemption): no longer count ``pod_info`` (a victim)."""
        pre: filtering.PreFilterState | None = state.get(_PRE_FILTER_KEY)
        if pre is not None:
            pre.update_with_pod(pod_info, node_info.node, -1)
        return SUCCESS

    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        if not nodes:
            return SUCCESS
        try:
            terms = parse_pod(pod)
        except SelectorError as exc:
            return Status.as_error(exc)
        if self.ignore_existing_preferred and not terms.has_preferred:
            return Status.skip()
        snapshot = self.handle.snapshot
        candidates = snapshot.list() if terms.has_preferred else snapshot.have_pods_with_affinity_list()
        pre = scoring.compute_state(pod, terms, candidates, self.ns_lookup, self.hard_weight)
        if not pre.topology_score:
            return Status.skip()
        state.write(_PRE_SCORE_KEY, pre)
        return SUCCESS

    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]:
        pre: scoring.PreScoreState | None = state.get(_PRE_SCORE_KEY)
        return (scoring.score(pre, node_info) if pre is not None else 0), SUCCESS

    def normalize_score(
        self, state: CycleState, pod: Object, scores: list[NodeScore]
    ) -> tuple[list[NodeScore], Status]:
        pre: scoring.PreScoreState | None = state.get(_PRE_SCORE_KEY)
        return (scoring.normalize(pre, scores) if pre is not None else scores), SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return [
            ASSIGNED_POD_CHANGE,
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, "NodeAddOrLabelChange"),
        ]

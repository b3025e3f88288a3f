"""NodeAffinity: Filter keeps nodes matching the pod's ``nodeSelector`` and required node
affinity (and the profile's ``addedAffinity``); Score sums the weights of the preferred
terms a node matches, normalized to 0..100.

Args: ``addedAffinity`` (a NodeAffinity every pod of the profile must also satisfy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from scheduler.framework.interface import Handle, PreFilterResult
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import MAX_NODE_SCORE, ActionType, ClusterEvent, NodeInfo, NodeScore
from scheduler.plugins.events import NODE
from scheduler.plugins.helper.nodeselector import (
    NodeSelector,
    NodeSelectorTerm,
    RequiredNodeAffinity,
    compile_term,
    node_labels,
)
from scheduler.plugins.helper.normalize import default_normalize_score

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_PRE_FILTER_KEY = "PreFilterNodeAffinity"
_PRE_SCORE_KEY = "PreScoreNodeAffinity"

WeightedTerms = tuple[tuple[int, NodeSelectorTerm], ...]


def preferred_terms(node_affinity: dict[str, Any]) -> WeightedTerms:
    out = []
    for item in node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
        term = compile_term(item.get("preference") or {})
        weight = int(item.get("weight") or 0)
        if term is not None and weight:
            out.append((weight, term))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    required: RequiredNodeAffinity


class NodeAffinity(
    PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions
):
    """Events: a node added or its labels changed."""

    name = "NodeAffinity"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        added = args.get("addedAffinity") or {}
        required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
        self.added_required = NodeSelector.of(required) if required is not None else None
        self.added_preferred = preferred_terms(added)

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        required = RequiredNodeAffinity.of(pod)
        if required.empty and self.added_required is None:
            return None, Status.skip()
        state.write(_PRE_FILTER_KEY, _PreFilterState(required))
        if required.affinity is None:
            return None, SUCCESS
        if not required.affinity.terms:
            return None, SUCCESS
        names: set[str] = set()
        for term in required.affinity.terms:
            term_names = term.required_node_names()
            if term_names is None:
                return None, SUCCESS  # some term is not limited to named nodes
            names |= term_names
        if not names:
            return None, Status.unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(frozenset(names)), SUCCESS

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        node = node_info.node
        if node is None:
            return Status.unresolvable("node not found")
        if self.added_required is not None and not self.added_required.matches(
            node_labels(node), node_info.name
        ):
            return Status.unresolvable(ERR_REASON_ENFORCED)
        pre: _PreFilterState | None = state.get(_PRE_FILTER_KEY)
        required = pre.required if pre is not None else RequiredNodeAffinity.of(pod)
        if not required.matches(node):
            return Status.unresolvable(ERR_REASON_POD)
        return SUCCESS

    def pre_score(self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]) -> Status:
        terms = self._preferred(pod)
        if not terms:
            return Status.skip()
        state.write(_PRE_SCORE_KEY, terms)
        return SUCCESS

    def _preferred(self, pod: Object) -> WeightedTerms:
        node_affinity = ((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}
        return preferred_terms(node_affinity) + self.added_preferred

    def score(self, state: CycleState, pod: Object, node_info: NodeInfo) -> tuple[int, Status]:
        terms: WeightedTerms | None = state.get(_PRE_SCORE_KEY)
        if terms is None:
            terms = self._preferred(pod)
        labels, name = node_labels(node_info.node), node_info.name
        return sum(weight for weight, term in terms if term.matches(labels, name)), SUCCESS

    def normalize_score(
        self, state: CycleState, pod: Object, scores: list[NodeScore]
    ) -> tuple[list[NodeScore], Status]:
        return default_normalize_score(MAX_NODE_SCORE, False, scores), SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return [ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, "NodeAddOrLabelChange")]

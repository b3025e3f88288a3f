"""The Filter side: per topology pair, how many existing pods (a) match all the incoming pod's
required affinity terms, (b) match its anti-affinity terms, (c) have anti-affinity terms the
incoming pod matches. Computed once per pod in PreFilter; each node then needs only lookups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object
from scheduler.framework.types import NodeInfo, PodInfo
from scheduler.plugins.helper.nodeselector import node_labels
from scheduler.plugins.interpodaffinity.terms import (
    AffinityTerm,
    NamespaceLabels,
    PodAffinityTerms,
    pod_matches_all,
    terms_of,
)

ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

Pair = tuple[str, str]
Counts = dict[Pair, int]


def _bump(counts: Counts, labels: Mapping[str, str], key: str, delta: int) -> None:
    value = labels.get(key)
    if value is None:
        return
    pair = (key, value)
    n = counts.get(pair, 0) + delta
    if n:
        counts[pair] = n
    else:
        counts.pop(pair, None)


@dataclass
class PreFilterState:
    pod: Object
    terms: PodAffinityTerms
    namespace_labels: Mapping[str, str] | None
    ns_lookup: NamespaceLabels | None
    existing_anti_affinity: Counts = field(default_factory=dict)
    affinity: Counts = field(default_factory=dict)
    anti_affinity: Counts = field(default_factory=dict)

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.pod,
            self.terms,
            self.namespace_labels,
            self.ns_lookup,
            dict(self.existing_anti_affinity),
            dict(self.affinity),
            dict(self.anti_affinity),
        )

    def ns_labels_of(self, pod: Object) -> Mapping[str, str] | None:
        if self.ns_lookup is None:
            return None
        return self.ns_lookup(str((pod.get("metadata") or {}).get("namespace", "")))

    def update_with_pod(self, info: PodInfo, node: Object | None, delta: int) -> None:
        """Count ``info`` on ``node`` (+1) or no longer (-1)."""
        labels = node_labels(node)
        for term in terms_of(info).required_anti_affinity:
            if term.matches(self.pod, self.namespace_labels):
                _bump(self.existing_anti_affinity, labels, term.topology_key, delta)
        if self.terms.required_affinity and self.matches_all(self.terms.required_affinity, info.pod):
            for term in self.terms.required_affinity:
                _bump(self.affinity, labels, term.topology_key, delta)
        if self.terms.required_anti_affinity:
            ns_labels = self.ns_labels_of(info.pod)
            for term in self.terms.required_anti_affinity:
                if term.matches(info.pod, ns_labels):
                    _bump(self.anti_affinity, labels, term.topology_key, delta)

    def matches_all(self, terms: tuple[AffinityTerm, ...], pod: Object) -> bool:
        ns_labels = self.ns_labels_of(pod)
        return all(t.matches(pod, ns_labels) for t in terms)


def compute_state(
    pod: Object,
    terms: PodAffinityTerms,
    all_nodes: Sequence[NodeInfo],
    with_required_anti_affinity: Sequence[NodeInfo],
    ns_lookup: NamespaceLabels | None,
) -> PreFilterState:
    namespace = str((pod.get("metadata") or {}).get("namespace", ""))
    state = PreFilterState(pod, terms, ns_lookup(namespace) if ns_lookup else None, ns_lookup)
    for info in with_required_anti_affinity:
        if info.node is None:
            continue
        labels = node_labels(info.node)
        for existing in info.pods_with_required_anti_affinity:
            for term in terms_of(existing).required_anti_affinity:
                if term.matches(pod, state.namespace_labels):
                    _bump(state.existing_anti_affinity, labels, term.topology_key, 1)
    if not terms.has_required:
        return state
    for info in all_nodes:
        if info.node is None:
            continue
        labels = node_labels(info.node)
        for existing in info.pods:
            other = existing.pod
            if terms.required_affinity and state.matches_all(terms.required_affinity, other):
                for term in terms.required_affinity:
                    _bump(state.affinity, labels, term.topology_key, 1)
            if terms.required_anti_affinity:
                ns_labels = state.ns_labels_of(other)
                for term in terms.required_anti_affinity:
                    if term.matches(other, ns_labels):
                        _bump(state.anti_affinity, labels, term.topology_key, 1)
    return state


def satisfies_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    pods_exist = True
    for term in state.terms.required_affinity:
        value = labels.get(term.topology_key)
        if value is None:
            return False  # every topology label must be on the node
        if state.affinity.get((term.topology_key, value), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # the first pod of a group with affinity to itself: allowed when no pod matches yet
    return not state.affinity and pod_matches_all(state.terms.required_affinity, state.pod)


def satisfies_anti_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    if not state.anti_affinity:
        return True
    for term in state.terms.required_anti_affinity:
        value = labels.get(term.topology_key)
        if value is not None and state.anti_affinity.get((term.topology_key, value), 0) > 0:
            return False
    return True


def satisfies_existing_anti_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    counts = state.existing_anti_affinity
    if not counts:
        return True
    if len(counts) < len(labels):
        return not any(labels.get(key) == value for key, value in counts)
    return not any((key, value) in counts for key, value in labels.items())


def fits(state: PreFilterState, node_info: NodeInfo) -> str | None:
    """None when the node passes, else the reason (affinity ones are unresolvable)."""
    labels = node_labels(node_info.node)
    if not satisfies_affinity(state, labels):
        return ERR_REASON_AFFINITY
    if not satisfies_anti_affinity(state, labels):
        return ERR_REASON_ANTI_AFFINITY
    if not satisfies_existing_anti_affinity(state, labels):
        return ERR_REASON_EXISTING_ANTI_AFFINITY
    return None

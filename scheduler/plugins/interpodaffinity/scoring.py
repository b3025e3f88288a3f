"""The Score side: per topology pair, the summed weights of preferred terms satisfied both
ways (the incoming pod's preferred terms over existing pods, existing pods' required and
preferred terms over the incoming pod); a node scores the pairs of its labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object
from scheduler.framework.types import MAX_NODE_SCORE, NodeInfo, NodeScore, PodInfo
from scheduler.plugins.helper.nodeselector import node_labels
from scheduler.plugins.interpodaffinity.terms import (
    AffinityTerm,
    NamespaceLabels,
    PodAffinityTerms,
    WeightedTerm,
    terms_of,
)

TopologyScore = dict[str, dict[str, int]]  # topology key -> value -> score


@dataclass
class PreScoreState:
    topology_score: TopologyScore = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Context:
    pod: Object
    terms: PodAffinityTerms
    namespace_labels: Mapping[str, str] | None
    ns_lookup: NamespaceLabels | None
    hard_weight: int


def _add(scores: TopologyScore, term: AffinityTerm, labels: Mapping[str, str], amount: int) -> None:
    value = labels.get(term.topology_key)
    if value is not None:
        per_key = scores.setdefault(term.topology_key, {})
        per_key[value] = per_key.get(value, 0) + amount


def _process_existing(
    ctx: _Context, existing: PodInfo, labels: Mapping[str, str], scores: TopologyScore
) -> None:
    other = existing.pod
    if ctx.terms.has_preferred:
        other_ns = (
            ctx.ns_lookup(str((other.get("metadata") or {}).get("namespace", ""))) if ctx.ns_lookup else None
        )
        for wt in ctx.terms.preferred_affinity:
            if wt.term.matches(other, other_ns):
                _add(scores, wt.term, labels, wt.weight)
        for wt in ctx.terms.preferred_anti_affinity:
            if wt.term.matches(other, other_ns):
                _add(scores, wt.term, labels, -wt.weight)
    theirs = terms_of(existing)
    if ctx.hard_weight > 0:
        for term in theirs.required_affinity:
            if term.matches(ctx.pod, ctx.namespace_labels):
                _add(scores, term, labels, ctx.hard_weight)
    _process_weighted(theirs.preferred_affinity, ctx, labels, scores, 1)
    _process_weighted(theirs.preferred_anti_affinity, ctx, labels, scores, -1)


def _process_weighted(
    terms: tuple[WeightedTerm, ...],
    ctx: _Context,
    labels: Mapping[str, str],
    scores: TopologyScore,
    sign: int,
) -> None:
    for wt in terms:
        if wt.term.matches(ctx.pod, ctx.namespace_labels):
            _add(scores, wt.term, labels, sign * wt.weight)


def compute_state(
    pod: Object,
    terms: PodAffinityTerms,
    nodes: Sequence[NodeInfo],
    ns_lookup: NamespaceLabels | None,
    hard_weight: int,
) -> PreScoreState:
    """``nodes``: every node when the pod has preferred terms, else those with affinity pods."""
    namespace = str((pod.get("metadata") or {}).get("namespace", ""))
    ctx = _Context(pod, terms, ns_lookup(namespace) if ns_lookup else None, ns_lookup, hard_weight)
    state = PreScoreState()
    for info in nodes:
        labels = node_labels(info.node)
        if not labels:
            continue
        for existing in info.pods if terms.has_preferred else info.pods_with_affinity:
            _process_existing(ctx, existing, labels, state.topology_score)
    return state


def score(state: PreScoreState, node_info: NodeInfo) -> int:
    labels = node_labels(node_info.node)
    total = 0
    for key, values in state.topology_score.items():
        value = labels.get(key)
        if value is not None:
            total += values.get(value, 0)
    return total


def normalize(state: PreScoreState, scores: list[NodeScore]) -> list[NodeScore]:
    if not state.topology_score or not scores:
        return scores
    lowest = min(s.score for s in scores)
    spread = max(s.score for s in scores) - lowest
    if spread <= 0:
        return [NodeScore(s.name, 0) for s in scores]
    return [NodeScore(s.name, int(MAX_NODE_SCORE * ((s.score - lowest) / spread))) for s in scores]

"""The Filter side: counts of matching pods per topology domain, computed once per pod in
PreFilter; a node passes when placing the pod there keeps every DoNotSchedule constraint
within ``maxSkew`` of the least populated domain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object
from scheduler.framework.types import NodeInfo
from scheduler.plugins.helper.nodeselector import RequiredNodeAffinity, node_labels
from scheduler.plugins.helper.taints import Toleration
from scheduler.plugins.podtopologyspread.common import Constraint, count_matching, node_has_all_keys

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

Pair = tuple[str, str]  # (topology key, value)


@dataclass
class PreFilterState:
    constraints: list[Constraint]
    self_match: list[int]  # 1 when the pod itself matches the constraint's selector
    counts: dict[Pair, int] = field(default_factory=dict)
    domains: dict[str, int] = field(default_factory=dict)  # topology key -> number of domains
    minimum: dict[str, int] = field(default_factory=dict)  # topology key -> least count

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.constraints, self.self_match, dict(self.counts), dict(self.domains), dict(self.minimum)
        )

    def recompute_minimum(self, key: str) -> None:
        counts = [n for (k, _), n in self.counts.items() if k == key]
        if counts:
            self.minimum[key] = min(counts)

    def min_match(self, key: str, min_domains: int) -> int:
        if self.domains.get(key, 0) < min_domains:
            return 0
        return self.minimum.get(key, 0)


def compute_state(
    constraints: list[Constraint],
    self_match: list[int],
    pod: Object,
    nodes: Sequence[NodeInfo],
    required: RequiredNodeAffinity,
    tolerations: Sequence[Toleration],
) -> PreFilterState:
    state = PreFilterState(constraints, self_match)
    namespace = str((pod.get("metadata") or {}).get("namespace", ""))
    counts = state.counts
    for info in nodes:
        labels = node_labels(info.node)
        if info.node is None or not node_has_all_keys(labels, constraints):
            continue
        for c in constraints:
            if not c.includes_node(info.node, required, tolerations):
                continue
            pair = (c.topology_key, labels[c.topology_key])
            counts[pair] = counts.get(pair, 0) + count_matching(info.pods, c, namespace)
    for key, _ in counts:
        state.domains[key] = state.domains.get(key, 0) + 1
    for key in state.domains:
        state.recompute_minimum(key)
    return state


def fits(state: PreFilterState, node_info: NodeInfo) -> str | None:
    """None when the node passes, else the reason."""
    labels = node_labels(node_info.node)
    for i, c in enumerate(state.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            return ERR_REASON_NODE_LABEL_NOT_MATCH
        matched = state.counts.get((c.topology_key, value), 0)
        skew = matched + state.self_match[i] - state.min_match(c.topology_key, c.min_domains)
        if skew > c.max_skew:
            return ERR_REASON_CONSTRAINTS_NOT_MATCH
    return None


def update_with_pod(
    state: PreFilterState,
    placed: Object,
    preemptor: Object,
    node: Object | None,
    delta: int,
    required: RequiredNodeAffinity,
    tolerations: Sequence[Toleration],
) -> None:
    """Count ``placed`` on ``node`` (delta +1) or not any more (-1), for preemption."""
    meta = placed.get("metadata") or {}
    if node is None or meta.get("namespace") != (preemptor.get("metadata") or {}).get("namespace"):
        return
    labels = node_labels(node)
    if not node_has_all_keys(labels, state.constraints):
        return
    placed_labels = meta.get("labels") or {}
    for c in state.constraints:
        if not c.matches(placed_labels) or not c.includes_node(node, required, tolerations):
            continue
        pair = (c.topology_key, labels[c.topology_key])
        state.counts[pair] = state.counts.get(pair, 0) + delta
        state.recompute_minimum(c.topology_key)

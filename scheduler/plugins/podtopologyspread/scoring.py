"""The Score side: nodes in domains with fewer matching pods score higher (ScheduleAnyway
constraints, or the system defaults for controller-owned pods without constraints)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object
from scheduler.framework.types import MAX_NODE_SCORE, NodeInfo, NodeScore
from scheduler.plugins.helper.nodeselector import RequiredNodeAffinity, node_labels
from scheduler.plugins.helper.normalize import go_div, go_round
from scheduler.plugins.helper.taints import Toleration
from scheduler.plugins.podtopologyspread.common import HOSTNAME, Constraint, count_matching, node_has_all_keys


@dataclass
class PreScoreState:
    constraints: list[Constraint]
    namespace: str
    ignored: set[str] = field(default_factory=set)
    counts: list[dict[str, int]] = field(default_factory=list)  # per constraint: value -> pods
    weights: list[float] = field(default_factory=list)


def compute_state(
    constraints: list[Constraint],
    pod: Object,
    filtered: Sequence[NodeInfo],
    all_nodes: Sequence[NodeInfo],
    require_all_topologies: bool,
    required: RequiredNodeAffinity,
    tolerations: Sequence[Toleration],
) -> PreScoreState:
    namespace = str((pod.get("metadata") or {}).get("namespace", ""))
    state = PreScoreState(constraints, namespace, counts=[{} for _ in constraints])
    for info in filtered:
        labels = node_labels(info.node)
        if require_all_topologies and not node_has_all_keys(labels, constraints):
            state.ignored.add(info.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != HOSTNAME:
                state.counts[i].setdefault(labels.get(c.topology_key, ""), 0)
    for i, c in enumerate(constraints):
        size = len(state.counts[i])
        if c.topology_key == HOSTNAME:
            size = len(filtered) - len(state.ignored)
        state.weights.append(math.log(size + 2))
    for info in all_nodes:
        labels = node_labels(info.node)
        if require_all_topologies and not node_has_all_keys(labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not c.includes_node(info.node, required, tolerations):
                continue
            value = labels.get(c.topology_key, "")
            if value in state.counts[i]:
                state.counts[i][value] += count_matching(info.pods, c, namespace)
    return state


def score(state: PreScoreState, node_info: NodeInfo) -> int:
    if node_info.name in state.ignored:
        return 0
    labels = node_labels(node_info.node)
    total = 0.0
    for i, c in enumerate(state.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME:
            count = count_matching(node_info.pods, c, state.namespace)
        else:
            count = state.counts[i].get(value, 0)
        total += count * state.weights[i] + (c.max_skew - 1)
    return go_round(total)


def normalize(state: PreScoreState, scores: list[NodeScore]) -> list[NodeScore]:
    valid = [s.score for s in scores if s.name not in state.ignored]
    lowest, highest = min(valid, default=0), max(valid, default=0)
    out = []
    for s in scores:
        if s.name in state.ignored:
            out.append(NodeScore(s.name, 0))
        elif highest == 0:
            out.append(NodeScore(s.name, MAX_NODE_SCORE))
        else:
            out.append(NodeScore(s.name, go_div(MAX_NODE_SCORE * (highest + lowest - s.score), highest)))
    return out

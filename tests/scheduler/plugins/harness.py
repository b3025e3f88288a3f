"""Run one plugin over a pod the way the framework does: PreFilter then Filter per node, or
PreScore, Score per node and NormalizeScore."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.status import Status
from scheduler.framework.types import NodeInfo, NodeScore


def run_filter(plugin: Any, pod: Object, node: NodeInfo, nodes: list[NodeInfo] | None = None) -> Status:
    state = CycleState()
    if hasattr(plugin, "pre_filter"):
        _, status = plugin.pre_filter(state, pod, nodes or [node])
        if status.is_skip():
            return Status()
        if not status.is_success():
            return status  # type: ignore[no-any-return]
    return plugin.filter(state, pod, node)  # type: ignore[no-any-return]


def run_score(plugin: Any, pod: Object, nodes: list[NodeInfo]) -> dict[str, int]:
    state = CycleState()
    if hasattr(plugin, "pre_score"):
        status = plugin.pre_score(state, pod, nodes)
        if status.is_skip():
            return {n.name: 0 for n in nodes}
        assert status.is_success(), status
    scores = []
    for node in nodes:
        score, status = plugin.score(state, pod, node)
        assert status.is_success(), status
        scores.append(NodeScore(node.name, score))
    if hasattr(plugin, "score_nodes"):  # the batched form must agree with score per node
        batched, status = plugin.score_nodes(state, pod, nodes)
        assert status.is_success(), status
        assert batched == [s.score for s in scores]
    if hasattr(plugin, "normalize_score"):
        raw = [s.score for s in scores]
        scores, status = plugin.normalize_score(state, pod, scores)
        assert status.is_success(), status
        if hasattr(plugin, "normalize_scores"):
            batched, status = plugin.normalize_scores(state, pod, raw)
            assert status.is_success(), status
            assert batched == [s.score for s in scores]
    return {s.name: s.score for s in scores}

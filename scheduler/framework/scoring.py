"""Running the Score extension point (upstream ``RunScorePlugins``): each plugin scores each
node (or the whole list, through ``score_nodes``), normalizes its list, every score must then
be in [0, 100], and is multiplied by the plugin's weight. Kept by plugin, in the nodes'
order: the scheduler sums the columns, and ``/debug/pods`` shows them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.status import SUCCESS, Status, plugin_error
from scheduler.framework.types import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeInfo, NodeScore

ScoreFn = Callable[[CycleState, Object, NodeInfo], tuple[int, Status]]
ScoreNodesFn = Callable[[CycleState, Object, Sequence[NodeInfo]], tuple[list[int], Status]]
NormalizeScoresFn = Callable[[CycleState, Object, list[int]], tuple[list[int], Status]]
NormalizeScoreFn = Callable[[CycleState, Object, list[NodeScore]], tuple[list[NodeScore], Status]]


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    """One Score plugin's bound methods (the optional ones None when it has none) and weight."""

    plugin: str
    score: ScoreFn
    score_nodes: ScoreNodesFn | None
    normalize_scores: NormalizeScoresFn | None
    normalize_score: NormalizeScoreFn | None
    weight: int


def run_score_plugins_by_plugin(
    entries: Sequence[ScoreEntry], state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
) -> tuple[dict[str, list[int]], Status]:
    """Plugin -> its normalized, weighted score of each node (in ``nodes``' order); plugins in
    ``state.skip_score_plugins`` (PreScore skipped them) do not run."""
    columns: dict[str, list[int]] = {}
    skip = state.skip_score_plugins
    for entry in entries:
        if entry.plugin in skip:
            continue
        raw, status = _score(entry, state, pod, nodes)
        if status.code:
            return {}, status
        raw, status = _normalize(entry, state, pod, nodes, raw)
        if status.code:
            return {}, status
        if raw and (max(raw) > MAX_NODE_SCORE or min(raw) < MIN_NODE_SCORE):
            value = next(v for v in raw if v > MAX_NODE_SCORE or v < MIN_NODE_SCORE)
            message = (
                f'applying score defaultWeights on Score plugins: plugin "{entry.plugin}" returns an '
                f"invalid score {value}, it should in the range of [{MIN_NODE_SCORE}, "
                f"{MAX_NODE_SCORE}] after normalizing"
            )
            return {}, plugin_error(message, entry.plugin, None)
        if entry.weight != 1:
            raw = [value * entry.weight for value in raw]
        columns[entry.plugin] = raw
    return columns, SUCCESS


def _score(
    entry: ScoreEntry, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
) -> tuple[list[int], Status]:
    plugin = entry.plugin
    if entry.score_nodes is not None:
        raw, status = entry.score_nodes(state, pod, nodes)
        if status.code:
            message = f'running Score plugins: plugin "{plugin}" failed with: {status.message()}'
            return [], plugin_error(message, plugin, status)
        return raw, SUCCESS
    raw = []
    append = raw.append
    score = entry.score
    for node in nodes:
        value, status = score(state, pod, node)
        if status.code:
            message = f'running Score plugins: plugin "{plugin}" failed with: {status.message()}'
            return [], plugin_error(message, plugin, status)
        append(value)
    return raw, SUCCESS


def _normalize(
    entry: ScoreEntry, state: CycleState, pod: Object, nodes: Sequence[NodeInfo], raw: list[int]
) -> tuple[list[int], Status]:
    if entry.normalize_scores is not None:
        raw, status = entry.normalize_scores(state, pod, raw)
    elif entry.normalize_score is not None:
        names = [node.name for node in nodes]
        normalized, status = entry.normalize_score(state, pod, list(map(NodeScore, names, raw)))
        raw = [score.score for score in normalized]
    else:
        return raw, SUCCESS
    if status.code:
        message = (
            f'running Normalize on Score plugins: plugin "{entry.plugin}" failed with: {status.message()}'
        )
        return [], plugin_error(message, entry.plugin, status)
    return raw, SUCCESS

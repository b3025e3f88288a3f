"""Score normalization shared by Score plugins (upstream ``helper.DefaultNormalizeScore``)."""

from __future__ import annotations

from scheduler.framework.types import NodeScore


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> list[NodeScore]:
    """Scale scores to ``0..max_priority`` by the highest one; ``reverse`` flips them so the
    lowest raw score gets the most. All-zero scores stay 0 (or all ``max_priority`` reversed)."""
    values = default_normalize_values(max_priority, reverse, [s.score for s in scores])
    return [NodeScore(s.name, value) for s, value in zip(scores, values, strict=True)]


def default_normalize_values(max_priority: int, reverse: bool, scores: list[int]) -> list[int]:
    """``default_normalize_score`` over bare scores (for a plugin's batched ``normalize_scores``)."""
    highest = max(scores, default=0)
    if highest == 0:
        return [max_priority] * len(scores) if reverse else list(scores)
    if highest < 0:
        divided = [go_div(max_priority * score, highest) for score in scores]
    else:  # go_div(a, highest) is a // highest for a >= 0, -(-a // highest) otherwise
        scaled = [max_priority * score for score in scores]
        divided = [a // highest if a >= 0 else -(-a // highest) for a in scaled]
    if reverse:
        return [max_priority - score for score in divided]
    return divided


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, like Go's ``/`` on integers."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_round(x: float) -> int:
    """Go's ``math.Round``: halves away from zero."""
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)

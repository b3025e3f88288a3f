"""Score normalization shared by Score plugins (upstream ``helper.DefaultNormalizeScore``)."""

from __future__ import annotations

from scheduler.framework.types import NodeScore


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> list[NodeScore]:
    """Scale scores to ``0..max_priority`` by the highest one; ``reverse`` flips them so the
    lowest raw score gets the most. All-zero scores stay 0 (or all ``max_priority`` reversed)."""
    highest = max((s.score for s in scores), default=0)
    if highest == 0:
        if reverse:
            return [NodeScore(s.name, max_priority) for s in scores]
        return list(scores)
    if highest < 0:
        out = []
        for s in scores:
            score = go_div(max_priority * s.score, highest)
            out.append(NodeScore(s.name, max_priority - score if reverse else score))
        return out
    # highest > 0: go_div(a, highest) is a // highest for a >= 0, -(-a // highest) otherwise
    scaled = [max_priority * s.score for s in scores]
    divided = [a // highest if a >= 0 else -(-a // highest) for a in scaled]
    if reverse:
        return [NodeScore(s.name, max_priority - score) for s, score in zip(scores, divided, strict=True)]
    return [NodeScore(s.name, score) for s, score in zip(scores, divided, strict=True)]


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, like Go's ``/`` on integers."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_round(x: float) -> int:
    """Go's ``math.Round``: halves away from zero."""
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)

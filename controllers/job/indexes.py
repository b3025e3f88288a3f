"""Completion indexes of Indexed Jobs: the pod annotation/label, and the interval strings of
``status.completedIndexes``/``failedIndexes`` and ``successPolicy`` (``"1,3-5,7"``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT = "batch.kubernetes.io/job-index-ignored-failure-count"
COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX"
UNKNOWN = -1


def is_indexed(job: Mapping[str, Any]) -> bool:
    return (job.get("spec") or {}).get("completionMode") == "Indexed"


def completion_index(pod: Mapping[str, Any]) -> int:
    """The pod's index from its annotation (the label as a fallback), or ``UNKNOWN``."""
    meta = pod.get("metadata") or {}
    for source in (meta.get("annotations") or {}, meta.get("labels") or {}):
        value = source.get(COMPLETION_INDEX)
        if value is None:
            continue
        try:
            index = int(value)
        except (TypeError, ValueError):
            return UNKNOWN
        return index if index >= 0 and str(index) == str(value) else UNKNOWN
    return UNKNOWN


def index_failure_count(pod: Mapping[str, Any]) -> int:
    """Failures of earlier pods of the same index, as the annotation on this pod says."""
    value = ((pod.get("metadata") or {}).get("annotations") or {}).get(INDEX_FAILURE_COUNT)
    try:
        return max(int(value), 0) if value is not None else 0
    except (TypeError, ValueError):
        return 0


def parse_intervals(text: str | None, limit: int) -> set[int]:
    """The indexes of ``"0,2-4"`` below ``limit`` (malformed parts are skipped, as upstream)."""
    result: set[int] = set()
    for part in (text or "").split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            continue
        result.update(range(max(low, 0), min(high, limit - 1) + 1))
    return result


def format_intervals(indexes: Iterable[int]) -> str:
    """``{0, 2, 3, 4}`` -> ``"0,2-4"``: sorted, runs of consecutive indexes joined."""
    parts: list[str] = []
    run: list[int] = []
    for index in sorted(set(indexes)):
        if run and index == run[-1] + 1:
            run.append(index)
            continue
        if run:
            parts.append(_run(run))
        run = [index]
    if run:
        parts.append(_run(run))
    return ",".join(parts)


def _run(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


def first_pending_indexes(
    completions: int, count: int, succeeded: set[int], active: set[int], failed: set[int]
) -> list[int]:
    """The ``count`` lowest indexes that are neither done, running nor failed."""
    pending: list[int] = []
    for index in range(completions):
        if len(pending) >= count:
            break
        if index not in succeeded and index not in active and index not in failed:
            pending.append(index)
    return pending

"""Job conditions with upstream's types, reasons and messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object

COMPLETE = "Complete"
FAILED = "Failed"
FAILURE_TARGET = "FailureTarget"
SUCCESS_CRITERIA_MET = "SuccessCriteriaMet"
SUSPENDED = "Suspended"

BACKOFF_LIMIT_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")
MAX_FAILED_INDEXES_EXCEEDED = (
    "MaxFailedIndexesExceeded",
    "Job has exceeded the specified maximal number of failed indexes",
)
FAILED_INDEXES = ("FailedIndexes", "Job has failed indexes")
COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
POD_FAILURE_POLICY = "PodFailurePolicy"
SUCCESS_POLICY = "SuccessPolicy"


def new_condition(kind: str, reason: str, message: str, now: float, status: str = "True") -> dict[str, Any]:
    stamp = format_rfc3339(now)
    return {
        "type": kind,
        "status": status,
        "lastProbeTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }


def find_condition(job: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """The condition of ``kind`` that is True, or None."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind and condition.get("status") == "True":
            return condition  # type: ignore[no-any-return]
    return None


def is_finished(job: Mapping[str, Any]) -> bool:
    return find_condition(job, COMPLETE) is not None or find_condition(job, FAILED) is not None


def finish_time(job: Mapping[str, Any]) -> str | None:
    """When the Job got its Complete or Failed condition."""
    for kind in (COMPLETE, FAILED):
        condition = find_condition(job, kind)
        if condition is not None:
            return condition.get("lastTransitionTime")  # type: ignore[no-any-return]
    return None


def ensure_condition(job: Object, kind: str, status: str, reason: str, message: str, now: float) -> bool:
    """Set ``kind`` to ``status`` with ``reason``/``message`` (added only when it is True or
    already present); True when anything changed (upstream's ``ensureJobConditionStatus``)."""
    conditions: list[dict[str, Any]] = job.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") != kind:
            continue
        if (condition.get("status"), condition.get("reason"), condition.get("message")) == (
            status,
            reason,
            message,
        ):
            return False
        stamp = format_rfc3339(now)
        if condition.get("status") != status:
            condition["lastTransitionTime"] = stamp
        condition.update(status=status, reason=reason, message=message, lastProbeTime=stamp)
        return True
    if status != "True":
        return False
    conditions.append(new_condition(kind, reason, message, now))
    return True

"""Deployment conditions and progress predicates (upstream's deployment_util.go).

``set_condition`` keeps a condition untouched when its status and reason are unchanged (so
``lastUpdateTime`` does not move), and keeps ``lastTransitionTime`` when only the reason changed.
"""

from __future__ import annotations

from typing import Any

from controllers.deployment.util.deployments import progress_deadline
from controllers.deployment.util.replicasets import replicas
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object

AVAILABLE = "Available"
PROGRESSING = "Progressing"
REPLICA_FAILURE = "ReplicaFailure"

NEW_RS_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
RS_UPDATED_REASON = "ReplicaSetUpdated"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
PAUSED_REASON = "DeploymentPaused"
RESUMED_REASON = "DeploymentResumed"
MIN_AVAILABLE_REASON = "MinimumReplicasAvailable"
MIN_UNAVAILABLE_REASON = "MinimumReplicasUnavailable"


def new_condition(type_: str, status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    return {
        "type": type_,
        "status": status,
        "lastUpdateTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


def get_condition(status: dict[str, Any], type_: str) -> dict[str, Any] | None:
    for condition in status.get("conditions") or []:
        if condition.get("type") == type_:
            return condition  # type: ignore[no-any-return]
    return None


def set_condition(status: dict[str, Any], condition: dict[str, Any]) -> None:
    current = get_condition(status, condition["type"])
    if current is not None and current["status"] == condition["status"]:
        if current.get("reason") == condition["reason"]:
            return
        condition = {**condition, "lastTransitionTime": current.get("lastTransitionTime")}
    remove_condition(status, condition["type"])
    status.setdefault("conditions", []).append(condition)


def remove_condition(status: dict[str, Any], type_: str) -> None:
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != type_]


def _count(status: dict[str, Any], field: str) -> int:
    return int(status.get(field) or 0)


def deployment_complete(d: Object, status: dict[str, Any]) -> bool:
    """All replicas updated and available, and the latest spec observed."""
    want = replicas(d)
    return (
        _count(status, "updatedReplicas") == want
        and _count(status, "replicas") == want
        and _count(status, "availableReplicas") == want
        and _count(status, "observedGeneration") >= int(d["metadata"].get("generation") or 0)
    )


def deployment_progressing(d: Object, new: dict[str, Any]) -> bool:
    """More updated, ready or available replicas than before, or fewer old ones."""
    old = d.get("status") or {}
    old_old = _count(old, "replicas") - _count(old, "updatedReplicas")
    new_old = _count(new, "replicas") - _count(new, "updatedReplicas")
    return (
        _count(new, "updatedReplicas") > _count(old, "updatedReplicas")
        or new_old < old_old
        or _count(new, "readyReplicas") > _count(old, "readyReplicas")
        or _count(new, "availableReplicas") > _count(old, "availableReplicas")
    )


def deployment_timed_out(d: Object, new: dict[str, Any], now: float) -> bool:
    """The Progressing condition was last updated more than the deadline ago."""
    deadline = progress_deadline(d)
    condition = get_condition(new, PROGRESSING)
    if deadline is None or condition is None:
        return False
    if condition.get("reason") == NEW_RS_AVAILABLE_REASON:
        return False
    if condition.get("reason") == TIMED_OUT_REASON:
        return True
    since = parse_time(condition.get("lastUpdateTime"))
    return since is not None and since + deadline < now

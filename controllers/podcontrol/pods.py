"""Pod predicates the ReplicaSet and Deployment controllers share (upstream's podutil and
``FilterActivePods``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object

SUCCEEDED = "Succeeded"
FAILED = "Failed"


def is_pod_active(pod: Object) -> bool:
    """Not terminal (Succeeded/Failed) and not being deleted."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in (SUCCEEDED, FAILED) and not pod["metadata"].get("deletionTimestamp")


def filter_active_pods(pods: Iterable[Object]) -> list[Object]:
    return [p for p in pods if is_pod_active(p)]


def pod_ready_condition(pod: Object) -> Mapping[str, Any] | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition  # type: ignore[no-any-return]
    return None


def is_pod_ready(pod: Object) -> bool:
    condition = pod_ready_condition(pod)
    return condition is not None and condition.get("status") == "True"


def is_pod_available(pod: Object, min_ready_seconds: int, now: float) -> bool:
    """Ready, and (with ``min_ready_seconds``) ready since strictly more than that long ago."""
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds <= 0:
        return True
    condition = pod_ready_condition(pod) or {}
    since = parse_time(condition.get("lastTransitionTime"))
    return since is not None and since + min_ready_seconds < now


def max_container_restarts(pod: Object) -> int:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return max((int(s.get("restartCount") or 0) for s in statuses), default=0)

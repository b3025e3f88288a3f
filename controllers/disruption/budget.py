"""The arithmetic of a PodDisruptionBudget's status (upstream's disruption.go, pure parts):
healthy pods, the disrupted-pods map with its 2-minute expiry, ``disruptionsAllowed`` and the
``DisruptionAllowed`` condition."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from controllers.podcontrol.pods import is_pod_ready
from minikube_py.api.timestamps import format_rfc3339, parse_rfc3339
from minikube_py.api.unstructured import Object

#: how long an eviction the apiserver accepted keeps its pod out of the healthy count
DELETION_TIMEOUT = 120.0
DISRUPTION_ALLOWED = "DisruptionAllowed"
SUFFICIENT_PODS = "SufficientPods"
INSUFFICIENT_PODS = "InsufficientPods"
SYNC_FAILED = "SyncFailed"


def scaled_value(value: Any, total: int) -> int:
    """``intstr.GetScaledValueFromIntOrPercent`` rounding up; ValueError when not a percentage."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value)
    if not text.endswith("%") or not text[:-1].isdigit():
        raise ValueError(f"invalid value for IntOrString: invalid value {text!r}")
    return math.ceil(int(text[:-1]) * total / 100)


def is_percent(value: Any) -> bool:
    return isinstance(value, str)


def disrupted_pod_map(
    pods: Iterable[Object], budget: Object, now: float
) -> tuple[dict[str, str], float | None, list[Object]]:
    """Upstream's ``buildDisruptedPodMap``: the entries of pods that still exist, are not yet
    being deleted and were accepted less than ``DELETION_TIMEOUT`` ago; when the earliest of
    them expires (None: none); the pods whose entry expired (each gets a ``NotDeleted`` event)."""
    recorded = (budget.get("status") or {}).get("disruptedPods") or {}
    kept: dict[str, str] = {}
    recheck: float | None = None
    expired: list[Object] = []
    for pod in pods:
        name = pod["metadata"]["name"]
        if pod["metadata"].get("deletionTimestamp") or name not in recorded:
            continue
        at = parse_rfc3339(recorded[name])
        expected_deletion = (at or 0.0) + DELETION_TIMEOUT
        if expected_deletion < now:
            expired.append(pod)
            continue
        recheck = expected_deletion if recheck is None else min(recheck, expected_deletion)
        kept[name] = recorded[name]
    return kept, recheck, expired


def count_healthy_pods(pods: Iterable[Object], disrupted: dict[str, str], now: float) -> int:
    """Ready pods that are neither being deleted nor about to be (a recent eviction)."""
    healthy = 0
    for pod in pods:
        meta = pod["metadata"]
        if meta.get("deletionTimestamp"):
            continue
        since = parse_rfc3339(disrupted.get(meta["name"]))
        if since is not None and since + DELETION_TIMEOUT > now:
            continue
        healthy += is_pod_ready(pod)
    return healthy


def find_condition(status: Object, kind: str) -> Object | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == kind), None)


def set_status_condition(status: Object, condition: Object, now: float) -> None:
    """``meta.SetStatusCondition``: the transition time moves only when the status changes."""
    conditions: list[Object] = status.setdefault("conditions", [])
    existing = find_condition(status, condition["type"])
    if existing is None:
        conditions.append({**condition, "lastTransitionTime": format_rfc3339(now)})
        return
    if existing.get("status") != condition["status"]:
        existing["lastTransitionTime"] = format_rfc3339(now)
    existing.update(condition)


def update_disruption_allowed_condition(status: Object, now: float) -> None:
    """``UpdateDisruptionAllowedCondition``: True/SufficientPods while a disruption is allowed."""
    allowed = status.get("disruptionsAllowed", 0) > 0
    condition = {
        "type": DISRUPTION_ALLOWED,
        "status": "True" if allowed else "False",
        "reason": SUFFICIENT_PODS if allowed else INSUFFICIENT_PODS,
        "message": "",
        "observedGeneration": status.get("observedGeneration", 0),
    }
    set_status_condition(status, condition, now)


def conditions_are_up_to_date(budget: Object) -> bool:
    status = budget.get("status") or {}
    condition = find_condition(status, DISRUPTION_ALLOWED)
    if condition is None or status.get("observedGeneration") != budget["metadata"].get("generation"):
        return False
    if status.get("disruptionsAllowed", 0) > 0:
        return condition.get("status") == "True" and condition.get("reason") == SUFFICIENT_PODS
    return condition.get("status") == "False" and condition.get("reason") == INSUFFICIENT_PODS


def desired_status(
    budget: Object, healthy: int, desired: int, expected: int, disrupted: dict[str, str], now: float
) -> Object | None:
    """The status ``updatePdbStatus`` writes, or None when the stored one already says it.
    No disruption is allowed while the budget expects no pods: its first pods may appear
    before this controller has counted them."""
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    status = budget.get("status") or {}
    generation = budget["metadata"].get("generation", 0)
    current = (
        status.get("currentHealthy", 0),
        status.get("desiredHealthy", 0),
        status.get("expectedPods", 0),
        status.get("disruptionsAllowed", 0),
        status.get("disruptedPods") or {},
        status.get("observedGeneration", 0),
    )
    if current == (healthy, desired, expected, allowed, disrupted, generation) and conditions_are_up_to_date(
        budget
    ):
        return None
    new: Object = {
        "currentHealthy": healthy,
        "desiredHealthy": desired,
        "expectedPods": expected,
        "disruptionsAllowed": allowed,
        "observedGeneration": generation,
        "conditions": [dict(c) for c in status.get("conditions") or []],
    }
    if disrupted:
        new["disruptedPods"] = dict(disrupted)
    update_disruption_allowed_condition(new, now)
    return new


def fail_safe_status(budget: Object, message: str, now: float) -> Object:
    """``failSafe``: whatever went wrong, allow no disruption (``SyncFailed``)."""
    status = {**(budget.get("status") or {}), "disruptionsAllowed": 0}
    status["conditions"] = [dict(c) for c in status.get("conditions") or []]
    condition = {
        "type": DISRUPTION_ALLOWED,
        "status": "False",
        "reason": SYNC_FAILED,
        "message": message,
        "observedGeneration": status.get("observedGeneration", 0),
    }
    set_status_condition(status, condition, now)
    return status

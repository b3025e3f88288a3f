"""The HPA's status conditions (upstream's ``setCondition``): AbleToScale, ScalingActive and
ScalingLimited, each set in place; the transition time moves only when the status changes."""

from __future__ import annotations

from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object


def set_condition(hpa: Object, kind: str, status: str, reason: str, message: str, now: float) -> None:
    conditions = hpa.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == kind:
            if condition.get("status") != status:
                condition["lastTransitionTime"] = format_rfc3339(now)
            condition.update(status=status, reason=reason, message=message)
            return
    conditions.append(
        {
            "type": kind,
            "status": status,
            "lastTransitionTime": format_rfc3339(now),
            "reason": reason,
            "message": message,
        }
    )


def condition_of(hpa: Object, kind: str) -> Object | None:
    for condition in (hpa.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            found: Object = condition
            return found
    return None

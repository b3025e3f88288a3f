"""What the node lifecycle controller remembers about each node's heartbeats (upstream's
``nodeHealthData``) and the pure rules over node and pod conditions.

``probe_timestamp`` is when *this controller* last saw the node alive: the Ready condition's
``lastHeartbeatTime`` changed, or the node's Lease ``renewTime`` moved forward. Timestamps come
from the controller's clock, never from the kubelet's, so skewed node clocks do not matter.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from minikube_py.api.unstructured import Object

Condition = dict[str, Any]

READY = "Ready"
# Conditions the controller sets to Unknown when the kubelet goes silent. NetworkUnavailable is
# left alone: the network plugin, not the kubelet, owns it.
MONITORED_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")


@dataclass
class NodeHealth:
    ready: Condition | None  # the Ready condition as last observed
    probe_timestamp: float
    ready_transition_timestamp: float
    lease_renew_time: float | None = None


def get_condition(obj: Object, kind: str) -> Condition | None:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return condition  # type: ignore[no-any-return]
    return None


def mark_unknown(node: Object, now: str, created: str) -> None:
    """Set every monitored condition of ``node`` (a private copy) to Unknown."""
    conditions = node.setdefault("status", {}).setdefault("conditions", [])
    for kind in MONITORED_CONDITIONS:
        condition = get_condition(node, kind)
        if condition is None:
            conditions.append(
                {
                    "type": kind,
                    "status": "Unknown",
                    "reason": "NodeStatusNeverUpdated",
                    "message": "Kubelet never posted node status.",
                    "lastHeartbeatTime": created,
                    "lastTransitionTime": now,
                }
            )
        elif condition.get("status") != "Unknown":
            condition.update(
                status="Unknown",
                reason="NodeStatusUnknown",
                message="Kubelet stopped posting node status.",
                lastTransitionTime=now,
            )


def pod_not_ready(pod: Object, now: str) -> Object | None:
    """A copy of ``pod`` with its Ready condition False, or None if there is nothing to change
    (no Ready condition, or already False)."""
    updated = copy.deepcopy(pod)
    condition = get_condition(updated, "Ready")
    if condition is None or condition.get("status") == "False":
        return None
    condition["status"] = "False"
    condition["lastTransitionTime"] = now
    return updated

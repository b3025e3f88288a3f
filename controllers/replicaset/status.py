"""ReplicaSet status: the counts of its active pods and the ``ReplicaFailure`` condition
(upstream's replica_set_utils.go). Written through ``/status`` only when it changed."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from controllers.podcontrol.pods import is_pod_available, is_pod_ready
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import selector_from_set
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import clock_rfc3339 as now_time
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock

REPLICA_FAILURE = "ReplicaFailure"
STATUS_UPDATE_RETRIES = 1
_COUNTS = ("fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration")


def calculate_status(
    rs: Object, pods: Sequence[Object], manage_error: Exception | None, clock: Clock
) -> dict[str, Any]:
    """The new status for ``rs`` given its active, claimed ``pods``."""
    status = copy.deepcopy(rs.get("status") or {})
    template_labels = selector_from_set((rs["spec"]["template"].get("metadata") or {}).get("labels") or {})
    min_ready = int(rs["spec"].get("minReadySeconds") or 0)
    now = clock.now()
    status["replicas"] = len(pods)
    status["fullyLabeledReplicas"] = sum(
        1 for p in pods if template_labels.matches(p["metadata"].get("labels") or {})
    )
    status["readyReplicas"] = sum(1 for p in pods if is_pod_ready(p))
    status["availableReplicas"] = sum(1 for p in pods if is_pod_available(p, min_ready, now))
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != REPLICA_FAILURE]
    failure = next((c for c in status.get("conditions") or [] if c.get("type") == REPLICA_FAILURE), None)
    if manage_error is not None:
        if failure is None:
            diff = len(pods) - int(rs["spec"].get("replicas", 1))
            failure = {
                "type": REPLICA_FAILURE,
                "status": "True",
                "lastTransitionTime": now_time(clock),
                "reason": "FailedCreate" if diff < 0 else "FailedDelete",
                "message": str(manage_error),
            }
        conditions.append(failure)
    status["conditions"] = conditions
    return _omit_empty(status)


def _omit_empty(status: dict[str, Any]) -> dict[str, Any]:
    """Drop zero counts and empty conditions, as Go's ``omitempty`` does (``replicas`` stays)."""
    return {k: v for k, v in status.items() if k == "replicas" or v not in (0, None, [])}


async def update_replica_set_status(
    client: Client, resource_type: ResourceType, rs: Object, new_status: dict[str, Any]
) -> Object:
    """Write ``new_status`` (with ``observedGeneration``) to ``rs`` of ``resource_type`` unless
    nothing changed; on failure re-read the object and try again once more, then raise."""
    generation = rs["metadata"].get("generation", 0)
    if (
        _same_status(rs.get("status") or {}, new_status)
        and (rs.get("status") or {}).get("observedGeneration", 0) == generation
    ):
        return rs
    handle = client.resource(resource_type, rs["metadata"]["namespace"])
    current = rs
    for attempt in range(STATUS_UPDATE_RETRIES + 1):
        updated = copy.deepcopy(current)
        updated["status"] = dict(new_status)
        updated["status"]["observedGeneration"] = current["metadata"].get("generation", 0)
        try:
            return await handle.update_status(updated)
        except ApiError:
            if attempt >= STATUS_UPDATE_RETRIES:
                raise
            current = await handle.get(rs["metadata"]["name"])
    raise AssertionError("unreachable")


def _same_status(old: dict[str, Any], new: dict[str, Any]) -> bool:
    keys = ("replicas", "conditions", *_COUNTS[:-1])
    return all((old.get(k) or 0) == (new.get(k) or 0) for k in keys)

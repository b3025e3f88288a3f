"""Deployment status from its ReplicaSets (upstream's ``calculateStatus`` and
``syncDeploymentStatus``). Zero counts are left out, as Go's ``omitempty`` does."""

from __future__ import annotations

import copy
from typing import Any

from controllers.deployment.context import SyncContext
from controllers.deployment.util import conditions as cond
from controllers.deployment.util import deployments as du
from controllers.deployment.util import replicasets as rsu
from controllers.deployment.writes import update_deployment_status
from minikube_py.api.timestamps import clock_rfc3339 as now_time
from minikube_py.api.unstructured import Object

_COUNTS = (
    "observedGeneration",
    "replicas",
    "updatedReplicas",
    "readyReplicas",
    "availableReplicas",
    "unavailableReplicas",
)


def calculate_status(
    ctx: SyncContext, all_rss: list[Object | None], new_rs: Object | None, d: Object
) -> dict[str, Any]:
    old = d.get("status") or {}
    available = rsu.available_replica_count(all_rss)
    status: dict[str, Any] = {
        "observedGeneration": int(d["metadata"].get("generation") or 0),
        "replicas": rsu.actual_replica_count(all_rss),
        "updatedReplicas": rsu.actual_replica_count([new_rs]),
        "readyReplicas": rsu.ready_replica_count(all_rss),
        "availableReplicas": available,
        "unavailableReplicas": max(0, rsu.replica_count(all_rss) - available),
        "conditions": copy.deepcopy(old.get("conditions") or []),
    }
    if old.get("collisionCount") is not None:
        status["collisionCount"] = old["collisionCount"]
    now = now_time(ctx.clock)
    if available >= rsu.replicas(d) - du.max_unavailable(d):
        condition = cond.new_condition(
            cond.AVAILABLE, "True", cond.MIN_AVAILABLE_REASON, "Deployment has minimum availability.", now
        )
    else:
        condition = cond.new_condition(
            cond.AVAILABLE,
            "False",
            cond.MIN_UNAVAILABLE_REASON,
            "Deployment does not have minimum availability.",
            now,
        )
    cond.set_condition(status, condition)
    return status


def normalized(status: dict[str, Any]) -> dict[str, Any]:
    """``status`` as it reads on the wire: zero counts and empty lists dropped."""
    return {k: v for k, v in status.items() if not (k in _COUNTS and not v) and v not in (None, [])}


async def write_status_if_changed(ctx: SyncContext, d: Object, new_status: dict[str, Any]) -> bool:
    """Write ``new_status`` unless it equals the current one; returns whether it wrote."""
    if normalized(d.get("status") or {}) == normalized(new_status):
        return False
    d["status"] = normalized(new_status)
    await update_deployment_status(ctx, d)
    return True


async def sync_deployment_status(
    ctx: SyncContext, all_rss: list[Object | None], new_rs: Object | None, d: Object
) -> None:
    await write_status_if_changed(ctx, d, calculate_status(ctx, all_rss, new_rs, d))

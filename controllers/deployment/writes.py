"""Deployment controller writes with conflict handling: a 409 re-reads the object, reapplies
the change and tries again (up to ``RETRIES`` times), so no decision is lost to a race."""

from __future__ import annotations

import copy
from collections.abc import Callable

from controllers.deployment.context import SyncContext
from controllers.deployment.util.replicasets import REVISION_ANNOTATION
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import DEPLOYMENTS, REPLICASETS

RETRIES = 3


async def update_deployment_status(ctx: SyncContext, d: Object) -> None:
    """PUT ``d``'s status (and, as upstream, its annotations ride along); ``d`` gets the new
    resourceVersion so later writes in the same sync do not conflict with this one."""
    handle = ctx.client.resource(DEPLOYMENTS, d["metadata"]["namespace"])
    body = d
    for attempt in range(RETRIES + 1):
        try:
            written = await handle.update_status(body)
        except ApiError as err:
            if err.code != 409 or attempt == RETRIES:
                raise
            fresh = await handle.get(d["metadata"]["name"])
            if fresh["metadata"].get("uid") != d["metadata"].get("uid"):
                raise
            fresh["status"] = copy.deepcopy(d.get("status") or {})
            revision = (d["metadata"].get("annotations") or {}).get(REVISION_ANNOTATION)
            if revision is not None:
                fresh["metadata"].setdefault("annotations", {})[REVISION_ANNOTATION] = revision
            body = fresh
            continue
        d["metadata"]["resourceVersion"] = written["metadata"].get("resourceVersion")
        return


async def update_replica_set(ctx: SyncContext, rs: Object, mutate: Callable[[Object], None]) -> Object:
    """PUT ``mutate(copy of rs)``; on conflict mutate a fresh read instead."""
    handle = ctx.client.resource(REPLICASETS, rs["metadata"]["namespace"])
    body = copy.deepcopy(rs)
    mutate(body)
    for attempt in range(RETRIES + 1):
        try:
            return await handle.update(body)
        except ApiError as err:
            if err.code != 409 or attempt == RETRIES:
                raise
            body = await handle.get(rs["metadata"]["name"])
            if body["metadata"].get("uid") != rs["metadata"].get("uid"):
                raise
            mutate(body)
    raise AssertionError("unreachable")

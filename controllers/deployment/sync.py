"""Scaling, the new ReplicaSet, revisions, cleanup and status (upstream's deployment sync.go).

Every function takes the controller's ``SyncContext`` ``ctx`` and a private copy ``d`` of the
Deployment, whose ``status`` it may change in place.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from controllers.deployment.context import SyncContext
from controllers.deployment.scaling import cleanup_deployment, scale
from controllers.deployment.status import sync_deployment_status
from controllers.deployment.util import conditions as cond
from controllers.deployment.util import deployments as du
from controllers.deployment.util import replicasets as rsu
from controllers.deployment.writes import (
    update_deployment_status,
    update_replica_set,
)
from controllers.podcontrol.hash import compute_hash
from controllers.podcontrol.ownerrefs import get_controller_of, new_controller_ref
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import clock_rfc3339 as now_time
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import REPLICASETS

NewAndOld = tuple[Object | None, list[Object]]


async def sync(ctx: SyncContext, d: Object, rs_list: list[Object]) -> None:
    """Reconcile a scaling event or a paused deployment: scale, never roll out."""
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(ctx, d, rs_list, False)
    await scale(ctx, d, new_rs, old_rss)
    if d["spec"].get("paused"):
        await cleanup_deployment(ctx, old_rss, d)
    await sync_deployment_status(ctx, [*old_rss, new_rs], new_rs, d)


async def sync_status_only(ctx: SyncContext, d: Object, rs_list: list[Object]) -> None:
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(ctx, d, rs_list, False)
    await sync_deployment_status(ctx, [*old_rss, new_rs], new_rs, d)


async def is_scaling_event(ctx: SyncContext, d: Object, rs_list: list[Object]) -> bool:
    """An active ReplicaSet was sized for another ``spec.replicas`` than the deployment's now."""
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(ctx, d, rs_list, False)
    for rs in rsu.filter_active([*old_rss, new_rs]):
        desired = du.annotation_int(rs, du.DESIRED_REPLICAS_ANNOTATION)
        if desired is not None and desired != rsu.replicas(d):
            return True
    return False


async def get_all_replica_sets_and_sync_revision(
    ctx: SyncContext, d: Object, rs_list: list[Object], create: bool
) -> NewAndOld:
    _, all_old = rsu.find_old_replica_sets(d, rs_list)
    new_rs = await get_new_replica_set(ctx, d, rs_list, all_old, create)
    return new_rs, all_old


async def get_new_replica_set(
    ctx: SyncContext, d: Object, rs_list: list[Object], old_rss: list[Object], create: bool
) -> Object | None:
    """The ReplicaSet for the current template with its revision synced, created if ``create``."""
    existing = rsu.find_new_replica_set(d, rs_list)
    new_revision = rsu.max_revision(old_rss) + 1
    if existing is not None:
        return await _sync_existing_new_rs(ctx, d, existing, new_revision)
    if not create:
        return None
    return await _create_new_rs(ctx, d, old_rss, new_revision)


async def _sync_existing_new_rs(ctx: SyncContext, d: Object, rs: Object, new_revision: int) -> Object:
    probe = {"metadata": {**rs["metadata"], "annotations": dict(rs["metadata"].get("annotations") or {})}}
    annotations_updated = du.set_new_replica_set_annotations(d, probe, new_revision, True)
    min_ready = d["spec"].get("minReadySeconds") or 0
    if annotations_updated or (rs["spec"].get("minReadySeconds") or 0) != min_ready:

        def mutate(body: Object) -> None:
            du.set_new_replica_set_annotations(d, body, new_revision, True)
            body["spec"]["minReadySeconds"] = min_ready

        return await update_replica_set(ctx, rs, mutate)
    # the revision annotation rides along with the status update, as upstream
    needs_update = du.set_deployment_revision(d, rs["metadata"]["annotations"][rsu.REVISION_ANNOTATION])
    status = d.setdefault("status", {})
    if du.progress_deadline(d) is not None and cond.get_condition(status, cond.PROGRESSING) is None:
        message = f'Found new replica set "{rs["metadata"]["name"]}"'
        now = now_time(ctx.clock)
        cond.set_condition(
            status, cond.new_condition(cond.PROGRESSING, "True", cond.FOUND_NEW_RS_REASON, message, now)
        )
        needs_update = True
    if needs_update:
        await update_deployment_status(ctx, d)
    return rs


def new_replica_set_object(d: Object) -> Object:
    """The ReplicaSet for ``d``'s current template, named ``<deployment>-<hash>``, 0 replicas."""
    template: dict[str, Any] = copy.deepcopy(d["spec"]["template"])
    pod_hash = compute_hash(d["spec"]["template"], (d.get("status") or {}).get("collisionCount"))
    labels = {**((template.get("metadata") or {}).get("labels") or {}), rsu.POD_TEMPLATE_HASH_LABEL: pod_hash}
    template.setdefault("metadata", {})["labels"] = labels
    selector = copy.deepcopy(d["spec"]["selector"])
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), rsu.POD_TEMPLATE_HASH_LABEL: pod_hash}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": f"{d['metadata']['name']}-{pod_hash}",
            "namespace": d["metadata"]["namespace"],
            "ownerReferences": [dc_controller_ref(d)],
            "labels": dict(labels),
        },
        "spec": {
            "replicas": 0,
            "minReadySeconds": d["spec"].get("minReadySeconds") or 0,
            "selector": selector,
            "template": template,
        },
    }


def dc_controller_ref(d: Object) -> dict[str, Any]:
    return new_controller_ref(d, "apps/v1", "Deployment")


async def _create_new_rs(ctx: SyncContext, d: Object, old_rss: list[Object], new_revision: int) -> Object:
    new_rs = new_replica_set_object(d)
    count = du.new_rs_new_replicas(d, [*old_rss, new_rs], new_rs)
    new_rs["spec"]["replicas"] = count
    du.set_new_replica_set_annotations(d, new_rs, new_revision, False)
    name = new_rs["metadata"]["name"]
    already_exists = False
    try:
        created = await ctx.client.resource(REPLICASETS, d["metadata"]["namespace"]).create(new_rs)
    except ApiError as err:
        if err.code == 409 and err.reason == "AlreadyExists":
            created = await _existing_or_collision(ctx, d, name, err)
            already_exists = True
        else:
            await _record_create_failure(ctx, d, name, err)
            raise
    if not already_exists and count > 0:
        message = f"Scaled up replica set {name} from 0 to {count}"
        ctx.recorder.event(d, "Normal", "ScalingReplicaSet", message)
    needs_update = du.set_deployment_revision(d, str(new_revision))
    if not already_exists and du.progress_deadline(d) is not None:
        message = f'Created new replica set "{name}"'
        condition = cond.new_condition(
            cond.PROGRESSING, "True", cond.NEW_RS_REASON, message, now_time(ctx.clock)
        )
        cond.set_condition(d.setdefault("status", {}), condition)
        needs_update = True
    if needs_update:
        await update_deployment_status(ctx, d)
    return created


async def _existing_or_collision(ctx: SyncContext, d: Object, name: str, err: ApiError) -> Object:
    """The ReplicaSet that already has our name: ours with our template, or a hash collision
    (bump ``status.collisionCount`` so the next sync hashes differently, and fail)."""
    rs = ctx.replica_sets.get_by_key(f"{d['metadata']['namespace']}/{name}")
    if rs is None:
        raise err
    ref = get_controller_of(rs)
    owned = ref is not None and ref.get("uid") == d["metadata"]["uid"]
    if owned and rsu.equal_ignore_hash(d["spec"]["template"], rs["spec"]["template"]):
        return rs
    status = d.setdefault("status", {})
    status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
    await update_deployment_status(ctx, d)
    raise err


async def _record_create_failure(ctx: SyncContext, d: Object, name: str, err: ApiError) -> None:
    if err.code == 403 and any(c.reason == "NamespaceTerminating" for c in err.causes):
        return
    message = f'Failed to create new replica set "{name}": {err}'
    if du.progress_deadline(d) is not None:
        condition = cond.new_condition(
            cond.PROGRESSING, "False", cond.FAILED_RS_CREATE_REASON, message, now_time(ctx.clock)
        )
        cond.set_condition(d.setdefault("status", {}), condition)
        with contextlib.suppress(ApiError):
            await update_deployment_status(ctx, d)
    ctx.recorder.event(d, "Warning", cond.FAILED_RS_CREATE_REASON, message)

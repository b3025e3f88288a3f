"""The Recreate strategy (upstream's recreate.go): scale every old ReplicaSet to zero, wait
until no old pod is left running, then create or scale up the new ReplicaSet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from controllers.deployment.context import SyncContext
from controllers.deployment.progress import sync_rollout_status
from controllers.deployment.scaling import cleanup_deployment, scale_replica_set_and_record_event
from controllers.deployment.sync import get_all_replica_sets_and_sync_revision
from controllers.deployment.util import conditions as cond
from controllers.deployment.util import replicasets as rsu
from minikube_py.api.unstructured import Object

PodMap = Mapping[str, Sequence[Object]]


async def rollout_recreate(ctx: SyncContext, d: Object, rs_list: list[Object], pod_map: PodMap) -> None:
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(ctx, d, rs_list, False)
    all_rss: list[Object | None] = [*old_rss, new_rs]
    if await scale_down_old_replica_sets_for_recreate(ctx, rsu.filter_active(old_rss), d):
        await sync_rollout_status(ctx, all_rss, new_rs, d)
        return
    if old_pods_running(new_rs, old_rss, pod_map):
        await sync_rollout_status(ctx, all_rss, new_rs, d)
        return
    if new_rs is None:
        new_rs, old_rss = await get_all_replica_sets_and_sync_revision(ctx, d, rs_list, True)
        all_rss = [*old_rss, new_rs]
    assert new_rs is not None
    await scale_replica_set_and_record_event(ctx, new_rs, rsu.replicas(d), d)
    if cond.deployment_complete(d, d.get("status") or {}):
        await cleanup_deployment(ctx, old_rss, d)
    await sync_rollout_status(ctx, all_rss, new_rs, d)


async def scale_down_old_replica_sets_for_recreate(
    ctx: SyncContext, old_rss: list[Object], d: Object
) -> bool:
    scaled = False
    for rs in old_rss:
        if rsu.replicas(rs) == 0:
            continue
        changed, _ = await scale_replica_set_and_record_event(ctx, rs, 0, d)
        scaled = scaled or changed
    return scaled


def old_pods_running(new_rs: Object | None, old_rss: list[Object], pod_map: PodMap) -> bool:
    """Old ReplicaSets still report replicas, or a non-terminal pod of an old one exists."""
    if rsu.actual_replica_count(old_rss) > 0:
        return True
    new_uid = new_rs["metadata"]["uid"] if new_rs is not None else None
    for uid, pods in pod_map.items():
        if uid == new_uid:
            continue
        for pod in pods:
            if (pod.get("status") or {}).get("phase") not in ("Failed", "Succeeded"):
                return True
    return False

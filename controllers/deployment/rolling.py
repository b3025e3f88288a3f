"""The RollingUpdate strategy (upstream's rolling.go): scale the new ReplicaSet up within
``maxSurge``, then old ones down without going under ``replicas - maxUnavailable`` available."""

from __future__ import annotations

from controllers.deployment.context import SyncContext
from controllers.deployment.progress import sync_rollout_status
from controllers.deployment.scaling import cleanup_deployment, scale_replica_set_and_record_event
from controllers.deployment.sync import get_all_replica_sets_and_sync_revision
from controllers.deployment.util import conditions as cond
from controllers.deployment.util import deployments as du
from controllers.deployment.util import replicasets as rsu
from minikube_py.api.unstructured import Object


async def rollout_rolling(ctx: SyncContext, d: Object, rs_list: list[Object]) -> None:
    new_rs, old_rss = await get_all_replica_sets_and_sync_revision(ctx, d, rs_list, True)
    assert new_rs is not None
    all_rss: list[Object | None] = [*old_rss, new_rs]
    if await reconcile_new_replica_set(ctx, all_rss, new_rs, d):
        await sync_rollout_status(ctx, all_rss, new_rs, d)
        return
    if await reconcile_old_replica_sets(ctx, all_rss, rsu.filter_active(old_rss), new_rs, d):
        await sync_rollout_status(ctx, all_rss, new_rs, d)
        return
    if cond.deployment_complete(d, d.get("status") or {}):
        await cleanup_deployment(ctx, old_rss, d)
    await sync_rollout_status(ctx, all_rss, new_rs, d)


async def reconcile_new_replica_set(
    ctx: SyncContext, all_rss: list[Object | None], new_rs: Object, d: Object
) -> bool:
    want = rsu.replicas(d)
    if rsu.replicas(new_rs) == want:
        return False
    if rsu.replicas(new_rs) > want:
        scaled, _ = await scale_replica_set_and_record_event(ctx, new_rs, want, d)
        return scaled
    count = du.new_rs_new_replicas(d, all_rss, new_rs)
    scaled, _ = await scale_replica_set_and_record_event(ctx, new_rs, count, d)
    return scaled


async def reconcile_old_replica_sets(
    ctx: SyncContext, all_rss: list[Object | None], old_rss: list[Object], new_rs: Object, d: Object
) -> bool:
    """Scale old ReplicaSets down: unhealthy replicas first, then as availability allows."""
    if rsu.replica_count(old_rss) == 0:
        return False
    min_available = rsu.replicas(d) - du.max_unavailable(d)
    new_unavailable = rsu.replicas(new_rs) - int((new_rs.get("status") or {}).get("availableReplicas") or 0)
    max_scaled_down = rsu.replica_count(all_rss) - min_available - new_unavailable
    if max_scaled_down <= 0:
        return False
    old_rss, cleaned = await cleanup_unhealthy_replicas(ctx, old_rss, d, max_scaled_down)
    scaled_down = await scale_down_old_replica_sets(ctx, [*old_rss, new_rs], old_rss, d)
    return cleaned + scaled_down > 0


async def cleanup_unhealthy_replicas(
    ctx: SyncContext, old_rss: list[Object], d: Object, max_cleanup: int
) -> tuple[list[Object], int]:
    """Remove unavailable replicas of old ReplicaSets, oldest first, up to ``max_cleanup``."""
    old_rss = rsu.sort_by_creation(old_rss)
    total = 0
    for i, rs in enumerate(old_rss):
        if total >= max_cleanup:
            break
        available = int((rs.get("status") or {}).get("availableReplicas") or 0)
        if rsu.replicas(rs) == 0 or rsu.replicas(rs) == available:
            continue
        count = min(max_cleanup - total, rsu.replicas(rs) - available)
        _, old_rss[i] = await scale_replica_set_and_record_event(ctx, rs, rsu.replicas(rs) - count, d)
        total += count
    return old_rss, total


async def scale_down_old_replica_sets(
    ctx: SyncContext, all_rss: list[Object | None], old_rss: list[Object], d: Object
) -> int:
    """Scale old ReplicaSets down, oldest first, while more than the minimum is available."""
    min_available = rsu.replicas(d) - du.max_unavailable(d)
    available = rsu.available_replica_count(all_rss)
    if available <= min_available:
        return 0
    to_scale_down = available - min_available
    total = 0
    for rs in rsu.sort_by_creation(old_rss):
        if total >= to_scale_down:
            break
        if rsu.replicas(rs) == 0:
            continue
        count = min(rsu.replicas(rs), to_scale_down - total)
        await scale_replica_set_and_record_event(ctx, rs, rsu.replicas(rs) - count, d)
        total += count
    return total

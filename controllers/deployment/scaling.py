"""Sizing ReplicaSets: one ``scale_replica_set`` write path (with the replica annotations and
the ``ScalingReplicaSet`` event), proportional scaling, and revision-history cleanup."""

from __future__ import annotations

from controllers.deployment.context import SyncContext
from controllers.deployment.util import deployments as du
from controllers.deployment.util import replicasets as rsu
from controllers.deployment.writes import update_replica_set
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import REPLICASETS


async def scale_replica_set_and_record_event(
    ctx: SyncContext, rs: Object, new_scale: int, d: Object
) -> tuple[bool, Object]:
    """(whether the size changed, the ReplicaSet as written)."""
    if rsu.replicas(rs) == new_scale:
        return False, rs
    operation = "up" if rsu.replicas(rs) < new_scale else "down"
    return await scale_replica_set(ctx, rs, new_scale, d, operation)


async def scale_replica_set(
    ctx: SyncContext, rs: Object, new_scale: int, d: Object, operation: str
) -> tuple[bool, Object]:
    desired, maximum = rsu.replicas(d), rsu.replicas(d) + du.max_surge(d)
    size_changes = rsu.replicas(rs) != new_scale
    if not size_changes and not du.replicas_annotations_need_update(rs, desired, maximum):
        return False, rs
    old_scale = rsu.replicas(rs)

    def mutate(body: Object) -> None:
        body["spec"]["replicas"] = new_scale
        du.set_replicas_annotations(body, desired, maximum)

    updated = await update_replica_set(ctx, rs, mutate)
    if size_changes:
        name = rs["metadata"]["name"]
        message = f"Scaled {operation} replica set {name} from {old_scale} to {new_scale}"
        ctx.recorder.event(d, "Normal", "ScalingReplicaSet", message)
    return size_changes, updated


def find_active_or_latest(new_rs: Object | None, old_rss: list[Object]) -> Object | None:
    """The only active ReplicaSet, or the newest when none is active; None when several are."""
    if new_rs is None and not old_rss:
        return None
    newest_first = list(reversed(rsu.sort_by_creation(old_rss)))
    active = rsu.filter_active([*newest_first, new_rs])
    if not active:
        return new_rs if new_rs is not None else newest_first[0]
    return active[0] if len(active) == 1 else None


async def scale(ctx: SyncContext, d: Object, new_rs: Object | None, old_rss: list[Object]) -> None:
    """Bring the ReplicaSets to the deployment's size without rolling out (upstream's ``scale``)."""
    only = find_active_or_latest(new_rs, old_rss)
    if only is not None:
        if rsu.replicas(only) != rsu.replicas(d):
            await scale_replica_set_and_record_event(ctx, only, rsu.replicas(d), d)
        return
    if du.is_saturated(d, new_rs):
        for old in rsu.filter_active(old_rss):
            await scale_replica_set_and_record_event(ctx, old, 0, d)
        return
    if du.strategy_type(d) == du.ROLLING_UPDATE:
        await scale_proportionally(ctx, d, rsu.filter_active([*old_rss, new_rs]))


async def scale_proportionally(ctx: SyncContext, d: Object, active: list[Object]) -> None:
    """Spread the change in allowed size over the active ReplicaSets by their share of the
    old size (``max-replicas``); leftovers go to the largest."""
    allowed = rsu.replicas(d) + du.max_surge(d) if rsu.replicas(d) > 0 else 0
    to_add = allowed - rsu.replica_count(active)
    operation = ""
    if to_add > 0:
        active, operation = rsu.sort_by_size(active, newer_first=True), "up"
    elif to_add < 0:
        active, operation = rsu.sort_by_size(active, newer_first=False), "down"
    added = 0
    sizes: dict[str, int] = {}
    for rs in active:
        proportion = du.get_proportion(rs, d, to_add, added) if to_add else 0
        sizes[rs["metadata"]["name"]] = rsu.replicas(rs) + proportion
        added += proportion
    for i, rs in enumerate(active):
        name = rs["metadata"]["name"]
        if i == 0 and to_add != 0:
            sizes[name] = max(0, sizes[name] + to_add - added)
        await scale_replica_set(ctx, rs, sizes[name], d, operation)


async def cleanup_deployment(ctx: SyncContext, old_rss: list[Object], d: Object) -> None:
    """Delete the oldest old ReplicaSets beyond ``revisionHistoryLimit`` that are fully scaled
    down and observed at their latest generation."""
    limit = du.revision_history_limit(d)
    if limit is None:
        return
    alive = [rs for rs in old_rss if not rs["metadata"].get("deletionTimestamp")]
    diff = len(alive) - limit
    if diff <= 0:
        return
    for rs in rsu.sort_by_revision(alive)[:diff]:
        status = rs.get("status") or {}
        if status.get("replicas") or rsu.replicas(rs) != 0:
            continue
        if int(rs["metadata"].get("generation") or 0) > int(status.get("observedGeneration") or 0):
            continue
        try:
            await ctx.client.resource(REPLICASETS, rs["metadata"]["namespace"]).delete(rs["metadata"]["name"])
        except ApiError as err:
            if err.code != 404:
                raise

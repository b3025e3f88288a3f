"""Rollout progress: the Progressing and ReplicaFailure conditions, the progress deadline and
the paused conditions (upstream's deployment progress.go and ``checkPausedConditions``)."""

from __future__ import annotations

from typing import Any

from controllers.deployment.context import SyncContext
from controllers.deployment.status import calculate_status, write_status_if_changed
from controllers.deployment.util import conditions as cond
from controllers.deployment.util import deployments as du
from controllers.deployment.writes import update_deployment_status
from minikube_py.api.timestamps import clock_rfc3339 as now_time
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import meta_namespace_key


async def sync_rollout_status(
    ctx: SyncContext, all_rss: list[Object | None], new_rs: Object | None, d: Object
) -> None:
    """Status plus the Progressing condition: progressing, complete, or timed out."""
    status = calculate_status(ctx, all_rss, new_rs, d)
    if du.progress_deadline(d) is None:
        cond.remove_condition(status, cond.PROGRESSING)
    current = cond.get_condition(d.get("status") or {}, cond.PROGRESSING)
    complete = (
        int(status.get("replicas") or 0) == int(status.get("updatedReplicas") or 0)
        and current is not None
        and current.get("reason") == cond.NEW_RS_AVAILABLE_REASON
    )
    if du.progress_deadline(d) is not None and not complete:
        _update_progressing(ctx, d, status, new_rs, current)
    failures = replica_failures(all_rss, new_rs)
    if failures:
        cond.set_condition(status, failures[0])
    else:
        cond.remove_condition(status, cond.REPLICA_FAILURE)
    if not await write_status_if_changed(ctx, d, status):
        requeue_stuck_deployment(ctx, d, status)


def _update_progressing(
    ctx: SyncContext,
    d: Object,
    status: dict[str, Any],
    new_rs: Object | None,
    current: dict[str, Any] | None,
) -> None:
    now = now_time(ctx.clock)
    subject = (
        f'ReplicaSet "{new_rs["metadata"]["name"]}"'
        if new_rs is not None
        else f'Deployment "{d["metadata"]["name"]}"'
    )
    if cond.deployment_complete(d, status):
        if new_rs is not None:
            message = f"{subject} has successfully progressed."
            cond.set_condition(
                status,
                cond.new_condition(cond.PROGRESSING, "True", cond.NEW_RS_AVAILABLE_REASON, message, now),
            )
    elif cond.deployment_progressing(d, status):
        message = f"{subject} is progressing."
        condition = cond.new_condition(cond.PROGRESSING, "True", cond.RS_UPDATED_REASON, message, now)
        if current is not None:
            if current.get("status") == "True":
                condition["lastTransitionTime"] = current.get("lastTransitionTime")
            cond.remove_condition(status, cond.PROGRESSING)
        cond.set_condition(status, condition)
    elif cond.deployment_timed_out(d, status, ctx.clock.now()):
        message = f"{subject} has timed out progressing."
        cond.set_condition(
            status, cond.new_condition(cond.PROGRESSING, "False", cond.TIMED_OUT_REASON, message, now)
        )


def replica_failures(all_rss: list[Object | None], new_rs: Object | None) -> list[dict[str, Any]]:
    """ReplicaFailure conditions of the new ReplicaSet, else of any ReplicaSet, as
    deployment conditions."""

    def of(rs: Object) -> list[dict[str, Any]]:
        found = []
        for c in (rs.get("status") or {}).get("conditions") or []:
            if c.get("type") == cond.REPLICA_FAILURE:
                found.append({**c, "lastUpdateTime": c.get("lastTransitionTime")})
        return found

    if new_rs is not None and (failures := of(new_rs)):
        return failures
    return [c for rs in all_rss if rs is not None for c in of(rs)]


def requeue_stuck_deployment(ctx: SyncContext, d: Object, new_status: dict[str, Any]) -> float | None:
    """Sync again when the progress deadline would pass; returns the delay (None: no requeue)."""
    current = cond.get_condition(d.get("status") or {}, cond.PROGRESSING)
    deadline = du.progress_deadline(d)
    if deadline is None or current is None:
        return None
    if cond.deployment_complete(d, new_status) or current.get("reason") == cond.TIMED_OUT_REASON:
        return None
    since = parse_time(current.get("lastUpdateTime")) or ctx.clock.now()
    after = since + deadline - ctx.clock.now()
    key = meta_namespace_key(d)
    if after < 1.0:
        ctx.queue.add_rate_limited(key)
        return 0.0
    ctx.queue.add_after(key, after + 1.0)
    return after + 1.0


async def check_paused_conditions(ctx: SyncContext, d: Object) -> None:
    """Progressing Unknown/DeploymentPaused while paused, DeploymentResumed when resumed (a
    timed-out condition is kept), so a long pause is not reported as lack of progress."""
    if du.progress_deadline(d) is None:
        return
    status = d.setdefault("status", {})
    current = cond.get_condition(status, cond.PROGRESSING)
    if current is not None and current.get("reason") == cond.TIMED_OUT_REASON:
        return
    paused_exists = current is not None and current.get("reason") == cond.PAUSED_REASON
    paused = bool(d["spec"].get("paused"))
    now = now_time(ctx.clock)
    if paused and not paused_exists:
        condition = cond.new_condition(
            cond.PROGRESSING, "Unknown", cond.PAUSED_REASON, "Deployment is paused", now
        )
    elif not paused and paused_exists:
        condition = cond.new_condition(
            cond.PROGRESSING, "Unknown", cond.RESUMED_REASON, "Deployment is resumed", now
        )
    else:
        return
    cond.set_condition(status, condition)
    await update_deployment_status(ctx, d)

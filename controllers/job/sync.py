"""``sync_job``: one pass over a Job (upstream's ``syncJob``): count, decide whether it has
failed or succeeded, manage its pods, then track status (``tracking.track_status``)."""

from __future__ import annotations

from controllers.job.conditions import (
    BACKOFF_LIMIT_EXCEEDED,
    COMPLETIONS_REACHED,
    DEADLINE_EXCEEDED,
    FAILED_INDEXES,
    FAILURE_TARGET,
    MAX_FAILED_INDEXES_EXCEEDED,
    POD_FAILURE_POLICY,
    SUCCESS_CRITERIA_MET,
    SUCCESS_POLICY,
    SUSPENDED,
    ensure_condition,
    find_condition,
    new_condition,
)
from controllers.job.context import JobContext, JobSyncState
from controllers.job.indexes import (
    UNKNOWN,
    completion_index,
    index_failure_count,
    is_indexed,
    parse_intervals,
)
from controllers.job.jobpods import SUCCEEDED, has_tracking_finalizer, is_pod_failed, phase, restart_count
from controllers.job.manage import delete_job_pods, manage_job
from controllers.job.policies import FAIL_INDEX, match_pod_failure_policy, match_success_policy
from controllers.job.tracking import start_time, track_status
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object


def _new_finished(state: JobSyncState) -> tuple[list[Object], list[Object]]:
    """Finished pods not counted yet: still with the finalizer, not uncounted, not expected gone."""
    succeeded: list[Object] = []
    failed: list[Object] = []
    for pod in state.pods:
        uid = pod["metadata"]["uid"]
        if not has_tracking_finalizer(pod) or uid in state.expected_removed:
            continue
        if phase(pod) == SUCCEEDED and uid not in state.uncounted_succeeded:
            succeeded.append(pod)
        elif is_pod_failed(pod, state.job) and uid not in state.uncounted_failed:
            failed.append(pod)
    return succeeded, failed


def _failure_condition(
    ctx: JobContext, state: JobSyncState, new_failed: list[Object]
) -> dict[str, object] | None:
    job, now = state.job, ctx.clock.now()
    spec = job["spec"]
    policy = spec.get("podFailurePolicy")
    if policy:
        for pod in new_failed:
            message = match_pod_failure_policy(policy, pod).message
            if message is not None:
                return new_condition(FAILURE_TARGET, POD_FAILURE_POLICY, message, now)
    backoff_limit = int(spec.get("backoffLimit") if spec.get("backoffLimit") is not None else 6)
    restarts = restart_count(state.pods) if _template_restart(job) == "OnFailure" else 0
    past_on_failure = restarts > 0 if backoff_limit == 0 else restarts >= backoff_limit and restarts > 0
    if state.failed > backoff_limit or past_on_failure:
        return new_condition(FAILURE_TARGET, *BACKOFF_LIMIT_EXCEEDED, now)
    deadline = spec.get("activeDeadlineSeconds")
    started = start_time(job)
    if deadline is not None and started is not None and not spec.get("suspend"):
        remaining = started + int(deadline) - now
        if remaining <= 0:
            return new_condition(FAILURE_TARGET, *DEADLINE_EXCEEDED, now)
        ctx.requeue_after(state.key, remaining)
    return None


def _template_restart(job: Object) -> str:
    return str(((job["spec"].get("template") or {}).get("spec") or {}).get("restartPolicy") or "")


def _indexed_counts(ctx: JobContext, state: JobSyncState) -> None:
    job = state.job
    spec, status = job["spec"], state.status
    completions = int(spec.get("completions") or 0)
    state.prev_succeeded_indexes = parse_intervals(status.get("completedIndexes"), completions)
    state.succeeded_indexes = set(state.prev_succeeded_indexes)
    for pod in state.pods:
        index = completion_index(pod)
        if phase(pod) == SUCCEEDED and index != UNKNOWN and index < completions:
            state.succeeded_indexes.add(index)
    state.succeeded = len(state.succeeded_indexes)
    if spec.get("backoffLimitPerIndex") is not None:
        _per_index_failures(state, completions, int(spec["backoffLimitPerIndex"]))
        if state.finished_condition is None:
            failed, done = len(state.failed_indexes or ()), len(state.succeeded_indexes)
            max_failed = spec.get("maxFailedIndexes")
            if max_failed is not None and failed > int(max_failed):
                state.finished_condition = new_condition(
                    FAILURE_TARGET, *MAX_FAILED_INDEXES_EXCEEDED, ctx.clock.now()
                )
            elif failed > 0 and failed + done >= completions:
                state.finished_condition = new_condition(FAILURE_TARGET, *FAILED_INDEXES, ctx.clock.now())
    if state.finished_condition is None:
        message = match_success_policy(spec.get("successPolicy"), completions, state.succeeded_indexes)
        if message is not None:
            state.finished_condition = new_condition(
                SUCCESS_CRITERIA_MET, SUCCESS_POLICY, message, ctx.clock.now()
            )


def _per_index_failures(state: JobSyncState, completions: int, limit: int) -> None:
    """Failed indexes: a failed pod at its index's limit (or matching FailIndex) fails it; the
    last failed pod of an index still running holds its finalizer until replaced."""
    job = state.job
    failed = parse_intervals(state.status.get("failedIndexes"), completions)
    policy = job["spec"].get("podFailurePolicy")
    for pod in state.pods:
        index = completion_index(pod)
        if index == UNKNOWN or index >= completions or not is_pod_failed(pod, job):
            continue
        match = match_pod_failure_policy(policy, pod)
        if match.action == FAIL_INDEX or (match.count and index_failure_count(pod) >= limit):
            failed.add(index)
        elif index not in failed and has_tracking_finalizer(pod):
            replaced = any(
                completion_index(p) == index and p is not pod and not is_pod_failed(p, job)
                for p in state.pods
            )
            if not replaced:
                state.delayed_per_index[index] = pod
    state.failed_indexes = failed - state.succeeded_indexes


async def sync_job(ctx: JobContext, state: JobSyncState, satisfied: bool) -> None:
    job, spec = state.job, state.job["spec"]
    status, now = state.status, ctx.clock.now()
    if not spec.get("suspend") and status.get("startTime") is None:
        status["startTime"] = format_rfc3339(now)
    new_succeeded, new_failed = _new_finished(state)
    policy = spec.get("podFailurePolicy")
    counted_failed = [p for p in new_failed if match_pod_failure_policy(policy, p).count]
    state.succeeded = int(status.get("succeeded") or 0) + len(state.uncounted_succeeded) + len(new_succeeded)
    state.failed = int(status.get("failed") or 0) + len(state.uncounted_failed) + len(counted_failed)
    state.backoff = ctx.backoff.get(state.key).next(len(counted_failed), len(new_succeeded), now)
    if (target := find_condition(job, FAILURE_TARGET)) is not None:
        state.finished_condition = new_condition(FAILURE_TARGET, target["reason"], target["message"], now)
    elif (met := find_condition(job, SUCCESS_CRITERIA_MET)) is not None:
        state.finished_condition = new_condition(SUCCESS_CRITERIA_MET, met["reason"], met["message"], now)
    else:
        state.finished_condition = _failure_condition(ctx, state, new_failed)
    if is_indexed(job):
        _indexed_counts(ctx, state)
    active, error = len(state.active), None
    suspend_changed = False
    if state.finished_condition is not None:
        deleted, error = await _delete_active(ctx, state)
        if deleted != active or not satisfied:
            state.finished_condition = None
        active -= deleted
    else:
        managed = satisfied and not job["metadata"].get("deletionTimestamp")
        if managed:
            active, error = await manage_job(ctx, state)
        completions = spec.get("completions")
        done = state.succeeded > 0 if completions is None else state.succeeded >= int(completions)
        if done and active == 0:
            state.finished_condition = new_condition(SUCCESS_CRITERIA_MET, *COMPLETIONS_REACHED, now)
        elif managed:
            suspend_changed = _suspend_condition(ctx, state)
    needs = suspend_changed or active != status.get("active", 0) or state.ready != status.get("ready")
    needs = needs or state.terminating != status.get("terminating")
    status["active"], status["ready"], status["terminating"] = active, state.ready, state.terminating
    if not status["active"]:
        status.pop("active")
    await track_status(ctx, state, needs)
    if error is not None:
        raise error


async def _delete_active(ctx: JobContext, state: JobSyncState) -> tuple[int, Exception | None]:
    """A finished Job's active pods are deleted keeping their finalizers: they are counted as
    failed when the pod cache shows them terminating."""
    handle_deleted, first = 0, None
    for pod in state.active:
        try:
            await ctx.pod_control.delete_pod(
                state.job["metadata"]["namespace"], pod["metadata"]["name"], state.job
            )
        except Exception as err:
            if getattr(err, "code", None) != 404:
                first = first or err
                continue
        handle_deleted += 1
        state.terminating += 1
    return handle_deleted, first


def _suspend_condition(ctx: JobContext, state: JobSyncState) -> bool:
    job, now = state.job, ctx.clock.now()
    if job["spec"].get("suspend"):
        if ensure_condition(job, SUSPENDED, "True", "JobSuspended", "Job suspended", now):
            ctx.recorder.event(job, "Normal", "Suspended", "Job suspended")
            return True
        return False
    if ensure_condition(job, SUSPENDED, "False", "JobResumed", "Job resumed", now):
        ctx.recorder.event(job, "Normal", "Resumed", "Job resumed")
        state.status["startTime"] = format_rfc3339(now)  # the deadline counts from the resume
        return True
    return False


__all__ = ["delete_job_pods", "sync_job"]

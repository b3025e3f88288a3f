"""Finalizer-based pod tracking (upstream's ``trackJobStatusAndRemoveFinalizers``).

Every pod a Job creates carries ``batch.kubernetes.io/job-tracking``, so it cannot vanish
before it is counted. A sync:
1. puts newly finished pods' UIDs into ``status.uncountedTerminatedPods`` (an Indexed Job's
   succeeded indexes straight into ``completedIndexes``) and writes the status;
2. removes their finalizers;
3. moves each UID whose finalizer is gone from the uncounted lists into ``succeeded`` or
   ``failed``;
4. once nothing is uncounted nor terminating, turns the interim ``FailureTarget`` or
   ``SuccessCriteriaMet`` condition into ``Failed`` or ``Complete``, with its Event.
At most ``MAX_UNCOUNTED_PODS`` pods per sync, so status stays small and a big Job does not
starve others (the status write requeues it).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from typing import Any

from controllers.job.conditions import (
    COMPLETE,
    FAILED,
    FAILURE_TARGET,
    SUCCESS_CRITERIA_MET,
    ensure_condition,
    find_condition,
    new_condition,
)
from controllers.job.context import JobContext, JobSyncState
from controllers.job.indexes import UNKNOWN, completion_index, format_intervals, is_indexed
from controllers.job.jobpods import (
    REMOVE_FINALIZER_PATCH,
    SUCCEEDED,
    has_tracking_finalizer,
    is_pod_failed,
    phase,
)
from controllers.job.policies import match_pod_failure_policy
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import STRATEGIC_MERGE_PATCH
from minikube_py.client.resourcetypes import JOBS, PODS

MAX_UNCOUNTED_PODS = 500


def _can_remove_finalizer(state: JobSyncState, pod: Object, failed: bool) -> bool:
    job = state.job
    if job["metadata"].get("deletionTimestamp") or state.finished_condition is not None:
        return True
    if phase(pod) == SUCCEEDED:
        return True
    if not failed:
        return False
    delayed = state.delayed_per_index.get(completion_index(pod))
    return delayed is None or delayed["metadata"].get("uid") != pod["metadata"].get("uid")


async def track_status(ctx: JobContext, state: JobSyncState, needs_flush: bool) -> None:
    """Count finished pods, remove their finalizers, finish the Job when it may; write status."""
    job, status = state.job, state.status
    uncounted = status.setdefault("uncountedTerminatedPods", {})
    uncounted.setdefault("succeeded", [])
    uncounted.setdefault("failed", [])
    with_finalizer = {
        p["metadata"]["uid"]
        for p in state.pods
        if has_tracking_finalizer(p) and p["metadata"]["uid"] not in state.expected_removed
    }
    needs_flush = _count_removed(status, with_finalizer) or needs_flush
    indexed = is_indexed(job)
    completions = int(job["spec"].get("completions") or 0)
    pods = sorted(state.pods, key=completion_index) if indexed else state.pods
    to_remove: list[Object] = []
    new_indexes: list[int] = []
    policy = job["spec"].get("podFailurePolicy")
    judged_failed = (
        state.finished_condition is not None and state.finished_condition["type"] != SUCCESS_CRITERIA_MET
    )
    for pod in pods:
        uid = pod["metadata"]["uid"]
        if not has_tracking_finalizer(pod) or uid in state.expected_removed:
            continue
        failed = is_pod_failed(pod, job)
        if not _can_remove_finalizer(state, pod, failed):
            continue
        to_remove.append(pod)
        index = completion_index(pod)
        if phase(pod) == SUCCEEDED and uid not in state.uncounted_failed:
            if indexed:
                if index != UNKNOWN and index < completions and index not in state.prev_succeeded_indexes:
                    new_indexes.append(index)
                    needs_flush = True
            elif uid not in state.uncounted_succeeded:
                uncounted["succeeded"].append(uid)
                needs_flush = True
        elif (failed or judged_failed) and uid not in state.uncounted_failed:
            valid = not indexed or (index != UNKNOWN and index < completions)
            if valid and match_pod_failure_policy(policy, pod).count:
                uncounted["failed"].append(uid)
                needs_flush = True
        if len(new_indexes) + len(uncounted["succeeded"]) + len(uncounted["failed"]) >= MAX_UNCOUNTED_PODS:
            break
    capped = len(new_indexes) + len(uncounted["succeeded"]) + len(uncounted["failed"]) >= MAX_UNCOUNTED_PODS
    if indexed:
        needs_flush = _write_indexes(state, new_indexes) or needs_flush
    needs_flush = _interim_condition(ctx, state) or needs_flush
    if needs_flush:
        await _update_status(ctx, state)
        ctx.backoff.set(state.key, state.backoff)
        needs_flush = False
    error = await _remove_finalizers(ctx, state, to_remove, with_finalizer)
    needs_flush = _count_removed(state.status, with_finalizer) or needs_flush
    finished = not capped and error is None and _enact_finished(ctx, state)
    if needs_flush or finished:
        await _update_status(ctx, state)
    if finished:
        _record_finished(ctx, state)
    if error is not None:
        raise error


def _count_removed(status: dict[str, Any], with_finalizer: set[str]) -> bool:
    """Move UIDs whose finalizer is gone from the uncounted lists into the counters."""
    uncounted = status.get("uncountedTerminatedPods") or {}
    changed = False
    for field, counter in (("succeeded", "succeeded"), ("failed", "failed")):
        uids = list(uncounted.get(field) or [])
        kept = [u for u in uids if u in with_finalizer]
        if len(kept) != len(uids):
            status[counter] = int(status.get(counter) or 0) + len(uids) - len(kept)
            uncounted[field] = kept
            changed = True
    return changed


def _write_indexes(state: JobSyncState, new_indexes: Sequence[int]) -> bool:
    status = state.status
    state.succeeded_indexes |= set(new_indexes)
    text = format_intervals(state.succeeded_indexes)
    changed = text != (status.get("completedIndexes") or "")
    status["succeeded"] = len(state.succeeded_indexes)
    status["completedIndexes"] = text
    failed = None if state.failed_indexes is None else format_intervals(state.failed_indexes)
    if failed != status.get("failedIndexes"):
        changed = True
        if failed is None:
            status.pop("failedIndexes", None)
        else:
            status["failedIndexes"] = failed
    return changed


def _interim_condition(ctx: JobContext, state: JobSyncState) -> bool:
    """Write FailureTarget or SuccessCriteriaMet first; the sync finishes with Failed or Complete."""
    condition, now = state.finished_condition, ctx.clock.now()
    if condition is None:
        return False
    changed = False
    if condition["type"] == FAILURE_TARGET:
        if find_condition(state.job, FAILURE_TARGET) is None:
            state.status.setdefault("conditions", []).append(condition)
            changed = True
        state.finished_condition = new_condition(FAILED, condition["reason"], condition["message"], now)
    elif condition["type"] == SUCCESS_CRITERIA_MET:
        if find_condition(state.job, SUCCESS_CRITERIA_MET) is None:
            state.status.setdefault("conditions", []).append(condition)
            changed = True
        state.finished_condition = new_condition(COMPLETE, condition["reason"], condition["message"], now)
    return changed


async def _remove_finalizers(
    ctx: JobContext, state: JobSyncState, pods: Sequence[Object], with_finalizer: set[str]
) -> Exception | None:
    if not pods:
        return None
    ctx.finalizers.expect_removed(state.key, [p["metadata"]["uid"] for p in pods])
    handle = ctx.client.resource(PODS, state.job["metadata"]["namespace"])

    async def remove(pod: Object) -> None:
        uid = pod["metadata"]["uid"]
        try:
            await handle.patch(
                pod["metadata"]["name"], REMOVE_FINALIZER_PATCH, patch_type=STRATEGIC_MERGE_PATCH
            )
        except ApiError as err:
            ctx.finalizers.removal_observed(state.key, uid)
            if err.code != 404:
                raise
        with_finalizer.discard(uid)

    results = await asyncio.gather(*(remove(p) for p in pods), return_exceptions=True)
    for result in results:
        if isinstance(result, Exception):
            return result
        if isinstance(result, BaseException):
            raise result
    return None


def _enact_finished(ctx: JobContext, state: JobSyncState) -> bool:
    condition = state.finished_condition
    if condition is None:
        return False
    uncounted = state.status.get("uncountedTerminatedPods") or {}
    if uncounted.get("succeeded") or uncounted.get("failed") or state.terminating > 0:
        return False
    now = ctx.clock.now()
    ensure_condition(state.job, condition["type"], "True", condition["reason"], condition["message"], now)
    if condition["type"] == COMPLETE:
        stamp = next(c for c in state.status["conditions"] if c["type"] == COMPLETE)["lastTransitionTime"]
        state.status["completionTime"] = stamp
    return True


def _record_finished(ctx: JobContext, state: JobSyncState) -> None:
    job, condition = state.job, state.finished_condition or {}
    if condition.get("type") == COMPLETE:
        completions = job["spec"].get("completions")
        if completions is not None and int(state.status.get("succeeded") or 0) > int(completions):
            ctx.recorder.event(
                job,
                "Warning",
                "TooManySucceededPods",
                "Too many succeeded pods running after completion count reached",
            )
        ctx.recorder.event(job, "Normal", "Completed", "Job completed")
    else:
        ctx.recorder.event(job, "Warning", condition.get("reason", ""), condition.get("message", ""))


async def _update_status(ctx: JobContext, state: JobSyncState) -> None:
    """PUT /status from the cached copy (a stale cache gives a Conflict: the sync is retried)."""
    body = copy.deepcopy(state.job)
    uncounted = body["status"].get("uncountedTerminatedPods") or {}
    body["status"]["uncountedTerminatedPods"] = {k: v for k, v in uncounted.items() if v}
    for key in ("succeeded", "failed", "conditions"):
        if not body["status"].get(key):
            body["status"].pop(key, None)
    handle = ctx.client.resource(JOBS, state.job["metadata"]["namespace"])
    updated = await handle.update_status(body)
    state.job["metadata"]["resourceVersion"] = updated["metadata"]["resourceVersion"]


def start_time(job: Object) -> float | None:
    return parse_rfc3339((job.get("status") or {}).get("startTime"))

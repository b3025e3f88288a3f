"""``manage_job``: create or delete pods so a Job runs what it still needs (upstream's
``manageJob``). Suspended Jobs lose every active pod; otherwise the wanted count is
``min(parallelism, completions - succeeded)`` (or ``parallelism`` until the first success of a
work-queue Job). Deletions take precedence over creations in one sync; creations wait out the
failure backoff, go in slow-start batches of 1, 2, 4, ... and at most 500 per sync, and an
Indexed Job creates the lowest pending indexes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from controllers.job.context import JobContext, JobSyncState
from controllers.job.indexes import (
    UNKNOWN,
    completion_index,
    first_pending_indexes,
    index_failure_count,
    is_indexed,
)
from controllers.job.jobpods import (
    REMOVE_FINALIZER_PATCH,
    generate_name,
    has_tracking_finalizer,
    is_pod_failed,
    only_replace_failed,
    pod_template,
)
from controllers.job.policies import match_pod_failure_policy
from controllers.podcontrol.control import namespace_terminating, slow_start_batch
from controllers.podcontrol.pods import is_pod_ready
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import STRATEGIC_MERGE_PATCH
from minikube_py.client.resourcetypes import PODS

MAX_POD_CREATE_DELETE_PER_SYNC = 500
SLOW_START_INITIAL_BATCH_SIZE = 1


def wanted_active(state: JobSyncState) -> int:
    spec = state.job["spec"]
    parallelism = int(spec.get("parallelism") or 0)
    if spec.get("completions") is None:
        return len(state.active) if state.succeeded > 0 else parallelism
    return max(min(int(spec["completions"]) - state.succeeded, parallelism), 0)


async def manage_job(ctx: JobContext, state: JobSyncState) -> tuple[int, Exception | None]:
    """The number of active pods after this sync's writes, and its first write error."""
    job, active = state.job, len(state.active)
    if job["spec"].get("suspend"):
        deleted, error = await delete_job_pods(ctx, state, pods_for_removal(state, active))
        return active - deleted, error
    want = wanted_active(state)
    victims = pods_for_removal(state, max(active - want, 0))[:MAX_POD_CREATE_DELETE_PER_SYNC]
    if victims:
        deleted, error = await delete_job_pods(ctx, state, victims)
        return active - deleted, error
    terminating = state.terminating if only_replace_failed(job) else 0
    diff = want - terminating - active
    if diff <= 0:
        return active, None
    if job["spec"].get("backoffLimitPerIndex") is None:
        remaining = state.backoff.remaining(ctx.clock.now())
        if remaining > 0:
            ctx.requeue_after(state.key, remaining)
            return active, None
    diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
    indexes: list[int | None] = [None] * diff
    if is_indexed(job):
        indexes = list(_pending_indexes(state, diff))
    created, error = await _create(ctx, state, indexes)
    return active + created, error


def _pending_indexes(state: JobSyncState, count: int) -> list[int]:
    completions = int(state.job["spec"].get("completions") or 0)
    running = {completion_index(p) for p in state.active}
    failed = state.failed_indexes or set()
    return first_pending_indexes(completions, count, state.succeeded_indexes, running, failed)


def _failure_counts(state: JobSyncState) -> dict[int, int]:
    """Per index, the failure count the next pod of it carries (``backoffLimitPerIndex``)."""
    counts: dict[int, int] = {}
    policy = state.job["spec"].get("podFailurePolicy")
    for pod in state.pods:
        index = completion_index(pod)
        if index == UNKNOWN or not is_pod_failed(pod, state.job):
            continue
        counted = match_pod_failure_policy(policy, pod).count
        counts[index] = max(counts.get(index, 0), index_failure_count(pod) + (1 if counted else 0))
    return counts


async def _create(
    ctx: JobContext, state: JobSyncState, indexes: Sequence[int | None]
) -> tuple[int, Exception | None]:
    job, key = state.job, state.key
    namespace = job["metadata"]["namespace"]
    ref = ctx.controller_ref(job)
    counts = _failure_counts(state) if job["spec"].get("backoffLimitPerIndex") is not None else {}
    pending = list(indexes)
    ctx.expectations.expect_creations(key, len(pending))

    async def create() -> None:
        index = pending.pop(0)
        template = pod_template(job, index, counts.get(index, 0) if index is not None else 0)
        try:
            await ctx.pod_control.create_pod(namespace, template, job, ref, generate_name(job, index))
        except ApiError as err:
            if err.code == 504 or err.reason == "Timeout":
                return  # created, but its initialization timed out: the informer will see it
            raise

    successes, error = await slow_start_batch(len(indexes), SLOW_START_INITIAL_BATCH_SIZE, create)
    for _ in range(len(indexes) - successes):
        ctx.expectations.creation_observed(key)
    if error is not None and namespace_terminating(error):
        error = None  # in a terminating namespace every create fails: nothing to retry (upstream)
    return successes, error


def pods_for_removal(state: JobSyncState, at_least: int) -> list[Object]:
    """Indexed: pods of invalid, repeated or succeeded indexes first; then ``at_least`` more,
    those least far along first (unscheduled, pending, not ready, newest)."""
    chosen: list[Object] = []
    rest = list(state.active)
    if is_indexed(state.job):
        completions = int(state.job["spec"].get("completions") or 0)
        seen: set[int] = set()
        keep: list[Object] = []
        for pod in sorted(
            rest, key=lambda p: (is_pod_ready(p), p["metadata"].get("creationTimestamp") or ""), reverse=True
        ):
            index = completion_index(pod)
            if index == UNKNOWN or index >= completions or index in seen or index in state.succeeded_indexes:
                chosen.append(pod)
            else:
                seen.add(index)
                keep.append(pod)
        rest = keep
    rest.sort(key=_removal_rank)
    chosen += rest[: max(at_least - len(chosen), 0)]
    return chosen


def _removal_rank(pod: Object) -> tuple[bool, int, bool, str]:
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(
        (pod.get("status") or {}).get("phase") or "Pending", 0
    )
    created = pod["metadata"].get("creationTimestamp") or ""
    newest_first = "".join(chr(0x10FFFF - ord(c)) for c in created)
    return bool(pod["spec"].get("nodeName")), phase_rank, is_pod_ready(pod), newest_first


async def delete_job_pods(
    ctx: JobContext, state: JobSyncState, pods: Sequence[Object]
) -> tuple[int, Exception | None]:
    """Remove the tracking finalizer (these pods are not counted), then delete: the number
    deleted and the first error. Each deletion is expected; a failed one is observed at once."""
    if not pods:
        return 0, None
    key, job = state.key, state.job
    ctx.expectations.expect_deletions(key, len(pods))
    handle = ctx.client.resource(PODS, job["metadata"]["namespace"])

    async def delete(pod: Object) -> None:
        name = pod["metadata"]["name"]
        try:
            if has_tracking_finalizer(pod):
                await handle.patch(name, REMOVE_FINALIZER_PATCH, patch_type=STRATEGIC_MERGE_PATCH)
            await ctx.pod_control.delete_pod(job["metadata"]["namespace"], name, job)
        except ApiError as err:
            ctx.expectations.deletion_observed(key)
            if err.code != 404:
                raise

    results = await asyncio.gather(*(delete(p) for p in pods), return_exceptions=True)
    errors = [r for r in results if isinstance(r, BaseException)]
    state.ready -= sum(1 for p, r in zip(pods, results, strict=True) if r is None and is_pod_ready(p))
    state.terminating += len(pods) - len(errors)
    first = next((e for e in errors if isinstance(e, Exception)), None)
    if errors and first is None:
        raise errors[0]
    return len(pods) - len(errors), first

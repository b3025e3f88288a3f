"""One sync of one CronJob (upstream's ``syncCronJob`` and ``cleanupFinishedJobs``): fold the
Jobs it owns into its status, then start the Job of the most recent unmet schedule time, as the
concurrency policy, the starting deadline and ``suspend`` allow.

Every function works on ``SyncState.cronjob``, a private copy, and sets ``update_status`` when
the status changed; the controller writes it once at the end, even when a step failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from controllers.cronjob import jobs as j
from controllers.cronjob.times import (
    UNSUPPORTED_SCHEDULE,
    InvalidScheduleError,
    format_rfc1123z,
    next_schedule_delay,
    next_schedule_time,
    parse_schedule,
    schedule_text,
    utc,
)
from controllers.podcontrol.control import namespace_terminating
from minikube_py.api.errors import ApiError
from minikube_py.api.field_errors import go_quote
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import format_rfc3339, parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.cron import CronParseError, Schedule, UnknownTimeZone, load_location
from minikube_py.events import Recorder

NORMAL, WARNING = "Normal", "Warning"
TOO_MANY_MISSED = (
    "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
)
FORBID_MESSAGE = "Not starting job because prior execution is running and concurrency policy is Forbid"


@dataclass(frozen=True, slots=True)
class SyncContext:
    """What a sync uses: the API, the recorder, the clock and the zone of schedules without one."""

    client: Client
    recorder: Recorder
    clock: Clock
    local_zone: tzinfo
    cronjobs: ResourceType
    jobs: ResourceType


@dataclass(slots=True)
class SyncState:
    cronjob: Object
    update_status: bool = False


async def cleanup_finished_jobs(ctx: SyncContext, state: SyncState, owned: list[Object]) -> None:
    """Delete the oldest finished Jobs beyond the successful and failed history limits."""
    spec = state.cronjob.get("spec") or {}
    for condition, key in (("Complete", "successfulJobsHistoryLimit"), ("Failed", "failedJobsHistoryLimit")):
        limit = spec.get(key)
        if limit is None:
            continue
        finished = [job for job in owned if j.finished_condition(job) == condition]
        for job in j.oldest_first(finished)[: max(0, len(finished) - int(limit))]:
            if await delete_job(ctx, state, job):
                state.update_status = True


async def delete_job(ctx: SyncContext, state: SyncState, job: Object) -> bool:
    """Delete a Job (its pods in the background) and drop it from the active list."""
    meta = job["metadata"]
    try:
        await ctx.client.resource(ctx.jobs, meta["namespace"]).delete(
            meta["name"], propagation_policy="Background"
        )
    except ApiError as err:
        ctx.recorder.event(state.cronjob, WARNING, "FailedDelete", f"Deleted job: {err}")
        return False
    j.delete_from_active_list(state.cronjob, meta.get("uid", ""))
    ctx.recorder.event(state.cronjob, NORMAL, "SuccessfulDelete", f"Deleted job {meta['name']}")
    return True


async def sync_cron_job(ctx: SyncContext, state: SyncState, owned: list[Object]) -> float | None:
    """Reconcile the status with ``owned``, then maybe start a Job; the seconds until the next
    sync should run (None: only a change to the CronJob or its Jobs needs one)."""
    now = utc(ctx.clock.now())
    await _observe_jobs(ctx, state, owned)
    await _forget_missing_jobs(ctx, state, {job["metadata"].get("uid") for job in owned})
    cronjob = state.cronjob
    if cronjob["metadata"].get("deletionTimestamp"):
        return None
    spec = cronjob.get("spec") or {}
    zone_name = spec.get("timeZone")
    if zone_name is not None:
        try:
            load_location(str(zone_name))
        except UnknownTimeZone as exc:
            ctx.recorder.event(
                cronjob, WARNING, "UnknownTimeZone", f"invalid timeZone: {go_quote(str(zone_name))}: {exc}"
            )
            return None
    if spec.get("suspend"):
        return None
    schedule = _schedule(ctx, cronjob)
    if schedule is None:
        return None
    try:
        scheduled, too_many = next_schedule_time(cronjob, now, schedule)
    except InvalidScheduleError as exc:
        message = f"invalid schedule: {spec.get('schedule')} : {exc}"
        ctx.recorder.event(cronjob, WARNING, "InvalidSchedule", message)
        return None
    if too_many:
        ctx.recorder.event(cronjob, WARNING, "TooManyMissedTimes", TOO_MANY_MISSED)
    if scheduled is None:  # nothing due: only after a restart or an early requeue
        return next_schedule_delay(cronjob, now, schedule)
    return await _start(ctx, state, now, schedule, scheduled)


def _schedule(ctx: SyncContext, cronjob: Object) -> Schedule | None:
    text, own_tz = schedule_text(cronjob)
    if own_tz:
        ctx.recorder.event(
            cronjob, WARNING, "UnsupportedSchedule", UNSUPPORTED_SCHEDULE.format(schedule=text)
        )
    try:
        return parse_schedule(cronjob, ctx.local_zone)
    except CronParseError as exc:
        message = f"unparseable schedule: {go_quote(str(cronjob['spec'].get('schedule')))} : {exc}"
        ctx.recorder.event(cronjob, WARNING, "UnparseableSchedule", message)
        return None


async def _start(
    ctx: SyncContext, state: SyncState, now: datetime, schedule: Schedule, scheduled: datetime
) -> float | None:
    """The scheduled time is due: within the deadline, not yet run, as the policy allows."""
    cronjob = state.cronjob
    spec, meta = cronjob.get("spec") or {}, cronjob["metadata"]
    deadline = spec.get("startingDeadlineSeconds")
    if deadline is not None and scheduled + timedelta(seconds=int(deadline)) < now:
        message = f"Missed scheduled time to start a job: {format_rfc1123z(scheduled)}"
        ctx.recorder.event(cronjob, WARNING, "MissSchedule", message)
        return next_schedule_delay(cronjob, now, schedule)
    last = parse_rfc3339((cronjob.get("status") or {}).get("lastScheduleTime"))
    name = j.job_name(cronjob, scheduled)
    if j.in_active_list_by_name(cronjob, meta.get("namespace", ""), name) or last == scheduled.timestamp():
        return next_schedule_delay(cronjob, now, schedule)  # this time was already run
    policy = spec.get("concurrencyPolicy")
    if policy == "Forbid" and j.active(cronjob):
        ctx.recorder.event(cronjob, NORMAL, "JobAlreadyActive", FORBID_MESSAGE)
        return next_schedule_delay(cronjob, now, schedule)
    if policy == "Replace":
        await _replace_active(ctx, state)
    job = await _create(ctx, state, scheduled)
    if job is None:
        return None
    cronjob.setdefault("status", {}).setdefault("active", []).append(j.job_reference(job))
    cronjob["status"]["lastScheduleTime"] = format_rfc3339(scheduled.timestamp())
    state.update_status = True
    return next_schedule_delay(cronjob, now, schedule)


async def _replace_active(ctx: SyncContext, state: SyncState) -> None:
    for ref in list(j.active(state.cronjob)):
        try:
            job = await ctx.client.resource(ctx.jobs, ref.get("namespace", "")).get(ref.get("name", ""))
        except ApiError as err:
            ctx.recorder.event(state.cronjob, WARNING, "FailedGet", f"Get job: {err}")
            raise
        if not await delete_job(ctx, state, job):
            raise RuntimeError(f"could not replace job {ref.get('namespace')}/{ref.get('name')}")
        state.update_status = True


async def _create(ctx: SyncContext, state: SyncState, scheduled: datetime) -> Object | None:
    """Create the Job of ``scheduled``; None when there is nothing to record (someone else's Job
    has the name, or it is ours and already listed). A Job that exists, ours and unlisted (a
    status write lost after the create), is listed again, without a second create."""
    cronjob = state.cronjob
    request = j.job_from_template(cronjob, scheduled, _zone(ctx, cronjob))
    jobs = ctx.client.resource(ctx.jobs, request["metadata"]["namespace"])
    try:
        created = await jobs.create(request)
    except ApiError as err:
        if namespace_terminating(err):
            raise
        if err.code != 409 or err.reason != "AlreadyExists":
            ctx.recorder.event(cronjob, WARNING, "FailedCreate", f"Error creating job: {err}")
            raise
        existing = await jobs.get(request["metadata"]["name"])
        if not j.is_controlled_by(existing, cronjob) or j.in_active_list(
            cronjob, existing["metadata"].get("uid", "")
        ):
            return None
        return existing
    ctx.recorder.event(cronjob, NORMAL, "SuccessfulCreate", f"Created job {created['metadata']['name']}")
    return created


def _zone(ctx: SyncContext, cronjob: Object) -> tzinfo:
    """The CronJob's zone (known: checked before), else the controller's."""
    name = (cronjob.get("spec") or {}).get("timeZone")
    return load_location(str(name)) if name is not None else ctx.local_zone


async def _observe_jobs(ctx: SyncContext, state: SyncState, owned: list[Object]) -> None:
    """Finished Jobs leave the active list (SawCompletedJob); succeeded ones move
    lastSuccessfulTime; a running Job missing from the list is reported (UnexpectedJob)."""
    for job in owned:
        cronjob = state.cronjob
        uid, condition = job["metadata"].get("uid", ""), j.finished_condition(job)
        listed = j.in_active_list(cronjob, uid)
        if not listed and condition is None:
            meta = cronjob["metadata"]
            fresh = await ctx.client.resource(ctx.cronjobs, meta.get("namespace")).get(meta["name"])
            if j.in_active_list(fresh, uid):
                state.cronjob = fresh  # our cache lagged our own status write
                continue
            message = f"Saw a job that the controller did not create or forgot: {job['metadata']['name']}"
            ctx.recorder.event(cronjob, WARNING, "UnexpectedJob", message)
            continue
        if condition is None:
            continue
        if listed:
            j.delete_from_active_list(cronjob, uid)
            message = f"Saw completed job: {job['metadata']['name']}, condition: {condition}"
            ctx.recorder.event(cronjob, NORMAL, "SawCompletedJob", message)
            state.update_status = True
        if condition == "Complete":
            _record_success(state, job)


def _record_success(state: SyncState, job: Object) -> None:
    status = state.cronjob.setdefault("status", {})
    completed = (job.get("status") or {}).get("completionTime")
    previous = parse_rfc3339(status.get("lastSuccessfulTime"))
    when = parse_rfc3339(completed)
    if completed is None:
        return
    if previous is None or (when is not None and when > previous):
        status["lastSuccessfulTime"] = completed
        state.update_status = True


async def _forget_missing_jobs(ctx: SyncContext, state: SyncState, seen: set[str | None]) -> None:
    """An active Job neither cached nor found by the API is gone (MissingJob)."""
    for ref in list(j.active(state.cronjob)):
        if ref.get("uid") in seen:
            continue
        try:
            await ctx.client.resource(ctx.jobs, ref.get("namespace", "")).get(ref.get("name", ""))
        except ApiError as err:
            if err.code != 404:
                raise
            ctx.recorder.event(
                state.cronjob, NORMAL, "MissingJob", f"Active job went missing: {ref.get('name')}"
            )
            j.delete_from_active_list(state.cronjob, ref.get("uid", ""))
            state.update_status = True

"""When a CronJob should have run (upstream's ``mostRecentScheduleTime``, ``nextScheduleTime``,
``nextScheduleTimeDuration``) and how its schedule is read (``formatSchedule``).

Times are aware datetimes in UTC; the controller's clock gives ``now``, so a fake clock drives
every decision and every requeue.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cron import Schedule, UnknownTimeZone, load_location, parse_standard

#: requeues aim this much past the next schedule time, for clock skew (upstream's 100 ms)
NEXT_SCHEDULE_DELTA = 0.1
#: more missed start times than this since the last schedule: warn, run only the latest
MANY_MISSED = 100
UNSUPPORTED_SCHEDULE = (
    "CRON_TZ or TZ used in schedule {schedule!r} is not officially supported, see "
    "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"
)


class Missed(enum.Enum):
    NONE = "none"
    FEW = "few"
    MANY = "many"


class InvalidScheduleError(ValueError):
    """A schedule that parses but never fires twice a second apart (``0 0 31 2 *``)."""


@dataclass(frozen=True, slots=True)
class RecentTimes:
    earliest: datetime
    most_recent: datetime | None
    missed: Missed


def utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def schedule_text(cronjob: Object) -> tuple[str, bool]:
    """``formatSchedule``: the schedule with the ``timeZone`` as a ``TZ=`` prefix, and whether
    the schedule carries its own (unsupported) ``TZ``; an unknown zone is left out."""
    spec = cronjob.get("spec") or {}
    schedule = str(spec.get("schedule") or "")
    if "TZ" in schedule:
        return schedule, True
    zone = spec.get("timeZone")
    if zone is not None:
        try:
            load_location(str(zone))
        except UnknownTimeZone:
            return schedule, False
        return f"TZ={zone} {schedule}", False
    return schedule, False


def parse_schedule(cronjob: Object, local_zone: tzinfo) -> Schedule:
    """The CronJob's schedule, read in its ``timeZone`` or else the controller's zone;
    raises ``CronParseError``."""
    return parse_standard(schedule_text(cronjob)[0], local_zone)


def most_recent_schedule_time(
    cronjob: Object, now: datetime, schedule: Schedule, with_deadline: bool
) -> RecentTimes:
    """The last schedule (or creation) time, the latest activation not after ``now`` since
    then (None if none), and how many were missed; ``InvalidScheduleError`` for a schedule whose
    two next activations are less than a second apart."""
    meta, spec, status = cronjob["metadata"], cronjob.get("spec") or {}, cronjob.get("status") or {}
    earliest = utc(parse_rfc3339(meta.get("creationTimestamp")) or 0.0)
    last = parse_rfc3339(status.get("lastScheduleTime"))
    if last is not None:
        earliest = utc(last)
    deadline = spec.get("startingDeadlineSeconds")
    if with_deadline and deadline is not None:
        earliest = max(earliest, now - timedelta(seconds=int(deadline)))
    t1 = schedule.next(earliest)
    if t1 is not None and now < t1:
        return RecentTimes(earliest, None, Missed.NONE)
    t2 = schedule.next(t1) if t1 is not None else None
    if t1 is not None and t2 is not None and now < t2:
        return RecentTimes(earliest, t1, Missed.NONE)
    between = round((t2 - t1).total_seconds()) if t1 is not None and t2 is not None else 0
    if t1 is None or between < 1:  # robfig's zero time for "never": 59 23 31 2 *
        raise InvalidScheduleError("time difference between two schedules is less than 1 second")
    # a rough count of the activations between t1 and now, then a walk over the last two of
    # them only, so a schedule missed for years costs no more than one missed once
    missed = int((now - t1).total_seconds()) // between + 1
    most_recent: datetime | None = None
    t = schedule.next(t1 + timedelta(seconds=(missed - 2) * between))
    while t is not None and t <= now:
        most_recent = t
        t = schedule.next(t)
    kind = Missed.MANY if missed > MANY_MISSED else Missed.FEW
    return RecentTimes(earliest, most_recent, kind)


def next_schedule_time(cronjob: Object, now: datetime, schedule: Schedule) -> tuple[datetime | None, bool]:
    """The unmet schedule time to run now (None: nothing due) and whether too many were missed."""
    recent = most_recent_schedule_time(cronjob, now, schedule, True)
    if recent.most_recent is None or recent.most_recent > now:
        return None, False
    return recent.most_recent, recent.missed is Missed.MANY


def next_schedule_delay(cronjob: Object, now: datetime, schedule: Schedule) -> float | None:
    """Seconds until just after the next activation (upstream's ``nextScheduleTimeDuration``);
    None when the schedule never fires again."""
    try:
        recent = most_recent_schedule_time(cronjob, now, schedule, False)
        base = recent.most_recent
        if base is None:
            base = recent.earliest if recent.missed is Missed.NONE else now
    except InvalidScheduleError:
        base = now  # still requeue, at the next slot from now
    following = schedule.next(base)
    if following is None:
        return None
    return (following - now).total_seconds() + NEXT_SCHEDULE_DELTA


def format_rfc1123z(t: datetime) -> str:
    """Go's ``time.RFC1123Z`` of a UTC time (``Mon, 02 Jan 2006 15:04:05 +0000``)."""
    return t.astimezone(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")


def format_rfc3339_in(t: datetime, zone: tzinfo) -> str:
    """Go's ``time.RFC3339`` of ``t`` in ``zone``: ``Z`` for UTC, else the numeric offset."""
    local = t.astimezone(zone)
    offset = local.utcoffset() or timedelta(0)
    if not offset:
        return local.strftime("%Y-%m-%dT%H:%M:%SZ")
    text = local.strftime("%Y-%m-%dT%H:%M:%S%z")
    return f"{text[:-2]}:{text[-2:]}"

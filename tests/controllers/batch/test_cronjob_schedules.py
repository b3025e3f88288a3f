"""The CronJob controller's reading of schedules: time zones (the Job's scheduled-timestamp
annotation in the CronJob's zone), the ``@`` macros and ``@every``, what it refuses (a stored
schedule or zone it cannot use) with upstream's events, the update handler's requeue at a new
schedule's next time, and a whole run on the fake clock: the requeue, not a timer, fires it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from controllers.cronjob.jobs import SCHEDULED_TIMESTAMP
from minikube_py.client.resourcetypes import CRONJOBS, JOBS
from tests.cache.helpers import background
from tests.controllers.batch.cronjob_harness import HOUR, TOP, CronJobHarness, cronjob, stamp
from tests.waiting import eventually


def minutes(epoch: float) -> int:
    return int(epoch) // 60


@pytest.mark.parametrize(
    ("schedule", "spec", "now", "scheduled", "annotation", "requeue"),
    [
        # 09:00 in Tokyo is 00:00 UTC; the annotation keeps Tokyo's offset
        (
            "0 9 * * *",
            {"timeZone": "Asia/Tokyo"},
            datetime(2026, 1, 2, 0, 0, 5, tzinfo=UTC).timestamp(),
            datetime(2026, 1, 2, 0, tzinfo=UTC).timestamp(),
            "2026-01-02T09:00:00+09:00",
            86395.1,
        ),
        # New York's 05:00 is 10:00 UTC in January
        ("0 5 * * *", {"timeZone": "America/New_York"}, TOP + 5, TOP, "2026-01-01T05:00:00-05:00", 86395.1),
        ("@hourly", {}, TOP + 5, TOP, "2026-01-01T10:00:00Z", 3595.1),
        ("@daily", {}, datetime(2026, 1, 2, 0, 0, 5, tzinfo=UTC).timestamp(), TOP + 14 * HOUR, None, 86395.1),
        (
            "@weekly",
            {},
            datetime(2026, 1, 4, 0, 0, 5, tzinfo=UTC).timestamp(),
            TOP + 62 * HOUR,
            None,
            604795.1,
        ),
        # @every counts from the CronJob's creation (09:00), as robfig's constant delay does
        ("@every 30m", {}, TOP - HOUR + 1800 + 5, TOP - HOUR + 1800, None, 1795.1),
        ("*/1 * * * *", {}, TOP + 5, TOP, None, 55.1),
    ],
)
async def test_zones_and_macros(
    schedule: str, spec: dict[str, Any], now: float, scheduled: float, annotation: str | None, requeue: float
) -> None:
    h = CronJobHarness(now)
    cj = cronjob(schedule, **spec)
    if schedule in ("@daily", "@weekly"):
        cj["metadata"]["creationTimestamp"] = stamp(now - 60)
    h.seed(CRONJOBS, cj)
    await h.sync()
    (job,) = h.created()
    assert job["metadata"]["name"] == f"hello-{minutes(scheduled)}"
    if annotation is not None:
        assert job["metadata"]["annotations"][SCHEDULED_TIMESTAMP] == annotation
    assert h.cronjob()["status"]["lastScheduleTime"] == stamp(scheduled)
    assert h.requeue_after() == requeue


async def test_without_a_time_zone_the_controllers_zone_reads_the_schedule() -> None:
    from zoneinfo import ZoneInfo

    h = CronJobHarness(TOP + 5)
    h.controller.context = h.controller.context.__class__(
        h.fake, h.recorder, h.clock, ZoneInfo("Europe/Paris"), CRONJOBS, JOBS
    )
    h.seed(CRONJOBS, cronjob("0 11 * * *"))  # 11:00 in Paris is 10:00 UTC
    await h.sync()
    assert [j["metadata"]["name"] for j in h.created()] == [f"hello-{minutes(TOP)}"]


@pytest.mark.parametrize(
    ("schedule", "spec", "event"),
    [
        (
            "0 * * * *",
            {"timeZone": "Mars/Olympus_Mons"},
            'Warning UnknownTimeZone invalid timeZone: "Mars/Olympus_Mons": '
            "unknown time zone Mars/Olympus_Mons",
        ),
        (
            "0 * * * * *",
            {},
            'Warning UnparseableSchedule unparseable schedule: "0 * * * * *" : '
            "expected exactly 5 fields, found 6: [0 * * * * *]",
        ),
        (
            "59 23 31 2 *",
            {},
            "Warning InvalidSchedule invalid schedule: 59 23 31 2 * : "
            "time difference between two schedules is less than 1 second",
        ),
    ],
)
async def test_a_stored_schedule_the_controller_cannot_use_is_an_event_and_no_requeue(
    schedule: str, spec: dict[str, Any], event: str
) -> None:
    """Validation refuses these now; older objects, or zones gone from the database, remain."""
    h = CronJobHarness(TOP + 5)
    h.seed(CRONJOBS, cronjob(schedule, **spec))
    await h.sync()
    assert h.recorder.events == [event]
    assert h.created() == [] and h.requeue_after() is None


async def test_a_tz_in_the_schedule_is_warned_about_and_still_used() -> None:
    h = CronJobHarness(TOP + 5)
    h.seed(CRONJOBS, cronjob("TZ=Asia/Tokyo 0 19 * * *"))  # 19:00 Tokyo = 10:00 UTC
    await h.sync()
    assert h.recorder.events[0] == (
        "Warning UnsupportedSchedule CRON_TZ or TZ used in schedule 'TZ=Asia/Tokyo 0 19 * * *' is not "
        "officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ "
        "for more details"
    )
    assert [j["metadata"]["name"] for j in h.created()] == [f"hello-{minutes(TOP)}"]


async def test_a_deleted_cronjob_starts_nothing() -> None:
    h = CronJobHarness(TOP + 5)
    cj = cronjob()
    cj["metadata"]["deletionTimestamp"] = stamp(TOP)
    h.seed(CRONJOBS, cj)
    await h.sync()
    assert h.created() == [] and h.requeue_after() is None


async def test_a_new_schedule_requeues_at_its_next_time_and_a_bad_one_is_an_event() -> None:
    h = CronJobHarness(TOP + 5)
    old = cronjob()
    new = cronjob("30 10 * * *")
    h.controller._update_cronjob(old, new)
    assert h.requeue_after() == 1795.1
    broken = cronjob("every day")
    h.controller._update_cronjob(new, broken)
    assert h.recorder.events == [
        "Warning UnParseableCronJobSchedule unparseable schedule for cronjob: every day"
    ]
    suspended = cronjob(suspend=True)
    h.controller._update_cronjob(old, suspended)  # any other change: sync now
    assert len(h.controller.queue) == 1


async def test_a_run_on_the_fake_clock_fires_at_each_minute() -> None:
    """The controller runs (informers, workers); only stepping its clock makes Jobs."""
    h = CronJobHarness(TOP - 10)
    h.fake.seed(CRONJOBS, cronjob("*/1 * * * *", created=TOP - 30))  # the informer lists it

    async def main() -> None:
        async with asyncio.TaskGroup() as tasks:
            h.factory.start(tasks)
            await h.factory.wait_for_cache_sync()  # else run() polls for it on the fake clock
            await h.controller.run(1)

    async with background(main()):
        await eventually(lambda: h.requeue_after() == 10.1, "the requeue for 10:00")
        assert h.created() == []
        await h.clock.step(11)
        await eventually(lambda: len(h.created()) == 1, "the 10:00 Job")
        await eventually(lambda: h.requeue_after() == 59.1, "the requeue for 10:01")
        await h.clock.step(60)
        await eventually(lambda: len(h.created()) == 2, "the 10:01 Job")
    names = [j["metadata"]["name"] for j in h.created()]
    assert names == [f"hello-{minutes(TOP)}", f"hello-{minutes(TOP + 60)}"]
    status = h.cronjob()["status"]
    assert [r["name"] for r in status["active"]] == names

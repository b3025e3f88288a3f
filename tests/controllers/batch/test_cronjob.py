"""``CronJobController.sync`` table-driven, after upstream's TestControllerV2SyncCronJob: an
hourly CronJob seen just before and just after the hour, having run before or not, with a Job
still active or not, for each concurrency policy, suspended, with a starting deadline, after many
missed hours; then the history limits, the status bookkeeping, time zones and macros, and the
schedules the controller cannot use. Fake client, hand-seeded caches, fake clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from controllers.cronjob.jobs import SCHEDULED_TIMESTAMP
from minikube_py.client.resourcetypes import CRONJOBS, JOBS
from tests.controllers.batch.cronjob_harness import HOUR, TOP, CronJobHarness, cronjob, job_of, ref, stamp

JUST_BEFORE = TOP - 1
JUST_AFTER = TOP + 1
NEXT_HOUR_FROM_JUST_AFTER = 3599.1  # to 11:00:00 plus upstream's 100 ms
MISSED_MESSAGE = (
    "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
)


@dataclass
class Case:
    name: str
    now: float
    spec: dict[str, Any] = field(default_factory=dict)
    ran_previously: bool = False  # lastScheduleTime an hour before TOP
    still_active: bool = False  # that run's Job active and running
    created_at: float = TOP - HOUR + 1  # CronJob creation: just after the prior hour
    expect_create: bool = False
    expect_delete: bool = False
    reasons: list[str] = field(default_factory=list)
    requeue: float | None = None
    active: int = 0


CASES = [
    # never ran
    Case("never ran, not time, A", JUST_BEFORE, requeue=1.1),
    Case("never ran, not time, F", JUST_BEFORE, {"concurrencyPolicy": "Forbid"}, requeue=1.1),
    Case("never ran, not time, R", JUST_BEFORE, {"concurrencyPolicy": "Replace"}, requeue=1.1),
    Case("never ran, not time, suspended", JUST_BEFORE, {"suspend": True}),
    Case(
        "never ran, is time, A",
        JUST_AFTER,
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "never ran, is time, F",
        JUST_AFTER,
        {"concurrencyPolicy": "Forbid"},
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "never ran, is time, R",
        JUST_AFTER,
        {"concurrencyPolicy": "Replace"},
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case("never ran, is time, suspended", JUST_AFTER, {"suspend": True}),
    Case(
        "never ran, is time, within deadline",
        JUST_AFTER,
        {"startingDeadlineSeconds": 10},
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "never ran, is time, past deadline",
        TOP + 30,
        {"startingDeadlineSeconds": 10},
        requeue=3570.1,  # nothing to start: the hour began 30 s ago, 20 s past the deadline
    ),
    # ran an hour ago, that Job finished
    Case("prev ran but done, not time, A", JUST_BEFORE, ran_previously=True, requeue=1.1),
    Case(
        "prev ran but done, is time, A",
        JUST_AFTER,
        ran_previously=True,
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "prev ran but done, is time, F",
        JUST_AFTER,
        {"concurrencyPolicy": "Forbid"},
        ran_previously=True,
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case("prev ran but done, is time, suspended", JUST_AFTER, {"suspend": True}, ran_previously=True),
    # ran an hour ago, that Job still running
    Case(
        "still active, not time, A",
        JUST_BEFORE,
        ran_previously=True,
        still_active=True,
        requeue=1.1,
        active=1,
    ),
    Case(
        "still active, is time, A",
        JUST_AFTER,
        ran_previously=True,
        still_active=True,
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=2,
    ),
    Case(
        "still active, is time, F",
        JUST_AFTER,
        {"concurrencyPolicy": "Forbid"},
        ran_previously=True,
        still_active=True,
        reasons=["JobAlreadyActive"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "still active, is time, R",
        JUST_AFTER,
        {"concurrencyPolicy": "Replace"},
        ran_previously=True,
        still_active=True,
        expect_create=True,
        expect_delete=True,
        reasons=["SuccessfulDelete", "SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "still active, is time, suspended",
        JUST_AFTER,
        {"suspend": True},
        ran_previously=True,
        still_active=True,
        active=1,
    ),
    # missed many hours
    Case(
        "never ran, 200 hours missed: warn, run the latest",
        JUST_AFTER,
        created_at=TOP - 200 * HOUR - 1,
        expect_create=True,
        reasons=["TooManyMissedTimes", "SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "never ran, 200 hours missed, a deadline bounds the search",
        JUST_AFTER,
        {"startingDeadlineSeconds": 200},
        created_at=TOP - 200 * HOUR - 1,
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
    Case(
        "never ran, 3 hours missed: run the latest only",
        JUST_AFTER,
        created_at=TOP - 3 * HOUR - 1,
        expect_create=True,
        reasons=["SuccessfulCreate"],
        requeue=NEXT_HOUR_FROM_JUST_AFTER,
        active=1,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_sync(case: Case) -> None:
    h = CronJobHarness(case.now)
    cj = cronjob(created=case.created_at, **case.spec)
    previous = job_of(cj, TOP - HOUR, started=TOP - HOUR)
    if case.ran_previously:
        cj["status"]["lastScheduleTime"] = stamp(TOP - HOUR)
        if case.still_active:
            cj["status"]["active"] = [ref(previous)]
            h.seed(JOBS, previous)
        else:
            h.seed(JOBS, job_of(cj, TOP - HOUR, started=TOP - HOUR, finished="Complete"))
    h.seed(CRONJOBS, cj)

    await h.sync()

    assert h.reasons() == case.reasons, h.recorder.events
    assert [j["metadata"]["name"] for j in h.created()] == (["hello-29454360"] if case.expect_create else [])
    assert h.deleted() == ([previous["metadata"]["name"]] if case.expect_delete else [])
    assert h.requeue_after() == case.requeue
    status = h.cronjob()["status"]
    assert len(status.get("active") or []) == case.active
    if case.expect_create:
        assert status["lastScheduleTime"] == "2026-01-01T10:00:00Z"
        assert status["active"][-1]["name"] == "hello-29454360"


async def test_the_job_is_made_from_the_template_named_and_owned() -> None:
    h = CronJobHarness(JUST_AFTER)
    h.seed(CRONJOBS, cronjob())
    await h.sync()
    (job,) = h.created()
    assert job["metadata"] == {
        "name": "hello-29454360",  # minutes since the epoch of 10:00
        "namespace": "default",
        "labels": {"app": "hello"},
        "annotations": {"team": "a", SCHEDULED_TIMESTAMP: "2026-01-01T10:00:00Z"},
        "ownerReferences": [
            {
                "apiVersion": "batch/v1",
                "kind": "CronJob",
                "name": "hello",
                "uid": "uid-hello",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    assert job["spec"] == cronjob()["spec"]["jobTemplate"]["spec"]
    assert h.recorder.events == ["Normal SuccessfulCreate Created job hello-29454360"]
    active = h.cronjob()["status"]["active"][0]
    stored = h.jobs()["hello-29454360"]["metadata"]
    assert active == {
        "kind": "Job",
        "namespace": "default",
        "name": "hello-29454360",
        "uid": stored["uid"],
        "apiVersion": "batch/v1",
        "resourceVersion": stored["resourceVersion"],
    }


async def test_a_run_already_recorded_is_not_started_again() -> None:
    h = CronJobHarness(JUST_AFTER)
    cj = cronjob()
    cj["status"]["lastScheduleTime"] = stamp(TOP)
    h.seed(CRONJOBS, cj)
    await h.sync()
    assert h.created() == [] and h.recorder.events == []
    assert h.requeue_after() == NEXT_HOUR_FROM_JUST_AFTER


async def test_a_job_created_but_not_recorded_is_recorded_without_a_second_create() -> None:
    """The controller created the Job, then lost the status write (a crash, a conflict)."""
    h = CronJobHarness(JUST_AFTER)
    cj = h.seed(CRONJOBS, cronjob())
    existing = job_of(cj, TOP)
    h.fake.seed(JOBS, existing)  # in the API, not yet in the cache
    await h.sync()
    assert h.reasons() == []  # no SuccessfulCreate: it was not created now
    assert [r["name"] for r in h.cronjob()["status"]["active"]] == ["hello-29454360"]
    assert h.cronjob()["status"]["lastScheduleTime"] == "2026-01-01T10:00:00Z"


async def test_a_job_of_that_name_owned_by_someone_else_is_left_alone() -> None:
    h = CronJobHarness(JUST_AFTER)
    cj = h.seed(CRONJOBS, cronjob())
    foreign = job_of(cj, TOP)
    foreign["metadata"]["ownerReferences"][0]["uid"] = "uid-other"
    h.fake.seed(JOBS, foreign)
    await h.sync()
    assert h.fake.filter_actions("update", "cronjobs") == []
    assert h.requeue_after() is None


async def test_finished_jobs_leave_the_active_list_and_success_is_recorded() -> None:
    h = CronJobHarness(JUST_BEFORE)
    cj = cronjob()
    done = job_of(cj, TOP - 2 * HOUR, started=TOP - 2 * HOUR, finished="Complete")
    failed = job_of(cj, TOP - HOUR, started=TOP - HOUR, finished="Failed")
    cj["status"] = {"active": [ref(done), ref(failed)], "lastScheduleTime": stamp(TOP - HOUR)}
    h.seed(CRONJOBS, cj)
    h.seed(JOBS, done)
    h.seed(JOBS, failed)
    await h.sync()
    assert h.recorder.events == [
        "Normal SawCompletedJob Saw completed job: hello-29454240, condition: Complete",
        "Normal SawCompletedJob Saw completed job: hello-29454300, condition: Failed",
    ]
    status = h.cronjob()["status"]
    assert "active" not in status  # omitted when empty, as upstream's JSON
    assert status["lastSuccessfulTime"] == stamp(TOP - 2 * HOUR + 30)


async def test_an_active_job_gone_from_the_api_is_dropped() -> None:
    h = CronJobHarness(JUST_BEFORE)
    cj = cronjob()
    cj["status"] = {"active": [ref(job_of(cj, TOP - HOUR))], "lastScheduleTime": stamp(TOP - HOUR)}
    h.seed(CRONJOBS, cj)
    await h.sync()
    assert h.recorder.events == ["Normal MissingJob Active job went missing: hello-29454300"]
    assert "active" not in h.cronjob()["status"]


async def test_an_active_job_only_the_cache_misses_is_kept() -> None:
    h = CronJobHarness(JUST_BEFORE)
    cj = cronjob()
    running = job_of(cj, TOP - HOUR)
    cj["status"] = {"active": [ref(running)], "lastScheduleTime": stamp(TOP - HOUR)}
    h.seed(CRONJOBS, cj)
    h.fake.seed(JOBS, running)  # the watch has not brought it yet
    await h.sync()
    assert h.recorder.events == [] and h.fake.filter_actions("update", "cronjobs") == []


async def test_a_running_job_the_status_does_not_list_is_reported() -> None:
    h = CronJobHarness(JUST_BEFORE)
    cj = h.seed(CRONJOBS, cronjob())
    h.seed(JOBS, job_of(cj, TOP - HOUR))
    await h.sync()
    assert h.recorder.events == [
        "Warning UnexpectedJob Saw a job that the controller did not create or forgot: hello-29454300"
    ]


@pytest.mark.parametrize(
    ("limits", "deleted"),
    [
        ({}, [-5, -6, -3]),  # the defaults keep 3 successful and 1 failed: the oldest go
        # every finished Job, successful ones first, each oldest start first
        ({"successfulJobsHistoryLimit": 0, "failedJobsHistoryLimit": 0}, [-5, -6, -4, -2, -7, -3, -1]),
        ({"successfulJobsHistoryLimit": 5, "failedJobsHistoryLimit": 3}, []),
        ({"successfulJobsHistoryLimit": None, "failedJobsHistoryLimit": None}, []),  # unset: keep all
    ],
)
async def test_history_limits_delete_the_oldest_finished_jobs(
    limits: dict[str, Any], deleted: list[int]
) -> None:
    """Jobs named by their hour before TOP; history is only finished Jobs."""
    h = CronJobHarness(JUST_BEFORE)
    cj = cronjob(**limits)
    for key in [k for k, v in limits.items() if v is None]:
        del cj["spec"][key]
    pending = job_of(cj, TOP - 8 * HOUR)  # never started, never finished: active, not history
    cj["status"] = {"lastScheduleTime": stamp(TOP - HOUR), "active": [ref(pending)]}
    h.seed(CRONJOBS, cj)
    # five successful runs (started out of name order) and two failed ones, all finished
    finished = {-6: "Complete", -5: "Complete", -4: "Complete", -3: "Failed", -2: "Complete"}
    finished |= {-1: "Failed", -7: "Complete"}
    starts = {-6: 1, -5: 0, -4: 3, -3: 2, -2: 4, -1: 5, -7: 6}  # -5 started first, -7 last
    for hours, condition in finished.items():
        started = TOP - 10 * HOUR + starts[hours] * 60
        h.seed(JOBS, job_of(cj, TOP + hours * HOUR, started=started, finished=condition))
    h.seed(JOBS, pending)
    await h.sync()
    names = {hours: f"hello-{int(TOP + hours * HOUR) // 60}" for hours in finished}
    assert h.deleted() == [names[hours] for hours in deleted]
    assert h.reasons() == ["SuccessfulDelete"] * len(deleted)
    if deleted and limits == {}:
        assert sorted(h.jobs()) == sorted(
            [names[-2], names[-7], names[-4], names[-1], f"hello-{int(TOP - 8 * HOUR) // 60}"]
        )


async def test_a_failed_delete_is_an_event_and_keeps_the_job() -> None:
    from minikube_py.api.errors import ApiError

    h = CronJobHarness(JUST_BEFORE)
    cj = cronjob(failedJobsHistoryLimit=0)
    h.seed(CRONJOBS, cj)
    h.seed(JOBS, job_of(cj, TOP - HOUR, started=TOP - HOUR, finished="Failed"))
    h.fake.fail("delete", "jobs", ApiError(500, "InternalError", "etcd is down"))
    await h.sync()
    assert h.recorder.events == ["Warning FailedDelete Deleted job: etcd is down"]
    assert list(h.jobs()) == ["hello-29454300"]

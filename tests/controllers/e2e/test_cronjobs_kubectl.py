"""CronJobs with real kubectl on ``up --nodes 2``: ``kubectl create cronjob ... --schedule="*/1 *
* * *" -- date`` makes a Job at the next minute (within 70 s), that Job completes, ``kubectl
create job --from=cronjob/...`` works, and the successful-jobs history limit keeps only the
newest finished Job. One schedule minute at most: after its run the CronJob is suspended and its
history filled with ``--from`` Jobs (owned by it as its own are), so no second minute is needed
and no later run can race the history checks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import Cluster, eventually, kubectl, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e

SCHEDULED = "batch.kubernetes.io/cronjob-scheduled-timestamp"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("cronjobs"), flags=["--nodes", "2"])


def owned_jobs(cluster: Cluster, cronjob: str) -> list[dict[str, Any]]:
    jobs = get(cluster, "jobs")["items"]
    return [
        job
        for job in jobs
        if any(
            ref.get("name") == cronjob and ref.get("kind") == "CronJob"
            for ref in job["metadata"].get("ownerReferences") or []
        )
    ]


def complete(cluster: Cluster, job: str) -> None:
    waited = kubectl(cluster, "wait", "--for=condition=complete", f"job/{job}", "--timeout=40s")
    assert waited.returncode == 0, waited.stderr


def test_a_minutely_cronjob_runs_its_job_and_keeps_its_history(cluster: Cluster) -> None:
    created_at = time.time()
    assert (
        ok(
            cluster, "create", "cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *", "--", "date"
        ).strip()
        == "cronjob.batch/tick created"
    )
    patch = '{"spec": {"successfulJobsHistoryLimit": 1}}'
    ok(cluster, "patch", "cronjob", "tick", "--type=merge", "-p", patch)
    header, row = ok(cluster, "get", "cronjob", "tick").splitlines()
    assert header.split() == ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"]
    assert row.split()[:7] == ["tick", "*/1", "*", "*", "*", "*", "<none>"]
    wide = ok(cluster, "get", "cronjob", "tick", "-o", "wide").splitlines()[0].split()
    assert wide[-3:] == ["CONTAINERS", "IMAGES", "SELECTOR"]

    # the scheduled run: at the next minute, named after it in minutes since the epoch
    scheduled = eventually(
        lambda: [j for j in owned_jobs(cluster, "tick") if SCHEDULED in j["metadata"].get("annotations", {})],
        "the scheduled Job",
        timeout=max(5.0, created_at + 70 - time.time()),
    )
    (job,) = scheduled
    name = job["metadata"]["name"]
    minute = int(name.removeprefix("tick-"))
    assert minute * 60 - created_at <= 60
    at_minute = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(minute * 60))
    assert job["metadata"]["annotations"][SCHEDULED] == at_minute
    complete(cluster, name)
    assert ok(cluster, "logs", f"job/{name}").strip()  # date printed something
    status = eventually(
        lambda: (
            (s := get(cluster, "cronjob", "tick")["status"]).get("lastSuccessfulTime")
            and not s.get("active")
            and s
        ),
        "the CronJob's status after its run",
    )
    assert status["lastScheduleTime"] == at_minute
    # suspended: no further scheduled run, while finished Jobs are still cleaned up
    ok(cluster, "patch", "cronjob", "tick", "--type=merge", "-p", '{"spec": {"suspend": true}}')

    # two Jobs from the template by hand, owned by the CronJob as its own are: each one that
    # finishes pushes the older finished Job past the history limit of 1
    ok(cluster, "create", "job", "--from=cronjob/tick", "tick-manual-1")
    manual = get(cluster, "job", "tick-manual-1")["metadata"]
    assert manual["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
    complete(cluster, "tick-manual-1")
    eventually(
        lambda: [j["metadata"]["name"] for j in owned_jobs(cluster, "tick")] == ["tick-manual-1"],
        "the scheduled Job deleted as the older finished one",
        timeout=30,
    )
    ok(cluster, "create", "job", "--from=cronjob/tick", "tick-manual-2")
    complete(cluster, "tick-manual-2")
    eventually(
        lambda: [j["metadata"]["name"] for j in owned_jobs(cluster, "tick")] == ["tick-manual-2"],
        "one successful Job kept",
        timeout=30,
    )
    described = ok(cluster, "describe", "cronjob", "tick")
    assert "Schedule:" in described and "*/1 * * * *" in described and "SuccessfulCreate" in described
    events = ok(
        cluster,
        "get",
        "events",
        "--field-selector",
        "involvedObject.kind=CronJob",
        "-o",
        "custom-columns=R:.reason,M:.message",
        "--no-headers",
    )
    assert f"Created job {name}" in events
    assert f"Deleted job {name}" in events and "Deleted job tick-manual-1" in events
    assert f"Saw completed job: {name}, condition: Complete" in events


def test_a_schedule_that_does_not_parse_is_refused(cluster: Cluster) -> None:
    # (robfig, so upstream, accepts */61: a step past the range is minute 0 only)
    assert ok(cluster, "create", "cronjob", "odd", "--image=busybox", "--schedule=*/61 * * * *").strip() == (
        "cronjob.batch/odd created"
    )
    refused = kubectl(cluster, "create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'error: failed to create cronjob: CronJob.batch "bad" is invalid: spec.schedule: Invalid value: '
        '"61 * * * *": end of range (61) above maximum (59): 61'
    )

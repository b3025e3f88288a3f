"""TTLAfterFinishedController.sync against a FakeClient and a FakeClock."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.ttlafterfinished import TTLAfterFinishedController
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.client.resourcetypes import JOBS
from tests.controllers.apps.harness import NS, Harness
from tests.controllers.batch.harness import KEY, job


def finished(h: Harness, kind: str = "Complete", ago: float = 0.0, **spec: Any) -> dict[str, Any]:
    obj = job(**spec)
    stamp = format_rfc3339(h.clock.now() - ago)
    obj["status"] = {"conditions": [{"type": kind, "status": "True", "lastTransitionTime": stamp}]}
    return obj


@pytest.mark.parametrize("kind", ["Complete", "Failed"])
async def test_a_finished_job_is_deleted_when_its_ttl_expires(kind: str) -> None:
    h = Harness()
    ttl = TTLAfterFinishedController(h.fake, h.factory, clock=h.clock)
    h.seed(JOBS, finished(h, kind, ttlSecondsAfterFinished=100))
    await ttl.sync(KEY)
    assert h.fake.filter_actions("delete", "jobs") == []
    assert ttl.queue.waiting() == 1  # requeued for when it expires
    await h.clock.step(100)
    await ttl.sync(KEY)
    (delete,) = h.fake.filter_actions("delete", "jobs")
    assert delete.body["propagationPolicy"] == "Foreground"
    assert delete.body["preconditions"] == {"uid": "uid-pi"}
    assert h.fake.stored(JOBS, NS, "pi") is None or h.fake.stored(JOBS, NS, "pi")["metadata"].get(
        "deletionTimestamp"
    )


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(job(ttlSecondsAfterFinished=0), id="running"),
        pytest.param(job(), id="no-ttl"),
    ],
)
async def test_running_jobs_and_jobs_without_ttl_are_kept(obj: dict[str, Any]) -> None:
    h = Harness()
    ttl = TTLAfterFinishedController(h.fake, h.factory, clock=h.clock)
    h.seed(JOBS, obj)
    await ttl.sync(KEY)
    assert h.fake.filter_actions("delete", "jobs") == [] and ttl.queue.waiting() == 0


async def test_a_ttl_raised_since_the_cache_saw_it_is_honoured() -> None:
    h = Harness()
    ttl = TTLAfterFinishedController(h.fake, h.factory, clock=h.clock)
    h.seed(JOBS, finished(h, ago=10, ttlSecondsAfterFinished=5))
    raised = h.stored(JOBS, "pi")
    raised["spec"]["ttlSecondsAfterFinished"] = 3600
    await h.fake.resource(JOBS, NS).update(raised)  # the informer has not seen it yet
    await ttl.sync(KEY)
    assert h.fake.filter_actions("delete", "jobs") == [] and ttl.queue.waiting() == 1

"""CronJob and Job builders and a driver for ``CronJobController.sync`` on the fake client,
hand-seeded caches and a fake clock set to a chosen wall time."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from controllers.cronjob.controller import CronJobController
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import CRONJOBS, JOBS
from minikube_py.clock import FakeClock
from tests.controllers.apps.harness import Harness

NS = "default"
KEY = f"{NS}/hello"
#: 2026-01-01T10:00:00Z, a Thursday: the top of an hour
TOP = datetime(2026, 1, 1, 10, tzinfo=UTC).timestamp()
HOUR = 3600.0


def stamp(epoch: float) -> str:
    return format_rfc3339(epoch)


def cronjob(schedule: str = "0 * * * *", *, created: float = TOP - HOUR, **spec: Any) -> Object:
    """A CronJob as the apiserver stores it (defaulted), created an hour before ``TOP``."""
    obj: Object = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {
            "name": "hello",
            "namespace": NS,
            "uid": "uid-hello",
            "resourceVersion": "1",
            "creationTimestamp": stamp(created),
        },
        "spec": {
            "schedule": schedule,
            "concurrencyPolicy": "Allow",
            "suspend": False,
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 1,
            "jobTemplate": {
                "metadata": {"labels": {"app": "hello"}, "annotations": {"team": "a"}},
                "spec": {
                    "template": {
                        "spec": {
                            "restartPolicy": "OnFailure",
                            "containers": [{"name": "hello", "image": "busybox", "args": ["date"]}],
                        }
                    }
                },
            },
        },
        "status": {},
    }
    obj["spec"].update(copy.deepcopy(spec))
    return obj


def job_of(
    cj: Object, scheduled: float, *, finished: str | None = None, started: float | None = None
) -> Object:
    """The Job the controller made for ``scheduled``; ``finished``: ``Complete`` or ``Failed``."""
    name = f"{cj['metadata']['name']}-{int(scheduled) // 60}"
    status: Object = {}
    if started is not None:
        status["startTime"] = stamp(started)
    if finished is not None:
        status["conditions"] = [{"type": finished, "status": "True"}]
        if finished == "Complete":
            status["completionTime"] = stamp((started or scheduled) + 30)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "resourceVersion": "1",
            "creationTimestamp": stamp(scheduled),
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "CronJob",
                    "name": cj["metadata"]["name"],
                    "uid": cj["metadata"]["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {},
        "status": status,
    }


def ref(job: Object) -> Object:
    meta = job["metadata"]
    return {
        "kind": "Job",
        "namespace": NS,
        "name": meta["name"],
        "uid": meta["uid"],
        "apiVersion": "batch/v1",
    }


class CronJobHarness(Harness):
    def __init__(self, now: float) -> None:
        super().__init__(FakeClock(start=now), (CRONJOBS, JOBS))
        self.controller = CronJobController(
            self.fake, self.factory, self.recorder, clock=self.clock, time_zone=UTC
        )

    async def sync(self) -> None:
        await self.controller.sync(KEY)

    def cronjob(self) -> Object:
        obj = self.fake.stored(CRONJOBS, NS, "hello")
        assert obj is not None
        return obj

    def jobs(self) -> dict[str, Object]:
        return {job["metadata"]["name"]: job for job in self.fake.all(JOBS)}

    def created(self) -> list[Object]:
        return [a.body for a in self.fake.filter_actions("create", "jobs")]

    def deleted(self) -> list[str]:
        return [a.name for a in self.fake.filter_actions("delete", "jobs")]

    def reasons(self) -> list[str]:
        return [event.split(" ")[1] for event in self.recorder.events]

    def requeue_after(self) -> float | None:
        """Seconds until the key comes back on the controller's clock (None: not requeued)."""
        ready_at = self.controller.queue._ready_at.get(KEY)  # the delaying queue's own record
        return None if ready_at is None else round(ready_at - self.clock.monotonic(), 3)

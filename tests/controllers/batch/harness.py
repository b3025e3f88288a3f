"""Job builders and a driver for ``JobController.sync`` on the fake client and fake clock."""

from __future__ import annotations

import copy
from typing import Any

from controllers.job import JobController
from controllers.job.jobpods import TRACKING_FINALIZER
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import JOBS, PODS
from tests.controllers.apps.harness import NS, PAST, Harness

KEY = f"{NS}/pi"


def job(name: str = "pi", **spec: Any) -> Object:
    """A Job as the apiserver stores it: defaulted, with the generated selector and labels."""
    uid = f"uid-{name}"
    labels = {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name}
    obj: Object = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS, "uid": uid, "creationTimestamp": PAST, "generation": 1},
        "spec": {
            "parallelism": 1,
            "completions": 1,
            "backoffLimit": 6,
            "completionMode": "NonIndexed",
            "suspend": False,
            "podReplacementPolicy": "TerminatingOrFailed",
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "pi", "image": "python", "command": ["python3", "-c", "print(3.14)"]}
                    ],
                },
            },
        },
    }
    obj["spec"].update(copy.deepcopy(spec))
    return obj


class JobHarness(Harness):
    def __init__(self) -> None:
        super().__init__()
        self.controller = JobController(self.fake, self.factory, self.recorder, clock=self.clock)

    def sync_caches(self) -> None:
        """The caches catch up with every write (as a healthy watch would)."""
        self.resync(JOBS, PODS)
        for key in {f"{NS}/{j['metadata']['name']}" for j in self.fake.all(JOBS)}:
            self.controller.expectations.delete_expectations(key)
            self.controller.finalizers.delete(key)

    async def sync(self, key: str = KEY) -> None:
        await self.controller.sync(key)
        self.sync_caches()

    def pods(self) -> list[Object]:
        return sorted(self.fake.all(PODS), key=lambda p: p["metadata"]["name"])

    async def finish(self, pod: Object, phase: str, exit_code: int = 0, **status: Any) -> None:
        """The node agent reports ``pod`` finished (container exit code), as the fake stores it."""
        stored = self.fake.stored(PODS, NS, pod["metadata"]["name"])
        assert stored is not None
        stored = copy.deepcopy(stored)
        stamp = format_rfc3339(self.clock.now())
        terminated = {
            "exitCode": exit_code,
            "finishedAt": stamp,
            "reason": "Completed" if exit_code == 0 else "Error",
        }
        stored["status"] = {
            "phase": phase,
            "containerStatuses": [{"name": "pi", "state": {"terminated": terminated}, "restartCount": 0}],
            **status,
        }
        await self.fake.resource(PODS, NS).update_status(stored)
        self.sync_caches()

    def status(self, name: str = "pi") -> dict[str, Any]:
        return self.stored(JOBS, name).get("status") or {}

    def condition(self, kind: str, name: str = "pi") -> dict[str, Any] | None:
        return next((c for c in self.status(name).get("conditions") or [] if c["type"] == kind), None)

    def events(self, reason: str) -> list[str]:
        return [e for e in self.recorder.events if e.split(" ", 2)[1] == reason]


def tracked(pod: Object) -> bool:
    return TRACKING_FINALIZER in (pod["metadata"].get("finalizers") or [])

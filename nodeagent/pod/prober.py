"""Probe workers for the running containers of one node (upstream ``prober.Manager``).

``ProbeManager.update(pod, status)`` (after each sync) keeps one worker per running container
and probe kind (startup, readiness, liveness) that the container's spec defines; a restarted
container (a new id) gets fresh workers, stopped ones lose theirs. A worker waits
``initialDelaySeconds`` after the container started, then probes every ``periodSeconds``
(each try bounded by ``timeoutSeconds``) and flips its result after ``successThreshold``
successes or ``failureThreshold`` failures in a row. Results start as upstream's: readiness
failing, liveness passing, startup not yet passed; liveness and readiness wait for startup.

Every failed try is a ``Unhealthy`` Warning event (``Liveness probe failed: ...``). When a
result flips, the pod's worker is woken (``on_change(uid)``): the sync writes readiness to
the status and restarts a container whose liveness or startup probe failed
(``failed(uid)``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from nodeagent.pod.probe import run_probe
from nodeagent.pod.runtimestatus import PodRuntimeStatus
from nodeagent.runtime.interface import ContainerRuntime, ContainerState

KINDS = ("startup", "readiness", "liveness")
INITIAL = {"startup": False, "readiness": False, "liveness": True}


@dataclass
class _Worker:
    uid: str
    container: Object
    container_id: str
    kind: str
    started_at: float
    result: bool
    pod: Object
    pod_ip: str
    task: asyncio.Task[None] | None = None
    successes: int = 0  # consecutive
    failures: int = 0  # consecutive
    failed: bool = False  # failureThreshold reached (for liveness and startup: restart)

    @property
    def probe(self) -> Object:
        return dict(self.container[f"{self.kind}Probe"])


class ProbeManager:
    def __init__(
        self, runtime: ContainerRuntime, recorder: Recorder, clock: Clock, on_change: Callable[[str], None]
    ) -> None:
        self.runtime = runtime
        self.recorder = recorder
        self.clock = clock
        self.on_change = on_change
        self._workers: dict[tuple[str, str], _Worker] = {}  # (container id, kind) -> worker
        self._tasks: asyncio.TaskGroup | None = None

    async def run(self) -> None:
        """Own the workers' tasks until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            self._tasks = tasks
            try:
                await asyncio.Event().wait()
            finally:
                self._tasks = None
                for worker in self._workers.values():
                    if worker.task is not None:
                        worker.task.cancel()

    def update(self, pod: Object, status: PodRuntimeStatus) -> None:
        uid = pod["metadata"]["uid"]
        wanted: set[tuple[str, str]] = set()
        for container in (pod.get("spec") or {}).get("containers") or []:
            current = status.latest(container["name"])
            if current is None or current.state is not ContainerState.RUNNING:
                continue
            for kind in KINDS:
                if container.get(f"{kind}Probe"):
                    key = (current.id, kind)
                    wanted.add(key)
                    worker = self._workers.get(key)
                    if worker is None:
                        worker = _Worker(
                            uid,
                            container,
                            current.id,
                            kind,
                            current.started_at,
                            INITIAL[kind],
                            pod,
                            status.ip,
                        )
                        self._workers[key] = worker
                        if self._tasks is not None:
                            worker.task = self._tasks.create_task(self._work(worker))
                    worker.pod = pod
        for key in [k for k, w in self._workers.items() if w.uid == uid and k not in wanted]:
            self._stop(key)

    def forget(self, uid: str) -> None:
        for key in [k for k, w in self._workers.items() if w.uid == uid]:
            self._stop(key)

    def results(self, uid: str, status: PodRuntimeStatus, pod: Object) -> tuple[set[str], set[str]]:
        """The (ready, started) container names: running, with no readiness (startup) probe or
        one that passed; readiness also needs the container started."""
        ready, started = set(), set()
        for container in (pod.get("spec") or {}).get("containers") or []:
            name = container["name"]
            current = status.latest(name)
            if current is None or current.state is not ContainerState.RUNNING:
                continue
            if self._passed(current.id, "startup", container):
                started.add(name)
                if self._passed(current.id, "readiness", container):
                    ready.add(name)
        return ready, started

    def failed(self, uid: str) -> dict[str, str]:
        """Container name -> the probe kind (liveness, startup) that failed: to restart."""
        return {
            w.container["name"]: w.kind
            for w in self._workers.values()
            if w.uid == uid and w.kind in ("liveness", "startup") and w.failed
        }

    def _passed(self, container_id: str, kind: str, container: Object) -> bool:
        if not container.get(f"{kind}Probe"):
            return True
        worker = self._workers.get((container_id, kind))
        return worker is not None and worker.result

    def _stop(self, key: tuple[str, str]) -> None:
        worker = self._workers.pop(key)
        if worker.task is not None:
            worker.task.cancel()

    async def _work(self, worker: _Worker) -> None:
        probe = worker.probe
        period = float(probe.get("periodSeconds") or 10)
        delay = worker.started_at + float(probe.get("initialDelaySeconds") or 0) - self.clock.now()
        await self.clock.sleep(max(delay, 0.0))
        while True:
            if self._due(worker):
                await self._try(worker, probe)
            await self.clock.sleep(period)

    def _due(self, worker: _Worker) -> bool:
        """Startup probes run until they pass; the others once startup passed."""
        if worker.kind == "startup":
            return not worker.result
        return self._passed(worker.container_id, "startup", worker.container)

    async def _try(self, worker: _Worker, probe: Object) -> None:
        success, output = await run_probe(
            probe, worker.container, worker.pod_ip, self.runtime, worker.container_id
        )
        if success:
            worker.successes, worker.failures = worker.successes + 1, 0
        else:
            worker.successes, worker.failures = 0, worker.failures + 1
            message = f"{worker.kind.capitalize()} probe failed: {output.strip()}".rstrip(": ")
            self.recorder.event(worker.pod, "Warning", "Unhealthy", message)
        before = (worker.result, worker.failed)
        if success and worker.successes >= int(probe.get("successThreshold") or 1):
            worker.result = True
        elif not success and worker.failures >= int(probe.get("failureThreshold") or 3):
            worker.result, worker.failed = False, True
        if (worker.result, worker.failed) != before:
            self.on_change(worker.uid)

"""One worker per pod (upstream ``podWorkers``): syncing -> terminating -> terminated.

``update_pod(pod)`` hands a pod's latest version to its worker (creating it on first sight);
only the newest pending version is kept, so a burst of updates costs one sync. ``wake(uid)``
(the PLEG saw a change) asks for a sync of the version the worker has. A worker syncs when
woken, when the sync asked to be requeued (e.g. at the end of a crash-loop backoff), and every
``resync`` seconds.

States move one way:

- **syncing**: ``sync(pod)`` runs the pod toward its spec; it returns when to sync again;
- **terminating**: once the pod is being deleted (``deletionTimestamp``), was removed from the
  API (``removed(uid)``), or reached a terminal phase, ``terminate(pod)`` stops everything;
- **terminated**: ``finished(pod)`` runs (final status, the final delete, cleanup) and the
  worker ends; it runs once more if a pod that finished on its own is deleted later. A pod
  that comes back with the same uid is not started again.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock

SyncFn = Callable[[Object], Awaitable[float | None]]  # -> sync again after (None: resync)
StepFn = Callable[[Object], Awaitable[None]]
log = logging.getLogger("nodeagent.workers")
RESYNC = 10.0


class WorkerState(enum.Enum):
    SYNCING = "syncing"
    TERMINATING = "terminating"
    TERMINATED = "terminated"


@dataclass
class _Worker:
    pod: Object
    state: WorkerState = WorkerState.SYNCING
    removed: bool = False
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


def is_terminal(pod: Object) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


class PodWorkers:
    def __init__(
        self, sync: SyncFn, terminate: StepFn, finished: StepFn, clock: Clock, resync: float = RESYNC
    ) -> None:
        self._sync, self._terminate, self._finished = sync, terminate, finished
        self.clock = clock
        self.resync = resync
        self._workers: dict[str, _Worker] = {}
        self._tasks: asyncio.TaskGroup | None = None

    async def run(self) -> None:
        """Own the workers' tasks until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            self._tasks = tasks
            for uid, worker in self._workers.items():
                self._start(uid, worker)
            try:
                await asyncio.Event().wait()
            finally:
                self._tasks = None
                for worker in self._workers.values():
                    if worker.task is not None:
                        worker.task.cancel()

    def update_pod(self, pod: Object, *, wake: bool = True) -> None:
        """Hand ``pod`` to its worker; ``wake`` False keeps it for the next sync (a change
        that needs no sync of its own). A new pod's worker always starts."""
        uid = pod["metadata"]["uid"]
        worker = self._workers.get(uid)
        if worker is None:
            worker = self._workers[uid] = _Worker(pod)
            self._start(uid, worker)
        elif worker.state is not WorkerState.TERMINATED:
            worker.pod = pod
        elif pod["metadata"].get("deletionTimestamp") and not worker.pod["metadata"].get("deletionTimestamp"):
            # a finished pod is now deleted: it still needs its final delete
            worker.pod = pod
            if self._tasks is not None:
                self._tasks.create_task(self._finish(uid, pod))
        if wake:
            worker.wakeup.set()

    def removed(self, uid: str) -> None:
        """The pod left the API (or this node): terminate it."""
        worker = self._workers.get(uid)
        if worker is not None:
            worker.removed = True
            worker.wakeup.set()

    def wake(self, uid: str) -> None:
        worker = self._workers.get(uid)
        if worker is not None:
            worker.wakeup.set()

    def state(self, uid: str) -> WorkerState | None:
        worker = self._workers.get(uid)
        return worker.state if worker is not None else None

    def known(self) -> dict[str, Object]:
        """The latest version of every pod not yet terminated, by uid."""
        return {uid: w.pod for uid, w in self._workers.items() if w.state is not WorkerState.TERMINATED}

    def forget(self, uid: str) -> None:
        """Drop a terminated worker (the pod is gone from the API too)."""
        worker = self._workers.get(uid)
        if worker is not None and worker.state is WorkerState.TERMINATED:
            del self._workers[uid]

    def _start(self, uid: str, worker: _Worker) -> None:
        if self._tasks is not None and worker.task is None:
            worker.task = self._tasks.create_task(self._work(uid, worker), name=f"pod-worker-{uid}")

    async def _work(self, uid: str, worker: _Worker) -> None:
        while worker.state is WorkerState.SYNCING:
            worker.wakeup.clear()
            pod = worker.pod
            if worker.removed or pod["metadata"].get("deletionTimestamp") or is_terminal(pod):
                worker.state = WorkerState.TERMINATING
                break
            try:
                again = await self._sync(pod)
            except Exception:
                log.exception("syncing pod %s failed", uid)
                again = 1.0
            await self._wait(worker, self.resync if again is None else min(again, self.resync))
        try:
            await self._terminate(worker.pod)
        except Exception:
            log.exception("terminating pod %s failed", uid)
        worker.state = WorkerState.TERMINATED
        await self._finish(uid, worker.pod)

    async def _finish(self, uid: str, pod: Object) -> None:
        try:
            await self._finished(pod)
        except Exception:
            log.exception("finishing pod %s failed", uid)

    async def _wait(self, worker: _Worker, seconds: float) -> None:
        sleeper = asyncio.ensure_future(self.clock.sleep(max(seconds, 0.0)))
        woken = asyncio.ensure_future(worker.wakeup.wait())
        try:
            await asyncio.wait({sleeper, woken}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            woken.cancel()

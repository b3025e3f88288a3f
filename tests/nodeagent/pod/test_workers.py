"""Pod workers: one per uid, latest update wins, syncing -> terminating -> terminated."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from minikube_py.clock import FakeClock
from nodeagent.pod.workers import PodWorkers, WorkerState
from tests.nodeagent.pod.builders import make_pod


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.requeue: float | None = None

    async def sync(self, pod: dict[str, Any]) -> float | None:
        await self.gate.wait()
        self.calls.append(("sync", pod["metadata"].get("resourceVersion", "")))
        return self.requeue

    async def terminate(self, pod: dict[str, Any]) -> None:
        self.calls.append(("terminate", pod["metadata"].get("resourceVersion", "")))

    async def finished(self, pod: dict[str, Any]) -> None:
        self.calls.append(("finished", pod["metadata"].get("resourceVersion", "")))


@contextlib.asynccontextmanager
async def running(recorder: Recorder, clock: FakeClock) -> AsyncIterator[PodWorkers]:
    workers = PodWorkers(recorder.sync, recorder.terminate, recorder.finished, clock, resync=10.0)
    task = asyncio.ensure_future(workers.run())
    await settle()
    try:
        yield workers
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def version(rv: str, **changes: Any) -> dict[str, Any]:
    pod = make_pod("a", **changes)
    pod["metadata"]["resourceVersion"] = rv
    return pod


async def test_a_new_pod_is_synced_at_once_and_again_at_resync() -> None:
    recorder, clock = Recorder(), FakeClock()
    async with running(recorder, clock) as workers:
        workers.update_pod(version("1"))
        await settle()
        assert recorder.calls == [("sync", "1")]
        await clock.step(10)
        await settle()
        assert recorder.calls == [("sync", "1"), ("sync", "1")]


async def test_only_the_latest_pending_update_is_synced() -> None:
    recorder, clock = Recorder(), FakeClock()
    async with running(recorder, clock) as workers:
        recorder.gate.clear()
        workers.update_pod(version("1"))
        await settle()
        for rv in ("2", "3", "4"):
            workers.update_pod(version(rv))
        recorder.gate.set()
        await settle()
        assert recorder.calls == [("sync", "1"), ("sync", "4")]


async def test_a_requeue_wakes_the_worker_early() -> None:
    recorder, clock = Recorder(), FakeClock()
    recorder.requeue = 2.0
    async with running(recorder, clock) as workers:
        workers.update_pod(version("1"))
        await settle()
        await clock.step(2)
        await settle()
        assert len(recorder.calls) == 2


async def test_wake_syncs_now() -> None:
    recorder, clock = Recorder(), FakeClock()
    async with running(recorder, clock) as workers:
        workers.update_pod(version("1"))
        await settle()
        workers.wake("uid-1")
        await settle()
        assert recorder.calls == [("sync", "1"), ("sync", "1")]


async def test_a_deleted_pod_terminates_then_finishes_once_and_is_never_synced_again() -> None:
    recorder, clock = Recorder(), FakeClock()
    async with running(recorder, clock) as workers:
        workers.update_pod(version("1"))
        await settle()
        workers.update_pod(version("2", deleting=True))
        await settle()
        assert recorder.calls == [("sync", "1"), ("terminate", "2"), ("finished", "2")]
        assert workers.state("uid-1") is WorkerState.TERMINATED
        workers.update_pod(version("3", deleting=True))
        await clock.step(30)
        await settle()
        assert recorder.calls[-1] == ("finished", "2")


async def test_a_pod_removed_from_the_api_is_terminated() -> None:
    recorder, clock = Recorder(), FakeClock()
    async with running(recorder, clock) as workers:
        workers.update_pod(version("1"))
        await settle()
        workers.removed("uid-1")
        await settle()
        assert [c[0] for c in recorder.calls] == ["sync", "terminate", "finished"]


async def test_a_pod_that_finished_on_its_own_is_finished_again_when_deleted() -> None:
    recorder, clock = Recorder(), FakeClock()
    async with running(recorder, clock) as workers:
        done = version("1")
        done["status"]["phase"] = "Succeeded"
        workers.update_pod(done)
        await settle()
        assert [c[0] for c in recorder.calls] == ["terminate", "finished"]
        deleted = version("2", deleting=True)
        deleted["status"]["phase"] = "Succeeded"
        workers.update_pod(deleted)
        await settle()
        assert recorder.calls[-1] == ("finished", "2")

"""run_workers: retries with backoff, one key per worker at a time, cache sync, cancellation."""

from __future__ import annotations

import asyncio
import logging

import pytest

from minikube_py.clock import FakeClock
from minikube_py.controller import run_workers
from minikube_py.workqueue import ItemExponentialFailureRateLimiter, RateLimitingQueue


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def new_queue(clock: FakeClock) -> RateLimitingQueue[str]:
    return RateLimitingQueue(ItemExponentialFailureRateLimiter(0.005, 1.0), clock=clock)


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_failing_sync_is_retried_with_backoff_then_forgotten(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    queue = new_queue(clock)
    calls: list[float] = []

    async def sync(key: str) -> None:
        calls.append(clock.monotonic())
        if len(calls) <= 2:
            raise RuntimeError("boom")

    start = clock.monotonic()
    runner = asyncio.ensure_future(run_workers("testctl", queue, sync, 2, clock=clock))
    with caplog.at_level(logging.ERROR, logger="testctl"):
        queue.add("ns/a")
        await settle()
        assert len(calls) == 1 and queue.num_requeues("ns/a") == 1
        await clock.step(0.004)
        assert len(calls) == 1
        await clock.step(0.001)  # 5 ms backoff
        assert len(calls) == 2
        await clock.step(0.009)
        assert len(calls) == 2
        await clock.step(0.001)  # 10 ms backoff
        assert len(calls) == 3
    assert [round(t - start, 3) for t in calls] == [0.0, 0.005, 0.015]
    assert queue.num_requeues("ns/a") == 0  # forgotten after success
    errors = [r.getMessage() for r in caplog.records if r.name == "testctl"]
    assert errors == ["error syncing 'ns/a': boom; requeued"] * 2
    await stop(runner)


async def test_two_workers_never_sync_the_same_key_at_once() -> None:
    clock = FakeClock()
    queue = new_queue(clock)
    active: set[str] = set()
    overlaps: list[str] = []
    synced: list[str] = []
    release = asyncio.Event()

    async def sync(key: str) -> None:
        if key in active:
            overlaps.append(key)
        active.add(key)
        await release.wait()
        active.discard(key)
        synced.append(key)

    runner = asyncio.ensure_future(run_workers("testctl", queue, sync, 4, clock=clock))
    queue.add("k")
    await settle()
    for _ in range(5):
        queue.add("k")  # while "k" is being synced: marked dirty only
        queue.add("other")
    await settle()
    assert active == {"k", "other"}
    release.set()
    await settle()
    assert overlaps == []
    assert sorted(synced) == ["k", "k", "other"]  # bursts collapse into one more sync
    await stop(runner)


async def test_waits_for_caches_to_sync() -> None:
    clock = FakeClock()
    queue = new_queue(clock)
    ready = False
    calls: list[str] = []

    async def sync(key: str) -> None:
        calls.append(key)

    runner = asyncio.ensure_future(
        run_workers("testctl", queue, sync, 1, synced=[lambda: ready], clock=clock)
    )
    queue.add("k")
    await clock.step(0.5)
    assert calls == []
    ready = True
    await clock.step(0.1)
    assert calls == ["k"]
    await stop(runner)


async def test_cancellation_shuts_down_and_lets_current_sync_finish() -> None:
    clock = FakeClock()
    queue = new_queue(clock)
    started = asyncio.Event()
    release = asyncio.Event()
    finished: list[str] = []

    async def sync(key: str) -> None:
        started.set()
        await release.wait()
        finished.append(key)

    runner = asyncio.ensure_future(run_workers("testctl", queue, sync, 2, clock=clock))
    queue.add("a")
    queue.add("b")
    queue.add("c")
    await started.wait()
    await settle()
    runner.cancel()
    await settle()
    assert not runner.done() and queue.shutting_down()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(runner, 1.0)
    assert sorted(finished) == ["a", "b"]  # in-flight keys finished; "c" was never started


async def test_cancellation_while_idle_is_prompt() -> None:
    clock = FakeClock()
    queue = new_queue(clock)

    async def sync(key: str) -> None:
        return None

    runner = asyncio.ensure_future(run_workers("testctl", queue, sync, 3, clock=clock))
    await settle()
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(runner, 0.5)
    assert queue.shutting_down()

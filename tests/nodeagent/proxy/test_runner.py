"""The sync debounce on a fake clock: bursts coalesce, a quiet period's first change runs at
once, and a full sync comes at least every sync period."""

from __future__ import annotations

import asyncio

from minikube_py.clock import FakeClock
from nodeagent.proxy.runner import BoundedFrequencyRunner
from tests.nodeagent.proxy.fakes import settle


async def started(clock: FakeClock) -> tuple[BoundedFrequencyRunner, list[float], asyncio.Task[None]]:
    syncs: list[float] = []

    async def sync() -> None:
        syncs.append(clock.monotonic())

    runner = BoundedFrequencyRunner(sync, clock, min_interval=1, max_interval=30)
    task = asyncio.ensure_future(runner.run())
    runner.request()
    await settle()
    return runner, syncs, task


async def test_changes_within_the_min_interval_become_one_sync() -> None:
    clock = FakeClock()
    runner, syncs, task = await started(clock)
    start = syncs[0]
    for _ in range(5):
        runner.request()
        await clock.step(0.1)
    assert syncs == [start]
    await clock.step(0.6)
    assert syncs == [start, start + 1]
    task.cancel()


async def test_the_first_change_after_a_quiet_period_syncs_at_once() -> None:
    clock = FakeClock()
    runner, syncs, task = await started(clock)
    await clock.step(5)
    runner.request()
    await settle()
    assert syncs == [syncs[0], syncs[0] + 5]
    task.cancel()


async def test_without_changes_a_full_sync_runs_every_sync_period() -> None:
    clock = FakeClock()
    _, syncs, task = await started(clock)
    await clock.step(29)
    assert len(syncs) == 1
    await clock.step(1)
    await clock.step(30)
    assert [s - syncs[0] for s in syncs] == [0, 30, 60]
    task.cancel()


async def test_an_extra_deadline_such_as_a_bind_retry_wakes_the_runner() -> None:
    clock = FakeClock()
    runner, syncs, task = await started(clock)
    runner.extra_deadline = lambda: syncs[0] + 5
    runner.request()  # re-arm the wait with the new deadline
    await clock.step(1)
    await clock.step(4)
    assert [s - syncs[0] for s in syncs] == [0, 1, 5]
    task.cancel()

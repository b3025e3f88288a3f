"""The delaying loop and the rate-limited queue on a fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from minikube_py.clock import FakeClock
from minikube_py.workqueue import ItemExponentialFailureRateLimiter, RateLimitingQueue


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def queue(clock: FakeClock) -> AsyncIterator[RateLimitingQueue[str]]:
    q: RateLimitingQueue[str] = RateLimitingQueue(ItemExponentialFailureRateLimiter(0.005, 1.0), clock=clock)
    async with asyncio.TaskGroup() as tg:
        runner = tg.create_task(q.run())
        await asyncio.sleep(0)
        yield q
        q.shut_down()
    assert runner.done()


async def test_add_after_ready_only_after_step(queue: RateLimitingQueue[str], clock: FakeClock) -> None:
    queue.add_after("a", 1.0)
    await clock.step(0.5)
    assert len(queue) == 0 and queue.waiting() == 1
    await clock.step(0.5)
    assert len(queue) == 1 and queue.waiting() == 0
    assert await queue.get() == "a"


async def test_add_after_zero_adds_now(queue: RateLimitingQueue[str]) -> None:
    queue.add_after("a", 0)
    assert len(queue) == 1


async def test_earliest_time_wins(queue: RateLimitingQueue[str], clock: FakeClock) -> None:
    queue.add_after("a", 5.0)
    await clock.step(0)
    queue.add_after("a", 1.0)  # earlier: wakes the loop, which was sleeping until 5
    queue.add_after("a", 3.0)  # later: ignored
    assert queue.waiting() == 1
    await clock.step(1.0)
    assert len(queue) == 1
    assert await queue.get() == "a"
    queue.done("a")
    await clock.step(10.0)
    assert len(queue) == 0  # the superseded entries never fire


async def test_ready_items_come_out_in_time_order(queue: RateLimitingQueue[str], clock: FakeClock) -> None:
    queue.add_after("c", 3.0)
    queue.add_after("a", 1.0)
    queue.add_after("b", 2.0)
    await clock.step(3.0)
    assert [await queue.get() for _ in range(3)] == ["a", "b", "c"]


async def test_add_rate_limited_backs_off_and_forget_resets(
    queue: RateLimitingQueue[str], clock: FakeClock
) -> None:
    queue.add_rate_limited("k")
    queue.add_rate_limited("k")  # second failure: 10 ms, but 5 ms already waits (earliest wins)
    assert queue.num_requeues("k") == 2
    await clock.step(0.005)
    assert len(queue) == 1
    queue.forget("k")
    assert queue.num_requeues("k") == 0


async def test_shut_down_stops_run_and_drops_waiting(clock: FakeClock) -> None:
    q: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
    async with asyncio.TaskGroup() as tg:
        runner = tg.create_task(q.run())
        q.add_after("a", 1.0)
        await asyncio.sleep(0)
        q.shut_down()
    assert runner.done() and q.waiting() == 0
    q.add_after("b", 1.0)
    assert q.waiting() == 0


async def test_run_is_cancellable(clock: FakeClock) -> None:
    q: RateLimitingQueue[str] = RateLimitingQueue(clock=clock)
    q.add_after("a", 1.0)
    runner = asyncio.ensure_future(q.run())
    await asyncio.sleep(0)
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await runner
    assert not clock.has_sleepers()

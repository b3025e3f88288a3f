"""``TokenBucket`` on a ``FakeClock``: burst, steady rate, arrival order, cancellation, disabled."""

from __future__ import annotations

import asyncio

from minikube_py.client import TokenBucket
from minikube_py.clock import FakeClock


async def test_burst_is_free_then_one_token_per_interval() -> None:
    clock = FakeClock()
    bucket = TokenBucket(qps=4, burst=3, clock=clock)  # 0.25 s a token (exact in binary)
    for _ in range(3):
        await bucket.wait()  # the bucket starts full: no sleep (the fake clock would hang)
    done: list[int] = []

    async def waiter(i: int) -> None:
        await bucket.wait()
        done.append(i)

    tasks = [asyncio.create_task(waiter(i)) for i in range(3)]
    await asyncio.sleep(0)
    assert done == []
    await clock.step(0.25)
    assert done == [0]
    await clock.step(0.125)
    assert done == [0]
    await clock.step(0.125)
    assert done == [0, 1]
    await clock.step(0.25)
    assert done == [0, 1, 2]
    await asyncio.gather(*tasks)


async def test_tokens_refill_up_to_burst_only() -> None:
    clock = FakeClock()
    bucket = TokenBucket(qps=2, burst=2, clock=clock)
    await bucket.wait()
    await bucket.wait()
    assert bucket.tokens() == 0
    await clock.step(100)
    assert bucket.tokens() == 2
    await bucket.wait()
    await bucket.wait()
    waiter = asyncio.create_task(bucket.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    await clock.step(0.5)
    assert waiter.done()


async def test_a_cancelled_waiter_gives_its_token_back() -> None:
    clock = FakeClock()
    bucket = TokenBucket(qps=1, burst=1, clock=clock)
    await bucket.wait()
    waiter = asyncio.create_task(bucket.wait())
    await asyncio.sleep(0)
    assert bucket.tokens() == -1
    waiter.cancel()
    await asyncio.sleep(0)
    assert waiter.cancelled()
    assert bucket.tokens() == 0
    await clock.step(1)
    assert bucket.tokens() == 1


async def test_zero_qps_disables_limiting() -> None:
    clock = FakeClock()
    bucket = TokenBucket(qps=0, burst=1, clock=clock)
    for _ in range(1000):
        await bucket.wait()
    assert not clock.has_sleepers()
    assert not bucket.enabled

"""Queue invariants: dedup, dirty/processing, FIFO, shutdown."""

from __future__ import annotations

import asyncio

import pytest

from minikube_py.workqueue import Queue


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_fifo_and_dedup_while_queued() -> None:
    q: Queue[str] = Queue()
    for item in ["a", "b", "a", "c", "b"]:
        q.add(item)
    assert len(q) == 3
    assert [await q.get() for _ in range(3)] == ["a", "b", "c"]


async def test_add_during_processing_requeues_after_done() -> None:
    q: Queue[str] = Queue()
    q.add("a")
    assert await q.get() == "a"
    q.add("a")
    q.add("a")
    assert len(q) == 0  # only marked dirty: nobody else may take it now
    q.add("b")
    assert await q.get() == "b"
    q.done("b")
    q.done("a")
    assert len(q) == 1
    assert await q.get() == "a"
    q.done("a")
    assert len(q) == 0


async def test_never_handed_to_two_workers_at_once() -> None:
    q: Queue[str] = Queue()
    active: set[str] = set()
    overlaps: list[str] = []
    handled: list[str] = []

    async def worker() -> None:
        while (item := await q.get()) is not None:
            if item in active:
                overlaps.append(item)
            active.add(item)
            await asyncio.sleep(0)
            if len(handled) < 30:
                q.add(item)  # re-added while processing
            await asyncio.sleep(0)
            active.discard(item)
            handled.append(item)
            q.done(item)

    async with asyncio.TaskGroup() as tg:
        for _ in range(4):
            tg.create_task(worker())
        q.add("k")
        q.add("j")
        while len(handled) < 30:
            await asyncio.sleep(0)
        q.shut_down()
    assert overlaps == []
    assert handled.count("k") >= 10


async def test_get_waits_for_an_item() -> None:
    q: Queue[str] = Queue()
    getter = asyncio.ensure_future(q.get())
    await settle()
    assert not getter.done()
    q.add("x")
    assert await getter == "x"


async def test_shut_down_returns_none_to_waiting_getters() -> None:
    q: Queue[str] = Queue()
    getters = [asyncio.ensure_future(q.get()) for _ in range(3)]
    await settle()
    q.shut_down()
    assert await asyncio.gather(*getters) == [None, None, None]
    q.add("late")
    assert len(q) == 0 and q.shutting_down()


async def test_shut_down_hands_out_what_is_queued_then_none() -> None:
    q: Queue[str] = Queue()
    q.add("a")
    q.shut_down()
    assert await q.get() == "a"
    assert await q.get() is None


async def test_shut_down_with_drain_waits_for_processing() -> None:
    q: Queue[str] = Queue()
    q.add("a")
    assert await q.get() == "a"
    drain = asyncio.ensure_future(q.shut_down_with_drain())
    await settle()
    assert not drain.done()
    q.done("a")
    await settle()
    assert drain.done()


async def test_cancelled_getter_passes_its_wakeup_on() -> None:
    q: Queue[str] = Queue()
    first = asyncio.ensure_future(q.get())
    second = asyncio.ensure_future(q.get())
    await settle()
    q.add("x")  # wakes ``first`` ...
    first.cancel()  # ... which is cancelled before it runs
    assert await second == "x"
    with pytest.raises(asyncio.CancelledError):
        await first

"""Cacher watcher buffer bookkeeping: terminate() and close() on a full buffer.

Regression tests from the storage review: each test is named after the bug it guards
against and asserts the correct behaviour."""

from __future__ import annotations

import asyncio

from apiserver.storage.cacher import Cacher
from apiserver.storage.interface import ListOptions
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from tests.storage.conftest import running

PREFIX = "/registry/configmaps/"


def cm(name: str) -> dict:
    return {"metadata": {"name": name, "namespace": "default"}, "data": {}}


async def collect(it, timeout):
    out = []

    async def go():
        async for e in it:
            out.append(e)

    try:
        await asyncio.wait_for(go(), timeout)
    except TimeoutError:
        return out, False
    return out, True


async def test_overflow_termination_drops_the_oldest_event_leaving_a_gap() -> None:
    """A terminated slow watcher must deliver a prefix of the event stream (then end), so that
    re-watching from the last RV it saw loses nothing. terminate() drops the OLDEST queued
    event instead, so the client sees c2, c3 and resumes after c3: c1 is lost forever."""
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, watcher_buffer=3)) as cacher:
        seed = await storage.create(PREFIX + "default/seed", cm("seed"))
        rv = seed["metadata"]["resourceVersion"]
        await cacher.wait_until_fresh(int(rv))
        watch = cacher.watch(PREFIX, ListOptions(resource_version=rv))
        it = aiter(watch)
        first = asyncio.create_task(anext(it))  # registers the watcher, waits for an event
        await asyncio.sleep(0.01)
        created = []
        for i in range(5):
            created.append(await storage.create(f"{PREFIX}default/c{i}", cm(f"c{i}")))
        await cacher.wait_until_fresh(int(created[-1]["metadata"]["resourceVersion"]))
        got = [await first]
        rest, ended = await collect(it, 1.0)
        got += rest
    assert ended
    names = [e.object["metadata"]["name"] for e in got]
    expected = [c["metadata"]["name"] for c in created]
    # what was delivered must be a prefix of what happened (no hole before the resume point)
    assert names == expected[: len(names)], names


async def test_close_with_a_full_buffer_ends_the_iteration() -> None:
    """Regression: close() must end the stream. With a full buffer the end-of-stream marker
    used to be dropped, so the consumer drained the buffer and then blocked forever."""
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, watcher_buffer=3)) as cacher:
        for i in range(3):
            last = await storage.create(f"{PREFIX}default/s{i}", cm(f"s{i}"))
        await cacher.wait_until_fresh(int(last["metadata"]["resourceVersion"]))
        watch = cacher.watch(PREFIX, ListOptions(resource_version="0"))
        it = aiter(watch)
        assert (await anext(it)).type == "ADDED"  # registered; 2 of 3 initial events still queued
        last = await storage.create(f"{PREFIX}default/c", cm("c"))
        await cacher.wait_until_fresh(int(last["metadata"]["resourceVersion"]))
        await watch.close()
        got, ended = await collect(it, 1.0)
    assert ended, f"closed watch never ended (drained {len(got)} events, then hung)"

"""Cacher watch semantics: initial state vs buffer, sendInitialEvents, predicate transitions.

Regression tests from the storage review: each test is named after the bug it guards
against and asserts the correct behaviour."""

from __future__ import annotations

import asyncio

import pytest

from apiserver.storage.cacher import Cacher
from apiserver.storage.interface import INITIAL_EVENTS_END, ListOptions
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from minikube_py.api.unstructured import Object
from tests.storage.conftest import running

PREFIX = "/registry/configmaps/"


def cm(name: str, **data: str) -> Object:
    return {"metadata": {"name": name, "namespace": "default"}, "data": dict(data)}


async def collect(it, timeout, stop=None):
    out = []

    async def go():
        async for e in it:
            out.append(e)
            if stop is not None and stop(e):
                return

    try:
        await asyncio.wait_for(go(), timeout)
    except TimeoutError:
        return out, False
    return out, True


async def test_initial_state_larger_than_watcher_buffer_kills_the_watch() -> None:
    """A watch from RV=0 on a cache holding more objects than ``watcher_buffer`` (default 1000)
    overflows its own buffer while registering: it is terminated at once and, since terminate()
    drops the oldest queued event, even the first initial ADDED is lost. Upstream sends the
    initial state outside the bounded buffer."""
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, watcher_buffer=5)) as cacher:
        for i in range(10):
            last = await storage.create(f"{PREFIX}default/o{i}", cm(f"o{i}"))
        await cacher.wait_until_fresh(int(last["metadata"]["resourceVersion"]))
        watch = cacher.watch(PREFIX, ListOptions(resource_version="0"))
        events, ended = await collect(aiter(watch), 1.0, stop=lambda e: False)
        await watch.close()
    names = [e.object["metadata"]["name"] for e in events]
    assert not ended and names == [f"o{i}" for i in range(10)], (ended, names)


async def test_send_initial_events_with_unset_rv_is_not_a_consistent_read() -> None:
    """sendInitialEvents=true with resourceVersion="" must sync the state at least to the
    store's revision when the request started (upstream waits for the cache to be fresh).
    The cacher uses whatever the cache has: an object created (and acknowledged) just before
    arrives *after* the initial-events-end bookmark, whose RV is older than that write."""
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX)) as cacher:
        await cacher.wait_ready()
        created = await storage.create(PREFIX + "default/a", cm("a"))
        opts = ListOptions(resource_version="", send_initial_events=True, allow_bookmarks=True)
        watch = cacher.watch(PREFIX, opts)
        it = aiter(watch)
        events = [await anext(it)]  # iterated directly by the request's task
        more, _ = await collect(it, 0.5)
        events += more
        await watch.close()
    kinds = [e.type for e in events]
    assert kinds[:2] == ["ADDED", "BOOKMARK"], kinds
    assert int(events[1].object["metadata"]["resourceVersion"]) >= int(created["metadata"]["resourceVersion"])


async def test_send_initial_events_with_rv_n_sends_no_state_and_no_bookmark() -> None:
    """sendInitialEvents=true, resourceVersionMatch=NotOlderThan, resourceVersion=N: the stream
    starts with synthetic ADDED events for the whole state (at >= N), then the annotated
    bookmark. The cacher only replays changes after N and never sends the bookmark, so a
    WatchList client waits forever for the end of its initial list."""
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX)) as cacher:
        await storage.create(PREFIX + "default/a", cm("a"))
        b = await storage.create(PREFIX + "default/b", cm("b"))
        await cacher.wait_until_fresh(int(b["metadata"]["resourceVersion"]))
        opts = ListOptions(
            resource_version=b["metadata"]["resourceVersion"],
            resource_version_match="NotOlderThan",
            send_initial_events=True,
            allow_bookmarks=True,
        )
        watch = cacher.watch(PREFIX, opts)
        events, _ = await collect(aiter(watch), 0.5)
        await watch.close()
    assert [e.type for e in events][:3] == ["ADDED", "ADDED", "BOOKMARK"], [e.type for e in events]
    assert events[2].object["metadata"].get("annotations") == {INITIAL_EVENTS_END: "true"}


@pytest.mark.parametrize("through_cacher", [False, True])
async def test_modified_out_of_predicate_deleted_carries_previous_object(through_cacher: bool) -> None:
    """Upstream (etcd3 watcher and cacheWatcher): when an update makes an object stop matching,
    the DELETED event carries the *previous* object (the one that matched) with the event's
    resourceVersion. Both implementations send the new, non-matching object instead."""
    storage = KVObjectStorage(MemoryKV())
    match = lambda o: o["data"]["tier"] == "db"  # noqa: E731
    start = await storage.create(PREFIX + "default/a", cm("a", tier="db"))

    async def retier(obj):
        obj["data"]["tier"] = "web"
        return obj

    opts = ListOptions(resource_version=start["metadata"]["resourceVersion"], predicate=match)
    if through_cacher:
        cacher = Cacher(storage, PREFIX)
        async with running(cacher):
            await cacher.wait_ready()
            watch = cacher.watch(PREFIX, opts)
            it = aiter(watch)
            nxt = asyncio.create_task(anext(it))
            await asyncio.sleep(0.01)
            updated = await storage.guaranteed_update(PREFIX + "default/a", retier)
            event = await asyncio.wait_for(nxt, 2)
            await watch.close()
    else:
        watch = storage.watch(PREFIX, opts)
        it = aiter(watch)
        nxt = asyncio.create_task(anext(it))
        await asyncio.sleep(0.01)
        updated = await storage.guaranteed_update(PREFIX + "default/a", retier)
        event = await asyncio.wait_for(nxt, 2)
        await watch.close()
    assert event.type == "DELETED"
    assert event.object["metadata"]["resourceVersion"] == updated["metadata"]["resourceVersion"]
    assert event.object["data"]["tier"] == "db", "DELETED carries the object that no longer matches"


async def test_direct_store_ignores_send_initial_events() -> None:
    """KVObjectStorage's watch (upstream's etcd3 watcher) never sends the initial-events-end
    bookmark, so a sendInitialEvents watch served without the cache never completes its list."""
    storage = KVObjectStorage(MemoryKV())
    await storage.create(PREFIX + "default/a", cm("a"))
    watch = storage.watch(PREFIX, ListOptions(send_initial_events=True, allow_bookmarks=True))
    events, _ = await collect(aiter(watch), 0.5)
    await watch.close()
    assert [e.type for e in events] == ["ADDED", "BOOKMARK"], [e.type for e in events]


@pytest.mark.parametrize("through_cacher", [False, True])
async def test_send_initial_events_false_still_sends_the_state(through_cacher: bool) -> None:
    """sendInitialEvents=false with resourceVersion="0" means 'start watching from now, no
    synthetic ADDED events' (upstream watchCache.getAllEventsSinceLocked). Both send the state."""
    storage = KVObjectStorage(MemoryKV())
    await storage.create(PREFIX + "default/a", cm("a"))
    opts = ListOptions(resource_version="0", send_initial_events=False)
    if through_cacher:
        cacher = Cacher(storage, PREFIX)
        async with running(cacher):
            await cacher.wait_ready()
            watch = cacher.watch(PREFIX, opts)
            events, _ = await collect(aiter(watch), 0.3)
            await watch.close()
    else:
        watch = storage.watch(PREFIX, opts)
        events, _ = await collect(aiter(watch), 0.3)
        await watch.close()
    assert events == [], [e.type for e in events]

"""Cacher-only behaviour (the conformance suite covers what it shares with the store)."""

from __future__ import annotations

import asyncio

from apiserver.storage.cacher import Cacher
from apiserver.storage.interface import INITIAL_EVENTS_END, ListOptions, WatchEvent
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from minikube_py.api.unstructured import Object
from tests.storage.conftest import running

PREFIX = "/registry/configmaps/"


def cm(name: str) -> Object:
    return {"metadata": {"name": name, "namespace": "default"}, "data": {}}


async def drain(watch: object, timeout: float = 2.0) -> list[WatchEvent]:
    """Events until ``timeout`` (the stream still open) or the end of the stream."""
    return (await drain_to_end(watch, timeout))[0]


async def drain_to_end(watch: object, timeout: float) -> tuple[list[WatchEvent], bool]:
    """(events, whether the stream ended before ``timeout``)."""
    out: list[WatchEvent] = []

    async def collect() -> None:
        async for event in watch:  # type: ignore[attr-defined]
            out.append(event)

    try:
        await asyncio.wait_for(collect(), timeout)
    except TimeoutError:
        return out, False
    return out, True


async def test_bookmarks_carry_the_cache_resource_version() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, bookmark_interval=0.05)) as cacher:
        created = await storage.create(PREFIX + "default/a", cm("a"))
        await cacher.wait_until_fresh(int(created["metadata"]["resourceVersion"]))
        watch = cacher.watch(PREFIX, ListOptions(resource_version="0", allow_bookmarks=True))
        events = await drain(watch, 0.3)
        await watch.close()
    assert events[0].type == "ADDED"
    bookmarks = [e for e in events if e.type == "BOOKMARK"]
    assert bookmarks and all(
        e.object["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"] for e in bookmarks
    )


async def test_no_bookmarks_unless_asked() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, bookmark_interval=0.05)) as cacher:
        watch = cacher.watch(PREFIX, ListOptions(resource_version="0"))
        assert await drain(watch, 0.3) == []
        await watch.close()


async def test_send_initial_events_ends_with_annotated_bookmark() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX)) as cacher:
        await storage.create(PREFIX + "default/a", cm("a"))
        await storage.create(PREFIX + "default/b", cm("b"))
        opts = ListOptions(allow_bookmarks=True, send_initial_events=True)
        await cacher.list(PREFIX, ListOptions())  # consistent read: the cache has both
        watch = cacher.watch(PREFIX, opts)
        events = await drain(watch, 0.3)
        await watch.close()
    assert [e.type for e in events] == ["ADDED", "ADDED", "BOOKMARK"]
    assert events[2].object["metadata"]["annotations"] == {INITIAL_EVENTS_END: "true"}


async def test_slow_watcher_is_terminated_and_stalls_nobody() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, watcher_buffer=5)) as cacher:
        seed = await storage.create(PREFIX + "default/seed", cm("seed"))
        rv = seed["metadata"]["resourceVersion"]
        await cacher.wait_until_fresh(int(rv))
        slow = cacher.watch(PREFIX, ListOptions(resource_version=rv))
        fast = cacher.watch(PREFIX, ListOptions(resource_version=rv))
        slow_it, fast_it = aiter(slow), aiter(fast)
        fast_events: list[WatchEvent] = []

        async def consume() -> None:
            async for event in fast_it:
                fast_events.append(event)
                if len(fast_events) == 20:
                    return

        consumer = asyncio.create_task(consume())
        first = asyncio.create_task(anext(slow_it))  # registers, then reads nothing more
        for i in range(20):
            await storage.create(f"{PREFIX}default/cm-{i}", cm(f"cm-{i}"))
            await asyncio.sleep(0)
        await asyncio.wait_for(consumer, 2)
        await first
        rest, ended = await drain_to_end(slow_it, 0.5)
    assert len(fast_events) == 20
    assert ended and len(rest) < 19  # terminated: ended without the remaining events


async def test_relist_after_store_compaction_terminates_watchers() -> None:
    kv = MemoryKV()
    storage = KVObjectStorage(kv)
    cacher = Cacher(storage, PREFIX)
    async with running(cacher):
        seed = await storage.create(PREFIX + "default/seed", cm("seed"))
        await cacher.wait_until_fresh(int(seed["metadata"]["resourceVersion"]))
        watch = cacher.watch(PREFIX, ListOptions(resource_version="0"))
        it = aiter(watch)
        assert (await anext(it)).type == "ADDED"
        # Writes without yielding to the reflector, then compaction past its position:
        # its KV watch expires, it relists, and the client's watch ends (clients re-watch).
        last = 0
        for i in range(10):
            last = await kv.create(f"{PREFIX}default/x{i}", b'{"metadata":{"name":"x"}}')
        await kv.compact(last)
        assert await drain_to_end(it, 2.0) == ([], True)
        await cacher.wait_until_fresh(last)
        listed = await cacher.list(PREFIX, ListOptions(resource_version="0"))
    assert len(listed.items) == 11


PODS = "/registry/pods/"


def node_of(obj: Object) -> str:
    return str((obj.get("spec") or {}).get("nodeName") or "")


def pod(name: str, node: str) -> Object:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"nodeName": node}}


def on_node(node: str, *, limit: int = 0, token: str = "", indexed: bool = True) -> ListOptions:
    """``fieldSelector=spec.nodeName=<node>``, with the index hint only when ``indexed``."""
    hint = {"spec.nodeName": node}.get if indexed else None
    return ListOptions(
        resource_version="0",
        limit=limit,
        continue_token=token,
        predicate=lambda obj: node_of(obj) == node,
        exact_match=hint,
    )


async def pages(cacher: Cacher, node: str, limit: int, *, indexed: bool) -> list[tuple[list[str], str]]:
    """Every page of a paged list: (names, continue token)."""
    out: list[tuple[list[str], str]] = []
    token = ""
    while True:
        page = await cacher.list(PODS, on_node(node, limit=limit, token=token, indexed=indexed))
        out.append(([o["metadata"]["name"] for o in page.items], page.continue_token))
        if not (token := page.continue_token):
            return out


async def test_index_lists_match_the_full_walk_through_updates_and_deletes() -> None:
    storage = KVObjectStorage(MemoryKV())
    cacher = Cacher(storage, PODS, indexers={"spec.nodeName": node_of})
    # Created before the cacher runs (the initial list builds the index) and after (events).
    for i in range(12):
        await storage.create(f"{PODS}default/p{i:02d}", pod(f"p{i:02d}", "a" if i % 3 else "b"))
    async with running(cacher):
        await storage.create(f"{PODS}default/q", pod("q", ""))
        await storage.guaranteed_update(f"{PODS}default/p01", lambda obj: _set_node(obj, "b"))  # a -> b
        deleted = await storage.delete(f"{PODS}default/p03")  # was on b
        await cacher.wait_until_fresh(int(deleted["metadata"]["resourceVersion"]))

        for node in ("a", "b", "", "nowhere"):
            full = await cacher.list(PODS, on_node(node, indexed=False))
            indexed = await cacher.list(PODS, on_node(node))
            assert indexed.items == full.items, node
            for limit in (1, 2, 3, 5, 100):
                assert await pages(cacher, node, limit, indexed=True) == await pages(
                    cacher, node, limit, indexed=False
                ), (node, limit)
        names = [o["metadata"]["name"] for o in (await cacher.list(PODS, on_node("b"))).items]
        assert names == ["p00", "p01", "p06", "p09"]
        assert [o["metadata"]["name"] for o in (await cacher.list(PODS, on_node(""))).items] == ["q"]
        assert cacher._indices["spec.nodeName"].keys() == {"a", "b", ""}  # emptied values go


async def _set_node(obj: Object | None, node: str) -> Object:
    assert obj is not None
    obj["spec"]["nodeName"] = node
    return obj


async def test_a_consistent_list_after_unrelated_writes_needs_no_progress_round_trip() -> None:
    """Writes under other prefixes move the store's revision but not this cache's: an
    in-process feed proves at once that nothing is pending for the prefix, so the list is
    answered at the store's current revision without asking for a progress event."""
    kv = MemoryKV()
    storage = KVObjectStorage(kv)
    async with running(Cacher(storage, PREFIX)) as cacher:
        await storage.create(PREFIX + "default/a", cm("a"))
        await cacher.wait_until_fresh(await storage.current_resource_version())
        for i in range(5):
            await storage.create(f"/registry/secrets/default/s{i}", cm(f"s{i}"))
        await asyncio.sleep(0)  # the cache's watch parks again (nothing for its prefix)

        async def no_progress() -> None:
            raise AssertionError("a progress round trip was requested")

        assert cacher._kv_watch is not None
        cacher._kv_watch.request_progress = no_progress  # type: ignore[method-assign]
        listed = await cacher.list(PREFIX, ListOptions())
        assert listed.resource_version == str(await storage.current_resource_version())
        assert [o["metadata"]["name"] for o in listed.items] == ["a"]
        await storage.create(PREFIX + "default/b", cm("b"))  # one for the prefix: must be seen
        cacher._kv_watch.request_progress = no_progress  # type: ignore[method-assign]
        listed = await asyncio.wait_for(cacher.list(PREFIX, ListOptions()), 5)
        assert [o["metadata"]["name"] for o in listed.items] == ["a", "b"]


async def test_ready_takes_waiting_events_without_suspending_and_keeps_the_order() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX)) as cacher:
        first = await storage.create(PREFIX + "default/a", cm("a"))
        await cacher.wait_until_fresh(int(first["metadata"]["resourceVersion"]))
        watch = cacher.watch(PREFIX, ListOptions(resource_version=first["metadata"]["resourceVersion"]))
        events = aiter(watch)
        created = [await storage.create(PREFIX + f"default/b{i}", cm(f"b{i}")) for i in range(5)]
        await cacher.wait_until_fresh(int(created[-1]["metadata"]["resourceVersion"]))
        head = await anext(events)
        assert watch.ready(0) == []
        rest = watch.ready(3) + watch.ready(10)
        assert watch.ready(10) == []  # nothing else waiting: no wait, just empty
        names = [e.object["metadata"]["name"] for e in (head, *rest)]
        assert names == ["b0", "b1", "b2", "b3", "b4"]
        later = await storage.create(PREFIX + "default/c", cm("c"))
        await cacher.wait_until_fresh(int(later["metadata"]["resourceVersion"]))
        assert (await anext(events)).object["metadata"]["name"] == "c"  # iteration goes on after
        await watch.close()
        assert watch.ready(10) == []  # the end sentinel is taken, not returned...
        assert [e async for e in events] == []  # ...and the stream still ends


async def test_ready_stops_at_a_terminated_watch() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX)) as cacher:
        first = await storage.create(PREFIX + "default/a", cm("a"))
        await cacher.wait_until_fresh(int(first["metadata"]["resourceVersion"]))
        watch = cacher.watch(PREFIX, ListOptions(resource_version=first["metadata"]["resourceVersion"]))
        events = aiter(watch)
        await storage.create(PREFIX + "default/b", cm("b"))
        two = await storage.create(PREFIX + "default/c", cm("c"))
        await cacher.wait_until_fresh(int(two["metadata"]["resourceVersion"]))
        assert (await anext(events)).object["metadata"]["name"] == "b"
        watch.terminate()  # e.g. too slow: "c" is still queued ahead of the end
        assert [e.object["metadata"]["name"] for e in watch.ready(10)] == ["c"]
        assert [e async for e in events] == []

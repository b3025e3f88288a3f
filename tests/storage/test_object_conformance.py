"""ObjectStorage conformance: every KV backend, directly and through the cacher."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from apiserver.storage.cacher import Cacher
from apiserver.storage.errors import (
    CompactedError,
    InvalidObjectError,
    KeyExistsError,
    KeyNotFoundError,
    PreconditionError,
    TooLargeResourceVersionError,
)
from apiserver.storage.interface import ListOptions, ObjectStorage, Preconditions, WatchEvent
from apiserver.storage.kv import KV
from minikube_py.api.unstructured import Object


def configmap(name: str, **data: str) -> Object:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "data": dict(data),
    }


def rv(obj: Object) -> int:
    return int(obj["metadata"]["resourceVersion"])


async def take(stream: AsyncIterator[WatchEvent], n: int, timeout: float = 5.0) -> list[WatchEvent]:
    async def collect() -> list[WatchEvent]:
        out: list[WatchEvent] = []
        async for event in stream:
            if event.type != "BOOKMARK":
                out.append(event)
            if len(out) == n:
                break
        return out

    return await asyncio.wait_for(collect(), timeout)


async def test_create_get_and_exists(store: ObjectStorage, prefix: str) -> None:
    created = await store.create(prefix + "default/a", configmap("a", k="v"))
    assert rv(created) > 0
    got = await store.get(prefix + "default/a")
    assert got["data"] == {"k": "v"}
    assert rv(got) == rv(created)
    with pytest.raises(KeyExistsError):
        await store.create(prefix + "default/a", configmap("a"))
    with pytest.raises(KeyNotFoundError):
        await store.get(prefix + "default/missing")


async def test_create_refuses_resource_version(store: ObjectStorage, prefix: str) -> None:
    obj = configmap("a")
    obj["metadata"]["resourceVersion"] = "5"
    with pytest.raises(InvalidObjectError, match="resourceVersion should not be set"):
        await store.create(prefix + "default/a", obj)


async def test_guaranteed_update_and_preconditions(store: ObjectStorage, prefix: str) -> None:
    key = prefix + "default/a"
    created = await store.create(key, configmap("a", n="0"))

    async def bump(obj: Object | None) -> Object:
        assert obj is not None
        obj["data"]["n"] = str(int(obj["data"]["n"]) + 1)
        return obj

    updated = await store.guaranteed_update(key, bump, preconditions=Preconditions(uid="uid-a"))
    assert updated["data"]["n"] == "1" and rv(updated) > rv(created)
    with pytest.raises(PreconditionError, match="UID in precondition: other"):
        await store.guaranteed_update(key, bump, preconditions=Preconditions(uid="other"))
    stale = Preconditions(resource_version=str(rv(created)))
    with pytest.raises(PreconditionError, match="ResourceVersion in precondition"):
        await store.guaranteed_update(key, bump, preconditions=stale)
    assert (await store.get(key))["data"]["n"] == "1"


async def test_guaranteed_update_noop_and_abort(store: ObjectStorage, prefix: str) -> None:
    key = prefix + "default/a"
    created = await store.create(key, configmap("a"))

    async def same(obj: Object | None) -> Object:
        assert obj is not None
        return obj

    assert rv(await store.guaranteed_update(key, same)) == rv(created)

    async def refuse(obj: Object | None) -> Object:
        raise ValueError("invalid")

    with pytest.raises(ValueError):
        await store.guaranteed_update(key, refuse)
    with pytest.raises(KeyNotFoundError):
        await store.guaranteed_update(prefix + "default/none", same)

    async def make(obj: Object | None) -> Object:
        assert obj is None
        return configmap("b")

    made = await store.guaranteed_update(prefix + "default/b", make, ignore_not_found=True)
    assert made["metadata"]["name"] == "b"


async def test_delete_with_preconditions(store: ObjectStorage, prefix: str) -> None:
    key = prefix + "default/a"
    created = await store.create(key, configmap("a", k="v"))
    with pytest.raises(PreconditionError):
        await store.delete(key, preconditions=Preconditions(uid="nope"))

    async def deny(obj: Object) -> None:
        raise PermissionError("not now")

    with pytest.raises(PermissionError):
        await store.delete(key, validate_deletion=deny)
    deleted = await store.delete(key, preconditions=Preconditions(uid="uid-a"))
    assert deleted["data"] == {"k": "v"} and rv(deleted) > rv(created)
    with pytest.raises(KeyNotFoundError):
        await store.get(key)
    with pytest.raises(KeyNotFoundError):
        await store.delete(key)


async def test_concurrent_writers_lose_no_update(store: ObjectStorage, prefix: str) -> None:
    key = prefix + "default/counter"
    await store.create(key, configmap("counter", n="0"))

    async def bump(obj: Object | None) -> Object:
        assert obj is not None
        await asyncio.sleep(0)  # let the other writers interleave between read and CAS
        obj["data"]["n"] = str(int(obj["data"]["n"]) + 1)
        return obj

    async def writer() -> None:
        for _ in range(5):
            await store.guaranteed_update(key, bump)

    await asyncio.gather(*(writer() for _ in range(8)))
    assert (await store.get(key))["data"]["n"] == "40"


async def test_paging_with_continue_is_a_consistent_snapshot(store: ObjectStorage, prefix: str) -> None:
    names = [f"cm-{i:02d}" for i in range(10)]
    for name in names:
        await store.create(f"{prefix}default/{name}", configmap(name))
    first = await store.list(prefix, ListOptions(limit=4))
    assert [o["metadata"]["name"] for o in first.items] == names[:4]
    assert first.continue_token and first.remaining_item_count == 6
    await store.create(f"{prefix}default/cm-05a", configmap("cm-05a"))  # after the snapshot
    await store.delete(f"{prefix}default/cm-09")
    seen = list(first.items)
    token = first.continue_token
    while token:
        page = await store.list(prefix, ListOptions(limit=4, continue_token=token))
        assert page.resource_version == first.resource_version
        seen += page.items
        token = page.continue_token
    assert [o["metadata"]["name"] for o in seen] == names


async def test_list_with_predicate_and_limit(store: ObjectStorage, prefix: str) -> None:
    for i in range(9):
        await store.create(f"{prefix}default/cm-{i}", configmap(f"cm-{i}", odd=str(i % 2)))
    opts = ListOptions(limit=2, predicate=lambda o: o["data"]["odd"] == "1")
    names: list[str] = []
    while True:
        page = await store.list(prefix, opts)
        names += [o["metadata"]["name"] for o in page.items]
        if not page.continue_token:
            break
        opts.continue_token = page.continue_token
    assert names == ["cm-1", "cm-3", "cm-5", "cm-7"]


async def test_list_resource_version_semantics(store: ObjectStorage, prefix: str) -> None:
    a = await store.create(prefix + "default/a", configmap("a", v="1"))

    async def change(obj: Object | None) -> Object:
        assert obj is not None
        obj["data"]["v"] = "2"
        return obj

    await store.guaranteed_update(prefix + "default/a", change)
    latest = await store.list(prefix, ListOptions())
    assert [o["data"]["v"] for o in latest.items] == ["2"]
    assert int(latest.resource_version) >= rv(a)
    any_rv = await store.list(prefix, ListOptions(resource_version="0"))
    assert any_rv.items
    exact = await store.list(prefix, ListOptions(resource_version=str(rv(a)), resource_version_match="Exact"))
    assert [o["data"]["v"] for o in exact.items] == ["1"]
    future = str(int(latest.resource_version) + 1000)
    with pytest.raises(TooLargeResourceVersionError):
        await store.list(prefix, ListOptions(resource_version=future))
    with pytest.raises(InvalidObjectError):
        await store.list(prefix, ListOptions(continue_token="not-a-token"))


async def test_consistent_list_sees_acknowledged_write(store: ObjectStorage, prefix: str) -> None:
    for i in range(5):
        await store.create(f"{prefix}default/cm-{i}", configmap(f"cm-{i}"))
        listed = await store.list(prefix, ListOptions())
        assert len(listed.items) == i + 1


async def test_watch_from_resource_version(store: ObjectStorage, prefix: str) -> None:
    start = await store.create(prefix + "default/zero", configmap("zero"))
    a = await store.create(prefix + "default/a", configmap("a", v="1"))

    async def change(obj: Object | None) -> Object:
        assert obj is not None
        obj["data"]["v"] = "2"
        return obj

    a2 = await store.guaranteed_update(prefix + "default/a", change)
    b = await store.create(prefix + "default/b", configmap("b"))
    gone = await store.delete(prefix + "default/a")
    watch = store.watch(prefix, ListOptions(resource_version=str(rv(start))))
    try:
        events = await take(aiter(watch), 4)
    finally:
        await watch.close()
    assert [(e.type, e.object["metadata"]["name"]) for e in events] == [
        ("ADDED", "a"),
        ("MODIFIED", "a"),
        ("ADDED", "b"),
        ("DELETED", "a"),
    ]
    assert [rv(e.object) for e in events] == [rv(a), rv(a2), rv(b), rv(gone)]
    assert events[3].object["data"] == {"v": "2"}  # the last state before deletion


async def test_watch_from_zero_sends_state_then_changes(store: ObjectStorage, prefix: str) -> None:
    await store.create(prefix + "default/a", configmap("a"))
    await store.create(prefix + "default/b", configmap("b"))
    watch = store.watch(prefix, ListOptions(resource_version="0"))
    stream = aiter(watch)
    try:
        initial = await take(stream, 2)
        assert {e.object["metadata"]["name"] for e in initial} == {"a", "b"}
        assert {e.type for e in initial} == {"ADDED"}
        await store.create(prefix + "default/c", configmap("c"))
        (live,) = await take(stream, 1)
        assert (live.type, live.object["metadata"]["name"]) == ("ADDED", "c")
    finally:
        await watch.close()


async def test_watch_predicate_transitions(store: ObjectStorage, prefix: str) -> None:
    start = await store.create(prefix + "default/a", configmap("a", tier="web"))

    async def retier(obj: Object | None) -> Object:
        assert obj is not None
        obj["data"]["tier"] = "db" if obj["data"]["tier"] == "web" else "web"
        return obj

    opts = ListOptions(resource_version=str(rv(start)), predicate=lambda o: o["data"]["tier"] == "db")
    watch = store.watch(prefix, opts)
    stream = aiter(watch)
    try:
        await store.guaranteed_update(prefix + "default/a", retier)  # web -> db: enters
        await store.guaranteed_update(prefix + "default/a", retier)  # db -> web: leaves
        events = await take(stream, 2)
    finally:
        await watch.close()
    assert [e.type for e in events] == ["ADDED", "DELETED"]


async def test_watch_in_order_without_gaps_under_concurrent_writes(store: ObjectStorage, prefix: str) -> None:
    seed = await store.create(prefix + "default/seed", configmap("seed"))
    watch = store.watch(prefix, ListOptions(resource_version=str(rv(seed))))
    stream = aiter(watch)

    async def writer(w: int) -> None:
        for i in range(10):
            await store.create(f"{prefix}default/w{w}-{i}", configmap(f"w{w}-{i}"))

    try:
        await asyncio.gather(*(writer(w) for w in range(4)))
        events = await take(stream, 40, timeout=10)
    finally:
        await watch.close()
    revisions = [rv(e.object) for e in events]
    assert revisions == sorted(revisions) and len(set(revisions)) == 40
    assert {e.object["metadata"]["name"] for e in events} == {
        f"w{w}-{i}" for w in range(4) for i in range(10)
    }


async def test_too_old_resource_version_is_expired(store: ObjectStorage, kv: KV, prefix: str) -> None:
    first = await store.create(prefix + "default/a", configmap("a", n="0"))

    async def bump(obj: Object | None) -> Object:
        assert obj is not None
        obj["data"]["n"] = str(int(obj["data"]["n"]) + 1)
        return obj

    for _ in range(60):  # more than the cacher's window of 50 events
        last = await store.guaranteed_update(prefix + "default/a", bump)
    await kv.compact(rv(last))
    if isinstance(store, Cacher):
        await store.wait_until_fresh(rv(last))
    watch = store.watch(prefix, ListOptions(resource_version=str(rv(first))))
    try:
        (event,) = await take(aiter(watch), 1)
    finally:
        await watch.close()
    assert event.type == "ERROR"
    assert event.object["code"] == 410 and event.object["reason"] == "Expired"
    assert event.object["message"].startswith(f"too old resource version: {rv(first)} (")
    with pytest.raises(CompactedError) as info:
        await store.list(prefix, ListOptions(resource_version=str(rv(first)), resource_version_match="Exact"))
    assert info.value.code == 410


async def test_continue_token_after_compaction_is_expired(store: ObjectStorage, kv: KV, prefix: str) -> None:
    for i in range(4):
        await store.create(f"{prefix}default/cm-{i}", configmap(f"cm-{i}"))
    page = await store.list(prefix, ListOptions(limit=2))
    last = await store.create(prefix + "default/zz", configmap("zz"))
    await kv.compact(rv(last))
    if isinstance(store, Cacher):  # once the cache moved past the token's snapshot
        await store.wait_until_fresh(rv(last))
    with pytest.raises(CompactedError, match="continue parameter is too old"):
        await store.list(prefix, ListOptions(limit=2, continue_token=page.continue_token))

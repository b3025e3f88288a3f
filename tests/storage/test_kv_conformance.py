"""KV contract conformance: memory, sqlite and a real etcd run the same tests."""

from __future__ import annotations

import asyncio

import pytest

from apiserver.storage.errors import (
    MAX_VALUE_BYTES,
    CompactedError,
    ConflictError,
    KeyExistsError,
    KeyNotFoundError,
    RequestTooLargeError,
    TooLargeResourceVersionError,
)
from apiserver.storage.kv import KV, EventType, WatchBatch


async def next_batch(it: object, timeout: float = 5.0) -> WatchBatch:
    batch = await asyncio.wait_for(anext(it), timeout)  # type: ignore[call-overload]
    assert isinstance(batch, WatchBatch)
    return batch


async def test_revisions_grow_by_one_per_write(kv: KV, prefix: str) -> None:
    base = await kv.current_revision()
    r1 = await kv.create(prefix + "a", b"1")
    r2 = await kv.update(prefix + "a", b"2", r1)
    r3, prev = await kv.delete(prefix + "a", r2)
    assert (r1, r2, r3) == (base + 1, base + 2, base + 3)
    assert prev.value == b"2" and prev.mod_revision == r2 and prev.create_revision == r1
    assert await kv.current_revision() == r3


async def test_typed_errors_and_failed_writes_allocate_nothing(kv: KV, prefix: str) -> None:
    r1 = await kv.create(prefix + "a", b"1")
    with pytest.raises(KeyExistsError):
        await kv.create(prefix + "a", b"x")
    await kv.update(prefix + "a", b"2", r1)
    with pytest.raises(ConflictError) as conflict:
        await kv.update(prefix + "a", b"3", r1)
    assert conflict.value.current_revision == r1 + 1
    with pytest.raises(ConflictError):
        await kv.delete(prefix + "a", r1)
    with pytest.raises(KeyNotFoundError):
        await kv.update(prefix + "missing", b"x", 1)
    with pytest.raises(KeyNotFoundError):
        await kv.delete(prefix + "missing")
    assert await kv.current_revision() == r1 + 1
    got = await kv.get(prefix + "a")
    assert got is not None and got.value == b"2" and got.create_revision == r1


async def test_value_over_the_limit_is_refused(kv: KV, prefix: str) -> None:
    with pytest.raises(RequestTooLargeError):
        await kv.create(prefix + "big", b"x" * (MAX_VALUE_BYTES + 1))
    assert await kv.get(prefix + "big") is None


async def test_range_limit_start_count_and_revision(kv: KV, prefix: str) -> None:
    revs = [await kv.create(f"{prefix}k{i}", str(i).encode()) for i in range(5)]
    await kv.create(prefix[:-1] + "x/outside", b"no")  # shares the prefix minus its slash
    page = await kv.range(prefix, limit=2, count=True)
    assert [k.key for k in page.kvs] == [prefix + "k0", prefix + "k1"]
    assert page.more and page.count == 5
    rest = await kv.range(prefix, start=prefix + "k1\x00", count=True)
    assert [k.key for k in rest.kvs] == [prefix + "k2", prefix + "k3", prefix + "k4"]
    assert not rest.more and rest.count in (0, 3)
    await kv.update(prefix + "k0", b"changed", revs[0])
    await kv.delete(prefix + "k4")
    past = await kv.range(prefix, revision=revs[-1])
    assert past.revision == revs[-1]
    assert (past.kvs[0].key, past.kvs[0].value) == (prefix + "k0", b"0")
    assert len(past.kvs) == 5
    old = await kv.get(prefix + "k0", revision=revs[0])
    assert old is not None and old.value == b"0"


async def test_watch_delivers_history_and_live_events_with_prev(kv: KV, prefix: str) -> None:
    r1 = await kv.create(prefix + "a", b"1")
    r2 = await kv.update(prefix + "a", b"2", r1)
    watch = kv.watch(prefix, r1)
    it = aiter(watch)
    try:
        seen = []
        while len(seen) < 2:
            seen += (await next_batch(it)).events
        r3, _ = await kv.delete(prefix + "a")
        while len(seen) < 3:
            seen += (await next_batch(it)).events
    finally:
        await watch.close()
    assert [(e.type, e.revision) for e in seen] == [
        (EventType.PUT, r1),
        (EventType.PUT, r2),
        (EventType.DELETE, r3),
    ]
    assert seen[0].prev_kv is None
    assert seen[1].prev_kv is not None and seen[1].prev_kv.value == b"1"
    assert seen[2].prev_kv is not None and seen[2].prev_kv.value == b"2"
    assert seen[2].kv.value == b""


async def test_watch_filters_prefix_and_reports_progress(kv: KV, prefix: str) -> None:
    watch = kv.watch(prefix, 0)
    it = aiter(watch)
    try:
        await kv.create(prefix[:-1] + "-other/x", b"1")
        r = await kv.create(prefix + "mine", b"1")
        batch = await next_batch(it)
        assert [e.kv.key for e in batch.events] == [prefix + "mine"]
        await kv.create(prefix[:-1] + "-other/y", b"1")
        current = await kv.current_revision()
        await watch.request_progress()
        progress = await next_batch(it)
        assert progress.events == [] and progress.revision >= current > r
    finally:
        await watch.close()


async def test_compaction_expires_old_revisions(kv: KV, prefix: str) -> None:
    r1 = await kv.create(prefix + "a", b"1")
    r2 = await kv.update(prefix + "a", b"2", r1)
    r3 = await kv.update(prefix + "a", b"3", r2)
    await kv.compact(r3)
    assert await kv.compacted_revision() >= r3
    with pytest.raises(CompactedError):
        await kv.range(prefix, revision=r1)
    watch = kv.watch(prefix, r1)
    with pytest.raises(CompactedError):
        await next_batch(aiter(watch))
    await watch.close()
    current = await kv.range(prefix, revision=r3)
    assert [k.value for k in current.kvs] == [b"3"]
    await kv.compact(r1)  # older than the compaction point: a no-op
    from_r3 = kv.watch(prefix, r3)
    try:
        assert [e.kv.value for e in (await next_batch(aiter(from_r3))).events] == [b"3"]
    finally:
        await from_r3.close()


async def test_reads_at_a_future_revision_are_too_large(kv: KV, prefix: str) -> None:
    await kv.create(prefix + "a", b"1")
    future = await kv.current_revision() + 1000
    with pytest.raises(TooLargeResourceVersionError):
        await kv.range(prefix, revision=future)
    with pytest.raises(TooLargeResourceVersionError):
        await kv.get(prefix + "a", revision=future)

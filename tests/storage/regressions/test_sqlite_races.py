"""SQLite backend: reads vs compaction, published vs committed revision, space reclaim, close.

Regression tests from the storage review: each test is named after the bug it guards
against and asserts the correct behaviour."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path

import pytest

from apiserver.storage.errors import CompactedError, StorageError, TooLargeResourceVersionError
from apiserver.storage.factory import open_kv
from apiserver.storage.interface import ListOptions
from apiserver.storage.objects import KVObjectStorage
from apiserver.storage.sqlite import SQLiteKV

P = "/registry/cm/"


async def test_range_at_revision_races_compaction_and_returns_wrong_data(tmp_path: Path) -> None:
    """range() checks the compaction point on the event loop, then queues the SQL on the reader
    thread. If a compaction commits in between, the read silently runs over deleted rows: it
    must raise CompactedError (or return the true state at r1), never an empty list."""
    kv = await open_kv(f"sqlite:///{tmp_path / 'store.db'}")
    assert isinstance(kv, SQLiteKV)
    try:
        r1 = await kv.create(P + "a", b"v1")
        r2 = await kv.update(P + "a", b"v2", r1)
        r3 = await kv.update(P + "a", b"v3", r2)
        kv._readers.submit(time.sleep, 0.3)  # the reader thread is busy (e.g. a big list)
        read = asyncio.create_task(kv.range(P, revision=r1))
        await asyncio.sleep(0)  # the range passed its compaction check and is queued
        await kv.compact(r3)
        try:
            result = await read
        except CompactedError:
            return
        assert [(k.key, k.value) for k in result.kvs] == [(P + "a", b"v1")], result
    finally:
        await kv.close()


async def test_get_at_revision_races_compaction(tmp_path: Path) -> None:
    kv = await open_kv(f"sqlite:///{tmp_path / 'store.db'}")
    assert isinstance(kv, SQLiteKV)
    try:
        r1 = await kv.create(P + "a", b"v1")
        r2 = await kv.update(P + "a", b"v2", r1)
        await kv.update(P + "a", b"v3", r2)
        kv._readers.submit(time.sleep, 0.3)
        read = asyncio.create_task(kv.get(P + "a", revision=r1))
        await asyncio.sleep(0)
        await kv.compact(r2 + 1)
        try:
            got = await read
        except CompactedError:
            return
        assert got is not None and got.value == b"v1", f"key reported absent at r1: {got}"
    finally:
        await kv.close()


async def test_paged_list_under_write_load_fails_with_future_revision(tmp_path: Path) -> None:
    """range(revision=0) answers at the *committed* revision of the database (read_revision in
    the reader's transaction), which runs ahead of the published feed.revision: COMMIT happens
    on the writer thread before the event loop runs _deliver. Reading the next page at the
    revision the first page reported then fails with TooLargeResourceVersionError ('future
    revision'). No injection: ordinary concurrent writers to another prefix suffice."""
    kv = await open_kv(f"sqlite:///{tmp_path / 'store.db'}")
    storage = KVObjectStorage(kv)
    stop = False

    async def writer(w: int) -> None:
        i = 0
        while not stop:
            await kv.create(f"/registry/other/{w}-{i}", b"v")
            i += 1

    try:
        for i in range(10):
            await kv.create(f"{P}{i}", b'{"metadata":{}}')
        writers = [asyncio.create_task(writer(w)) for w in range(8)]
        failures = 0
        try:
            for _ in range(300):
                first = await storage.list(P, ListOptions(limit=2))
                try:
                    await storage.list(P, ListOptions(limit=2, continue_token=first.continue_token))
                except TooLargeResourceVersionError:
                    failures += 1
        finally:
            stop = True
            await asyncio.gather(*writers)
        assert failures == 0, f"{failures}/300 continue pages failed with 'too large resource version'"
    finally:
        await kv.close()


async def test_compaction_reclaims_free_pages(tmp_path: Path) -> None:
    """The module promises compaction returns free pages with incremental_vacuum. Executed with
    conn.execute() and never stepped to completion, the pragma frees one page per call."""
    path = tmp_path / "store.db"
    kv = await open_kv(f"sqlite:///{path}")
    try:
        revs = {f"{P}{i}": await kv.create(f"{P}{i}", b"x" * 4000) for i in range(200)}
        for key, rev in revs.items():
            revs[key] = await kv.update(key, b"y" * 10, rev)
        await kv.compact(await kv.current_revision())
    finally:
        await kv.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        conn.close()
    assert free <= 1, f"{free} free pages left after compaction's incremental_vacuum"


async def test_write_queued_after_close_hangs_forever(tmp_path: Path) -> None:
    """A write racing with close() (in-flight request during shutdown) is queued behind the
    writer's stop sentinel and its future is never resolved."""
    kv = await open_kv(f"sqlite:///{tmp_path / 'store.db'}")
    closing = asyncio.create_task(kv.close())
    await asyncio.sleep(0)  # close() queued the sentinel
    with pytest.raises(StorageError):
        await asyncio.wait_for(kv.create(P + "late", b"x"), 2)
    await closing


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_watch_never_ends_after_store_close(backend: str, tmp_path: Path) -> None:
    """close() only wakes FeedWatch iterators; they go back to sleep on a feed nobody will
    publish to again, so every open watch (and the task iterating it) hangs forever."""
    kv = await open_kv("memory://" if backend == "memory" else f"sqlite:///{tmp_path / 's.db'}")
    watch = kv.watch(P, 0)

    async def consume() -> None:
        async for _ in watch:
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.05)
    await kv.close()
    with contextlib.suppress(StorageError):  # ending with an error is fine too
        await asyncio.wait_for(task, 1)

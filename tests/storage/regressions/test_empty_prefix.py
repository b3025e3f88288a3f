"""prefix_end("") is etcd's "\\x00" (= to the end of the keyspace), but memory/sqlite use it as
a literal upper bound, so the empty prefix selects nothing in ranges and in SQLite's history
reads, while live watch events (startswith("")) match everything: a watch on "" that starts
in history silently skips every historical event.

Regression tests from the storage review: each test is named after the bug it guards
against and asserts the correct behaviour."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from apiserver.storage.factory import open_kv


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_range_over_the_empty_prefix_returns_every_key(backend: str, tmp_path: Path) -> None:
    kv = await open_kv("memory://" if backend == "memory" else f"sqlite:///{tmp_path / 's.db'}")
    try:
        await kv.create("/registry/a", b"1")
        await kv.create("/registry/b", b"2")
        assert [k.key for k in (await kv.range("")).kvs] == ["/registry/a", "/registry/b"]
    finally:
        await kv.close()


async def test_sqlite_watch_on_empty_prefix_skips_history(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    kv = await open_kv(url)
    r1 = await kv.create("/registry/a", b"1")
    await kv.create("/registry/b", b"2")
    await kv.close()
    kv = await open_kv(url)  # history now only in the database
    try:
        watch = kv.watch("", r1)
        it = aiter(watch)
        nxt = asyncio.create_task(anext(it))
        await asyncio.sleep(0.1)
        r3 = await kv.create("/registry/c", b"3")
        batch = await asyncio.wait_for(nxt, 2)
        await watch.close()
        assert [e.revision for e in batch.events] == [r1, r1 + 1, r3][: len(batch.events)], batch
    finally:
        await kv.close()

"""``sqlite:///path``: the embedded default store, kine-style, on the stdlib ``sqlite3``.

Data model:

* ``log`` is append-only: one row per write, ``id`` = the revision (explicit, strictly
  increasing, assigned by the single writer), with the key's create revision, the previous mod
  revision and the previous value (so watch events carry ``prev_kv`` even after compaction).
* ``current`` holds the latest value of every live key, updated in the same transaction, so
  ranges at the current revision never scan history.
* ``meta`` records the compaction point.

Concurrency: one writer thread owns the write connection and applies queued writes in *group
commits* (every write waiting when a transaction starts joins it; each keeps its own
compare-and-swap check). A write is acknowledged only after COMMIT, and its event is published
to the ``WatchFeed`` on the event loop before the acknowledgement, so watchers see revisions in
order with no gaps and wake without polling. Reads run on a second thread with its own
connection (WAL readers never block the writer).

Durability: WAL with ``synchronous=NORMAL`` by default. A committed transaction is in the WAL
file before COMMIT returns, so it survives ``kill -9`` of the process; only an OS crash or power
loss can lose the last commits (never corrupting the file). ``?synchronous=full`` fsyncs the WAL
on every commit and survives power loss too, at the cost ``benchmarks/storage.py`` measures.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from apiserver.storage import sqlite_schema as schema
from apiserver.storage.errors import (
    CompactedError,
    StorageError,
    UnavailableError,
)
from apiserver.storage.kv import (
    CREATE,
    Event,
    KeyValue,
    RangeResult,
    Watch,
    check_revision,
    check_value_size,
    key_range_end,
)
from apiserver.storage.watchfeed import FeedWatch, WatchFeed

T = TypeVar("T")
FEED_CAPACITY = 10_000
MAX_GROUP = 512


@dataclass(frozen=True, slots=True)
class _Write:
    """A queued write. ``expected`` is ``kv.CREATE`` for a create, 0 for an unconditional delete."""

    key: str
    value: bytes | None  # None = delete
    expected: int
    future: asyncio.Future[Event]


@dataclass(frozen=True, slots=True)
class _Job:
    """Maintenance run alone on the writer connection (compaction)."""

    run: Callable[[sqlite3.Connection], object]
    future: asyncio.Future[object]


class SQLiteKV:
    """See ``apiserver.storage.kv`` for the contract and this module for the design."""

    def __init__(self, path: Path, synchronous: str, writer: sqlite3.Connection) -> None:
        self._path = path
        self._synchronous = synchronous
        self._loop = asyncio.get_running_loop()
        self._revision = schema.read_revision(writer)
        self._committed = self._revision  # set by the writer thread after each COMMIT
        self._compacted = schema.read_compacted(writer)
        self._closing = False
        self.feed = WatchFeed(self._revision, capacity=FEED_CAPACITY)
        self._queue: queue.SimpleQueue[_Write | _Job | None] = queue.SimpleQueue()
        self._writer_thread = threading.Thread(
            target=self._write_loop, args=(writer,), name="sqlite-writer", daemon=True
        )
        self._readers = ThreadPoolExecutor(1, "sqlite-reader", initializer=self._open_reader)
        self._local = threading.local()
        self._writer_thread.start()

    @classmethod
    async def open(cls, path: Path, synchronous: str = "normal") -> SQLiteKV:
        """Open (creating if needed) the database; raise StoreConfigError when unusable."""
        writer = await asyncio.to_thread(schema.connect_writer, path, synchronous)
        return cls(path, synchronous, writer)

    # reads

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        self._check_revision(revision)
        kv = await self._read(schema.get, key, revision)
        if kv is not None:
            await self._visible(kv.mod_revision)
        return kv

    async def range(
        self, prefix: str, *, start: str = "", limit: int = 0, revision: int = 0, count: bool = False
    ) -> RangeResult:
        self._check_revision(revision)
        begin, end = max(prefix, start), key_range_end(prefix)
        result = await self._read(schema.range_, begin, end, limit, revision, count)
        await self._visible(result.revision)
        return result

    async def _visible(self, revision: int) -> None:
        """Wait until watchers (and ``current_revision``) have caught up with a revision a read
        saw: the writer commits before the event loop publishes, so reads may be a step ahead."""
        while self.feed.revision < revision and not self.feed.closed:
            await self.feed.changed().wait()

    async def current_revision(self) -> int:
        return self.feed.revision

    async def compacted_revision(self) -> int:
        return self._compacted

    def watch(self, prefix: str, start_revision: int) -> Watch:
        return FeedWatch(self.feed, prefix, start_revision, self._history, lambda: self._compacted)

    # writes

    async def create(self, key: str, value: bytes) -> int:
        check_value_size(key, value)
        return (await self._write(key, value, CREATE)).revision

    async def update(self, key: str, value: bytes, expected_revision: int) -> int:
        check_value_size(key, value)
        return (await self._write(key, value, expected_revision)).revision

    async def delete(self, key: str, expected_revision: int = 0) -> tuple[int, KeyValue]:
        event = await self._write(key, None, expected_revision)
        assert event.prev_kv is not None
        return event.revision, event.prev_kv

    async def compact(self, revision: int) -> None:
        revision = min(revision, self.feed.revision)
        if revision <= self._compacted:
            return
        self._compacted = revision  # watchers below it fail from now on
        self.feed.trim_before(revision)
        future: asyncio.Future[object] = self._loop.create_future()
        self._queue.put(_Job(lambda conn: schema.compact(conn, revision), future))
        await future

    async def close(self) -> None:
        """Finish queued writes, then stop; later writes fail and every watch ends."""
        if self._closing:
            return
        self._closing = True
        self._queue.put(None)
        await asyncio.to_thread(self._writer_thread.join)
        self._readers.shutdown(wait=True)
        self.feed.close()

    # internals: the writer thread

    async def _write(self, key: str, value: bytes | None, expected: int) -> Event:
        if self._closing:
            raise UnavailableError("sqlite store is closed")
        future: asyncio.Future[Event] = self._loop.create_future()
        self._queue.put(_Write(key, value, expected, future))
        return await future

    def _write_loop(self, conn: sqlite3.Connection) -> None:
        revision = self._revision
        backlog: list[_Write | _Job | None] = []
        while True:
            first = backlog.pop() if backlog else self._queue.get()
            if first is None:
                break
            if isinstance(first, _Job):
                self._run_job(conn, first)
                continue
            group = [first]
            while len(group) < MAX_GROUP and not backlog:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if isinstance(item, _Write):
                    group.append(item)
                else:
                    backlog.append(item)
            revision, outcomes = self._commit_group(conn, revision, group)
            self._committed = revision
            self._loop.call_soon_threadsafe(self._deliver, group, outcomes)
        conn.close()

    def _run_job(self, conn: sqlite3.Connection, job: _Job) -> None:
        def settle(result: object, error: BaseException | None) -> None:
            if job.future.done():
                return
            if error is None:
                job.future.set_result(result)
            else:
                job.future.set_exception(error)

        try:
            result = job.run(conn)
        except Exception as err:  # the writer thread must outlive any failure
            _rollback(conn)
            error = UnavailableError(f"sqlite store maintenance failed: {err}")
            self._loop.call_soon_threadsafe(settle, None, error)
            return
        self._loop.call_soon_threadsafe(settle, result, None)

    def _commit_group(
        self, conn: sqlite3.Connection, revision: int, group: list[_Write]
    ) -> tuple[int, list[Event | StorageError]]:
        outcomes: list[Event | StorageError] = []
        start = revision
        try:
            conn.execute("BEGIN IMMEDIATE")
            for write in group:
                try:
                    event = schema.apply(conn, revision + 1, write.key, write.value, write.expected)
                except StorageError as err:
                    outcomes.append(err)
                    continue
                revision += 1
                outcomes.append(event)
            conn.execute("COMMIT")
        except Exception as err:  # the writer thread must outlive any failure
            _rollback(conn)
            failure = UnavailableError(f"sqlite store write failed: {err}")
            return start, [failure] * len(group)
        return revision, outcomes

    def _deliver(self, group: list[_Write], outcomes: list[Event | StorageError]) -> None:
        self.feed.publish([o for o in outcomes if isinstance(o, Event)])
        for write, outcome in zip(group, outcomes, strict=True):
            if write.future.done():
                continue
            if isinstance(outcome, Event):
                write.future.set_result(outcome)
            else:
                write.future.set_exception(outcome)

    # internals: the reader thread

    def _open_reader(self) -> None:
        self._local.conn = schema.connect_reader(self._path)

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        def call() -> T:
            try:
                return fn(self._local.conn, *args)
            except sqlite3.Error as err:
                raise UnavailableError(f"sqlite store read failed: {err}") from err

        return await self._loop.run_in_executor(self._readers, call)

    async def _history(self, prefix: str, first: int, last: int) -> list[Event]:
        events, compacted = await self._read(schema.events, prefix, key_range_end(prefix), first, last)
        if first < compacted:
            raise CompactedError(
                "mvcc: required revision has been compacted",
                compact_revision=compacted,
                requested=first,
            )
        return events

    def _check_revision(self, revision: int) -> None:
        check_revision(revision, compacted=self._compacted, current=self._committed)


def _rollback(conn: sqlite3.Connection) -> None:
    with contextlib.suppress(sqlite3.Error):
        if conn.in_transaction:
            conn.execute("ROLLBACK")

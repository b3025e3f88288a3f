"""``EtcdWatch``: the ``Watch`` contract over an etcd v3 watch stream.

Watches resume by themselves: when the stream breaks (etcd restart, member failover) it is
re-created from the last delivered revision + 1 with jittered backoff, so nothing is lost or
repeated.

etcd before 3.4.25 / 3.5.8 answers a ``WatchProgressRequest`` out of band (etcd#15220): on
3.4.23 the progress revision often arrives *before* events it covers. Unless the member is
3.4.31+ / 3.5.13+ (what Kubernetes requires for these bookmarks), a requested bookmark above
the last delivered revision is checked by replaying the keyspace's events in between (every
revision has at least one event) and held back until the events under the prefix it covers
have been delivered. If that replay is compacted away the bookmark is dropped, so ask for
bookmarks more often than the compactor runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol

import grpc
from aetcd import rpc

from apiserver.storage.errors import CompactedError, StorageError, UnavailableError
from apiserver.storage.etcd_wire import (
    ALL_KEYS,
    BACKOFF_MAX,
    BACKOFF_MIN,
    CALL_TIMEOUT,
    RESUMABLE,
    caller_cancelled,
    one_line,
    to_event,
    watch_request,
)
from apiserver.storage.kv import WatchBatch, prefix_end


class WatchedStore(Protocol):
    """What a watch needs of the etcd store that opened it (``EtcdKV``): new watch streams,
    what it learns of compaction, and the translation of grpc errors. A protocol here, so this
    module does not import the store that imports it."""

    @property
    def ordered_progress(self) -> bool: ...

    def watch_stream(self) -> Any: ...

    def learn_compacted(self, revision: int) -> None: ...

    async def storage_error(self, err: Any, requested: int = 0) -> StorageError: ...


class EtcdWatch:
    """A ``Watch`` on one prefix that outlives broken streams (see the module docstring)."""

    def __init__(self, store: WatchedStore, prefix: str, start_revision: int) -> None:
        self._store = store
        self._prefix = prefix
        self._next = start_revision  # the oldest revision not delivered yet
        self._call: Any = None
        self._created = False
        self._closed = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._progress_wanted = False
        self._held_bookmark: tuple[int, int] | None = None  # (revision, deliver after)
        self._backoff = BACKOFF_MIN

    def __aiter__(self) -> AsyncIterator[WatchBatch]:
        return self._batches()

    async def request_progress(self) -> None:
        """Ask etcd for a bookmark; it arrives as an empty batch once it is safe to deliver."""
        self._progress_wanted = True
        if self._created:
            await self._send_progress()

    async def close(self) -> None:
        self._closed.set()
        if self._call is not None:
            self._call.cancel()

    async def _batches(self) -> AsyncIterator[WatchBatch]:
        while not self._closed.is_set():
            try:
                async with contextlib.aclosing(self._stream()) as batches:
                    async for batch in batches:
                        yield batch
            except grpc.aio.AioRpcError as err:
                if self._closed.is_set():
                    return
                if err.code() not in RESUMABLE:
                    raise await self._store.storage_error(err, self._next) from None
            except asyncio.CancelledError:  # close() cancelled the stream
                if not self._closed.is_set() or caller_cancelled():
                    raise
            if await self._closed_within(self._backoff * random.uniform(0.5, 1.0)):
                return
            self._backoff = min(self._backoff * 2, BACKOFF_MAX)

    async def _stream(self) -> AsyncGenerator[WatchBatch, None]:
        call = self._call = self._store.watch_stream()
        try:
            prefix = self._prefix.encode() or ALL_KEYS
            await self._write(watch_request(prefix, prefix_end(self._prefix).encode(), self._next))
            while not self._closed.is_set():
                response = await call.read()
                if response is grpc.aio.EOF:
                    return
                batch = await self._handle(response)
                if batch is not None:
                    yield batch
        finally:
            self._call, self._created = None, False
            call.cancel()

    async def _handle(self, response: Any) -> WatchBatch | None:
        if response.compact_revision:
            self._store.learn_compacted(int(response.compact_revision))
            raise CompactedError(
                f"etcdserver: mvcc: required revision has been compacted (watch from {self._next})",
                compact_revision=int(response.compact_revision),
                requested=self._next,
            )
        if response.canceled:
            raise UnavailableError(f"etcd canceled the watch: {one_line(response.cancel_reason)}")
        if response.created:
            self._created, self._backoff = True, BACKOFF_MIN
            if self._progress_wanted:
                await self._send_progress()
            return None
        if response.events:
            return self._events(response.events)
        # Progress: periodic ones (own watch id) are ordered with events; requested ones
        # (watch id -1) are not on old members.
        trusted = response.watch_id != -1 or self._store.ordered_progress
        return await self._progress(int(response.header.revision), trusted=trusted)

    def _events(self, raw: Any) -> WatchBatch | None:
        events = [event for event in map(to_event, raw) if event.revision >= self._next]
        if not events:
            return None
        revision = events[-1].revision
        held = self._held_bookmark
        if held is not None and revision >= held[1]:
            revision, self._held_bookmark, self._progress_wanted = max(revision, held[0]), None, False
        self._next = revision + 1
        return WatchBatch(events, revision)

    async def _progress(self, revision: int, *, trusted: bool) -> WatchBatch | None:
        delivered = self._next - 1
        if revision > delivered and not trusted:
            try:
                changed = await self._last_change(delivered, revision)
            except StorageError:
                return None  # cannot prove it safe: drop this bookmark
            if changed > delivered:
                self._held_bookmark = (revision, changed)
                return None
        self._next = max(self._next, revision + 1)
        self._progress_wanted = False
        return WatchBatch([], self._next - 1)

    async def _last_change(self, after: int, upto: int) -> int:
        """The newest revision in (after, upto] that changed a key under the prefix (``after``
        if none). Replays the whole keyspace: seeing revision >= upto proves it complete."""
        if upto <= max(after, 1):
            return after
        wanted, newest = self._prefix.encode(), after
        call = self._store.watch_stream()
        try:
            async with asyncio.timeout(CALL_TIMEOUT):
                await call.write(watch_request(ALL_KEYS, ALL_KEYS, after + 1, replay=True))
                while True:
                    response = await call.read()
                    if response is grpc.aio.EOF or response.canceled:
                        raise UnavailableError("etcd ended a watch replay")
                    for event in response.events:
                        if event.kv.mod_revision <= upto and event.kv.key.startswith(wanted):
                            newest = int(event.kv.mod_revision)
                    if response.events and response.events[-1].kv.mod_revision >= upto:
                        return newest
        except grpc.aio.AioRpcError as err:
            raise await self._store.storage_error(err) from None
        except TimeoutError:
            raise UnavailableError(f"etcd: replaying revisions {after + 1}..{upto} timed out") from None
        finally:
            call.cancel()

    async def _send_progress(self) -> None:
        try:
            await self._write(rpc.WatchRequest(progress_request=rpc.WatchProgressRequest()))
        except grpc.aio.AioRpcError:
            pass  # the stream broke: the request is re-sent when it is re-created
        except asyncio.CancelledError:
            if caller_cancelled():
                raise

    async def _write(self, request: Any) -> None:
        async with self._write_lock:
            if self._call is not None and not self._call.done():
                await self._call.write(request)

    async def _closed_within(self, delay: float) -> bool:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self._closed.wait()
        return self._closed.is_set()

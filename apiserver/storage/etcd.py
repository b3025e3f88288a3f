"""The ``KV`` contract over etcd v3 (``etcd://host:port[,host:port...]``).

Transport: one ``grpc.aio`` channel over every endpoint (pick-first, so a dead member is
skipped), aetcd 1.0.0's raw stubs (``aetcd.rpc``), keepalive, waitForReady on KV calls and a
deadline on every call. Writes are single-op ``Txn``s comparing the key's mod revision; the
failure branch reads the key, so a lost compare-and-swap reports the current revision in the
same round trip.

etcd has no API for the compaction point: ``compacted_revision`` searches for the oldest
readable revision, starting from the last one this client learnt (one call when it has not
moved). Watches (resuming, with checked bookmarks) are ``EtcdWatch``, in ``etcd_watch``.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import grpc
from aetcd import rpc

from apiserver.storage.errors import (
    CompactedError,
    KeyExistsError,
    RequestTooLargeError,
    StorageError,
    StoreConfigError,
    TooLargeResourceVersionError,
    UnavailableError,
)
from apiserver.storage.etcd_watch import EtcdWatch
from apiserver.storage.etcd_wire import (
    ALL_KEYS,
    BACKOFF_MIN,
    CALL_TIMEOUT,
    CHANNEL_OPTIONS,
    CODE,
    REQUIRE_LEADER,
    TRANSIENT,
    exists,
    grpc_target,
    key_value,
    mod_is,
    one_line,
    progress_is_ordered,
    put,
    raise_if_failed,
)
from apiserver.storage.kv import KeyValue, RangeResult, check_value_size, prefix_end

__all__ = ["CALL_TIMEOUT", "CONNECT_TIMEOUT", "EtcdKV", "EtcdWatch", "open_etcd"]

CONNECT_TIMEOUT = 3.0
_progress_is_ordered = progress_is_ordered  # re-exported: tests import it from this module


async def open_etcd(endpoints: list[str], *, timeout: float = CONNECT_TIMEOUT) -> EtcdKV:
    """Connect to the etcd members at ``endpoints`` ("host:port") and check that one answers
    within ``timeout`` seconds; otherwise raise ``StoreConfigError``."""
    where = ",".join(endpoints)
    channel = grpc.aio.insecure_channel(await grpc_target(endpoints), options=CHANNEL_OPTIONS)
    store = EtcdKV(channel)
    try:
        await store.ping(timeout)
    except StorageError as err:
        await channel.close()
        raise StoreConfigError(f"cannot reach etcd at {where}: {err}") from None
    return store


READ_ATTEMPTS = 5  # a read racing a member's death is retried this often


class EtcdKV:
    """``KV`` over etcd. Create it with ``open_etcd`` inside the running event loop."""

    def __init__(self, channel: Any) -> None:
        self._channel = channel
        self._kv = rpc.KVStub(channel)
        self._watch = rpc.WatchStub(channel)
        self._maintenance = rpc.MaintenanceStub(channel)
        self._seen = 0  # newest store revision seen in any response
        self._compacted = 0  # a lower bound of the compaction point
        self._ordered_progress = False  # the member orders progress responses with events
        self._watches: weakref.WeakSet[EtcdWatch] = weakref.WeakSet()

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        request = rpc.RangeRequest(key=key.encode(), revision=revision)
        response = await self._call(self._kv.Range, request, revision=revision)
        return key_value(response.kvs[0]) if response.kvs else None

    async def range(
        self, prefix: str, *, start: str = "", limit: int = 0, revision: int = 0, count: bool = False
    ) -> RangeResult:
        """Keys under ``prefix`` from ``start`` on. ``revision`` of the result is the one the
        read was served at (the requested one, else the current one); etcd always counts."""
        key = max(start, prefix) or "\x00"
        end = prefix_end(prefix).encode()
        request = rpc.RangeRequest(key=key.encode(), range_end=end, limit=limit, revision=revision)
        response = await self._call(self._kv.Range, request, revision=revision)
        kvs = [key_value(kv) for kv in response.kvs]
        served_at = revision or int(response.header.revision)
        return RangeResult(kvs, served_at, bool(response.more), int(response.count))

    async def create(self, key: str, value: bytes) -> int:
        check_value_size(key, value)
        response = await self._txn(key, [mod_is(key, 0)], put(key, value))
        if not response.succeeded:
            raise KeyExistsError(f"key already exists: {key}", key=key)
        return int(response.header.revision)

    async def update(self, key: str, value: bytes, expected_revision: int) -> int:
        check_value_size(key, value)
        compares = [exists(key), mod_is(key, expected_revision)]
        response = await self._txn(key, compares, put(key, value))
        raise_if_failed(key, response)
        return int(response.header.revision)

    async def delete(self, key: str, expected_revision: int = 0) -> tuple[int, KeyValue]:
        compares = [exists(key)] + ([mod_is(key, expected_revision)] if expected_revision else [])
        op = rpc.RequestOp(request_delete_range=rpc.DeleteRangeRequest(key=key.encode(), prev_kv=True))
        response = await self._txn(key, compares, op)
        raise_if_failed(key, response)
        deleted = response.responses[0].response_delete_range.prev_kvs[0]
        return int(response.header.revision), key_value(deleted)

    def watch(self, prefix: str, start_revision: int) -> EtcdWatch:
        """Watch ``prefix`` from ``start_revision``. 0 starts after the newest revision this
        client has seen, so every change made after this call is delivered."""
        watch = EtcdWatch(self, prefix, start_revision or self._seen + 1)
        self._watches.add(watch)
        return watch

    async def current_revision(self) -> int:
        request = rpc.RangeRequest(key=ALL_KEYS, count_only=True)
        return int((await self._call(self._kv.Range, request)).header.revision)

    async def compact(self, revision: int) -> None:
        """Compact physically up to ``revision`` (clipped to the current revision); a revision
        at or below the compaction point is a no-op."""
        revision = min(revision, await self.current_revision())
        if revision <= max(self._compacted, 1):
            return
        request = rpc.CompactionRequest(revision=revision, physical=True)
        try:
            await self._kv.Compact(request, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as err:
            if err.code() != CODE.OUT_OF_RANGE:  # already compacted further
                raise await self.storage_error(err) from None
        self.learn_compacted(revision)

    async def compacted_revision(self) -> int:
        """The oldest readable revision once compacted, else 0. etcd has no API for it: this
        binary-searches ``Range(revision=r)`` between the last known value and now."""
        low = max(self._compacted, 1)
        if await self._readable_at(low):
            return 0 if low == 1 else low
        high = await self.current_revision()  # invariant: low unreadable, high readable
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (low, middle) if await self._readable_at(middle) else (middle, high)
        self.learn_compacted(high)
        return high

    async def ping(self, timeout: float = CONNECT_TIMEOUT) -> int:
        """Wait up to ``timeout`` seconds for a member to answer; return its member id.
        Raises ``UnavailableError`` with grpc's reason (e.g. connection refused)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            remaining = max(deadline - loop.time(), 0.05)
            try:
                response = await self._maintenance.Status(rpc.StatusRequest(), timeout=remaining)
            except grpc.aio.AioRpcError as err:
                if err.code() != CODE.UNAVAILABLE or loop.time() + 0.2 >= deadline:
                    raise UnavailableError(f"{err.code().name}: {one_line(err.details())}") from None
                await asyncio.sleep(0.2)
                continue
            self._note(int(response.header.revision))
            self._ordered_progress = progress_is_ordered(response.version)
            return int(response.header.member_id)

    async def close(self) -> None:
        for watch in list(self._watches):
            await watch.close()
        await self._channel.close()

    @property
    def ordered_progress(self) -> bool:
        """Whether the member orders requested progress responses with events (etcd#15220)."""
        return self._ordered_progress

    def watch_stream(self) -> Any:
        """A new bidirectional ``Watch`` call that etcd ends when the member loses its leader."""
        return self._watch.Watch(metadata=REQUIRE_LEADER)

    def learn_compacted(self, revision: int) -> None:
        """Record that the store is compacted at least up to ``revision``."""
        self._compacted = max(self._compacted, revision)

    async def storage_error(self, err: Any, requested: int = 0) -> StorageError:
        """Translate a grpc error (``requested``: the revision a read asked for)."""
        code, details = err.code(), one_line(err.details())
        if code in TRANSIENT:
            return UnavailableError(f"etcd unavailable: {code.name}: {details}")
        if code == CODE.OUT_OF_RANGE and "compacted" in details:
            compacted = await self.compacted_revision()
            return CompactedError(details, compact_revision=compacted, requested=requested)
        if code == CODE.OUT_OF_RANGE and "future revision" in details:
            return TooLargeResourceVersionError(requested, await self.current_revision())
        if code == CODE.RESOURCE_EXHAUSTED or "too large" in details:
            return RequestTooLargeError(f"etcdserver: request is too large: {details}")
        return StorageError(f"etcd: {code.name}: {details}")

    async def _txn(self, key: str, compares: list[Any], op: Any) -> Any:
        read_back = rpc.RequestOp(request_range=rpc.RangeRequest(key=key.encode()))
        request = rpc.TxnRequest(compare=compares, success=[op], failure=[read_back])
        return await self._call(self._kv.Txn, request)

    async def _readable_at(self, revision: int) -> bool:
        request = rpc.RangeRequest(key=ALL_KEYS, count_only=True, revision=revision)
        try:
            await self._kv.Range(request, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as err:
            if "compacted" in (err.details() or ""):
                return False
            raise await self.storage_error(err) from None
        return True

    async def _call(self, method: Any, request: Any, *, revision: int = 0) -> Any:
        """One unary call. Reads (``Range``) are retried on UNAVAILABLE, which is what a call
        racing a member's death gets before the channel moves to a live member; writes are
        not, since one that failed that way may have been applied (the caller decides)."""
        attempts = READ_ATTEMPTS if method is self._kv.Range else 1
        for attempt in range(1, attempts + 1):
            try:
                response = await method(request, timeout=CALL_TIMEOUT)
                break
            except grpc.aio.AioRpcError as err:
                if attempt == attempts or err.code() is not grpc.StatusCode.UNAVAILABLE:
                    raise await self.storage_error(err, revision) from None
                await asyncio.sleep(BACKOFF_MIN * attempt)
        self._note(int(response.header.revision))
        return response

    def _note(self, revision: int) -> None:
        self._seen = max(self._seen, revision)

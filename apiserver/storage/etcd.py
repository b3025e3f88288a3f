"""The ``KV`` contract over etcd v3 (``etcd://host:port[,host:port...]``).

Transport: one ``grpc.aio`` channel over every endpoint (pick-first, so a dead member is
skipped), aetcd 1.0.0's raw stubs (``aetcd.rpc``), keepalive, waitForReady on KV calls and a
deadline on every call. Writes are single-op ``Txn``s comparing the key's mod revision; the
failure branch reads the key, so a lost compare-and-swap reports the current revision in the
same round trip.

Watches resume by themselves: when the stream breaks (etcd restart, member failover) it is
re-created from the last delivered revision + 1 with jittered backoff, so nothing is lost or
repeated. Two etcd quirks are handled here:

* etcd has no API for the compaction point. ``compacted_revision`` searches for the oldest
  readable revision, starting from the last one this client learnt (one call when it has
  not moved).
* etcd before 3.4.25 / 3.5.8 answers a ``WatchProgressRequest`` out of band (etcd#15220): on
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
import json
import random
import re
import socket
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import grpc
from aetcd import rpc

from apiserver.storage.errors import (
    CompactedError,
    ConflictError,
    KeyExistsError,
    KeyNotFoundError,
    RequestTooLargeError,
    StorageError,
    StoreConfigError,
    TooLargeResourceVersionError,
    UnavailableError,
)
from apiserver.storage.kv import (
    Event,
    EventType,
    KeyValue,
    RangeResult,
    WatchBatch,
    check_value_size,
    prefix_end,
)

CALL_TIMEOUT = 10.0
CONNECT_TIMEOUT = 3.0
_BACKOFF_MIN, _BACKOFF_MAX = 0.1, 2.0
_CODE = grpc.StatusCode
_TRANSIENT = {_CODE.UNAVAILABLE, _CODE.DEADLINE_EXCEEDED}
# A broken watch stream surfaces as any of these; the watch re-creates it.
_RESUMABLE = _TRANSIENT | {_CODE.UNKNOWN, _CODE.INTERNAL, _CODE.CANCELLED}
# Ask the member to end the stream when it loses its leader instead of going silent.
_REQUIRE_LEADER = (("hasleader", "true"),)
_ALL_KEYS = b"\x00"
_KV_WAIT_FOR_READY = {"name": [{"service": "etcdserverpb.KV"}], "waitForReady": True}
_CHANNEL_OPTIONS = [
    ("grpc.service_config", json.dumps({"methodConfig": [_KV_WAIT_FOR_READY]})),
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 3_000),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2_000),
    ("grpc.max_receive_message_length", 2**31 - 1),
    ("grpc.max_send_message_length", 2**31 - 1),
]


async def open_etcd(endpoints: list[str], *, timeout: float = CONNECT_TIMEOUT) -> EtcdKV:
    """Connect to the etcd members at ``endpoints`` ("host:port") and check that one answers
    within ``timeout`` seconds; otherwise raise ``StoreConfigError``."""
    where = ",".join(endpoints)
    channel = grpc.aio.insecure_channel(await _target(endpoints), options=_CHANNEL_OPTIONS)
    store = EtcdKV(channel)
    try:
        await store.ping(timeout)
    except StorageError as err:
        await channel.close()
        raise StoreConfigError(f"cannot reach etcd at {where}: {err}") from None
    return store


async def _target(endpoints: Sequence[str]) -> str:
    """A grpc target: ``host:port`` for one endpoint, else ``ipv4:ip:port,...``."""
    parsed = [_split(endpoint) for endpoint in endpoints]
    if len(parsed) == 1:
        return f"{parsed[0][0]}:{parsed[0][1]}"
    loop = asyncio.get_running_loop()
    addresses = []
    for host, port in parsed:
        try:
            info = await loop.getaddrinfo(host, port, family=socket.AF_INET, type=socket.SOCK_STREAM)
        except OSError as err:
            raise StoreConfigError(f"cannot resolve etcd endpoint {host}:{port}: {err}") from None
        addresses.append(f"{info[0][4][0]}:{port}")
    return "ipv4:" + ",".join(addresses)


def _split(endpoint: str) -> tuple[str, int]:
    host, _, port = endpoint.rpartition(":")
    if not host or not port.isdigit():
        raise StoreConfigError(f"invalid etcd endpoint {endpoint!r}: want host:port")
    return host, int(port)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


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
        return _key_value(response.kvs[0]) if response.kvs else None

    async def range(
        self, prefix: str, *, start: str = "", limit: int = 0, revision: int = 0, count: bool = False
    ) -> RangeResult:
        """Keys under ``prefix`` from ``start`` on. ``revision`` of the result is the one the
        read was served at (the requested one, else the current one); etcd always counts."""
        key = max(start, prefix) or "\x00"
        end = prefix_end(prefix).encode()
        request = rpc.RangeRequest(key=key.encode(), range_end=end, limit=limit, revision=revision)
        response = await self._call(self._kv.Range, request, revision=revision)
        kvs = [_key_value(kv) for kv in response.kvs]
        served_at = revision or int(response.header.revision)
        return RangeResult(kvs, served_at, bool(response.more), int(response.count))

    async def create(self, key: str, value: bytes) -> int:
        check_value_size(key, value)
        response = await self._txn(key, [_mod_is(key, 0)], _put(key, value))
        if not response.succeeded:
            raise KeyExistsError(f"key already exists: {key}", key=key)
        return int(response.header.revision)

    async def update(self, key: str, value: bytes, expected_revision: int) -> int:
        check_value_size(key, value)
        compares = [_exists(key), _mod_is(key, expected_revision)]
        response = await self._txn(key, compares, _put(key, value))
        _raise_if_failed(key, response)
        return int(response.header.revision)

    async def delete(self, key: str, expected_revision: int = 0) -> tuple[int, KeyValue]:
        compares = [_exists(key)] + ([_mod_is(key, expected_revision)] if expected_revision else [])
        op = rpc.RequestOp(request_delete_range=rpc.DeleteRangeRequest(key=key.encode(), prev_kv=True))
        response = await self._txn(key, compares, op)
        _raise_if_failed(key, response)
        deleted = response.responses[0].response_delete_range.prev_kvs[0]
        return int(response.header.revision), _key_value(deleted)

    def watch(self, prefix: str, start_revision: int) -> EtcdWatch:
        """Watch ``prefix`` from ``start_revision``. 0 starts after the newest revision this
        client has seen, so every change made after this call is delivered."""
        watch = EtcdWatch(self, prefix, start_revision or self._seen + 1)
        self._watches.add(watch)
        return watch

    async def current_revision(self) -> int:
        request = rpc.RangeRequest(key=_ALL_KEYS, count_only=True)
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
            if err.code() != _CODE.OUT_OF_RANGE:  # already compacted further
                raise await self._error(err) from None
        self._learn_compacted(revision)

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
        self._learn_compacted(high)
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
                if err.code() != _CODE.UNAVAILABLE or loop.time() + 0.2 >= deadline:
                    raise UnavailableError(f"{err.code().name}: {_one_line(err.details())}") from None
                await asyncio.sleep(0.2)
                continue
            self._note(int(response.header.revision))
            self._ordered_progress = _progress_is_ordered(response.version)
            return int(response.header.member_id)

    async def close(self) -> None:
        for watch in list(self._watches):
            await watch.close()
        await self._channel.close()

    def _learn_compacted(self, revision: int) -> None:
        self._compacted = max(self._compacted, revision)

    async def _txn(self, key: str, compares: list[Any], op: Any) -> Any:
        read_back = rpc.RequestOp(request_range=rpc.RangeRequest(key=key.encode()))
        request = rpc.TxnRequest(compare=compares, success=[op], failure=[read_back])
        return await self._call(self._kv.Txn, request)

    async def _readable_at(self, revision: int) -> bool:
        request = rpc.RangeRequest(key=_ALL_KEYS, count_only=True, revision=revision)
        try:
            await self._kv.Range(request, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as err:
            if "compacted" in (err.details() or ""):
                return False
            raise await self._error(err) from None
        return True

    async def _call(self, method: Any, request: Any, *, revision: int = 0) -> Any:
        try:
            response = await method(request, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as err:
            raise await self._error(err, revision) from None
        self._note(int(response.header.revision))
        return response

    async def _error(self, err: Any, requested: int = 0) -> StorageError:
        """Translate a grpc error (``requested``: the revision a read asked for)."""
        code, details = err.code(), _one_line(err.details())
        if code in _TRANSIENT:
            return UnavailableError(f"etcd unavailable: {code.name}: {details}")
        if code == _CODE.OUT_OF_RANGE and "compacted" in details:
            compacted = await self.compacted_revision()
            return CompactedError(details, compact_revision=compacted, requested=requested)
        if code == _CODE.OUT_OF_RANGE and "future revision" in details:
            return TooLargeResourceVersionError(requested, await self.current_revision())
        if code == _CODE.RESOURCE_EXHAUSTED or "too large" in details:
            return RequestTooLargeError(f"etcdserver: request is too large: {details}")
        return StorageError(f"etcd: {code.name}: {details}")

    def _note(self, revision: int) -> None:
        self._seen = max(self._seen, revision)

    async def _last_change(self, prefix: str, after: int, upto: int) -> int:
        """The newest revision in (after, upto] that changed a key under ``prefix`` (``after``
        if none). Replays the whole keyspace: seeing revision >= upto proves it complete."""
        if upto <= max(after, 1):
            return after
        wanted, newest = prefix.encode(), after
        call = self._watch.Watch(metadata=_REQUIRE_LEADER)
        try:
            async with asyncio.timeout(CALL_TIMEOUT):
                await call.write(_watch_request(_ALL_KEYS, _ALL_KEYS, after + 1, replay=True))
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
            raise await self._error(err) from None
        except TimeoutError:
            raise UnavailableError(f"etcd: replaying revisions {after + 1}..{upto} timed out") from None
        finally:
            call.cancel()


class EtcdWatch:
    """A ``Watch`` on one prefix that outlives broken streams (see the module docstring)."""

    def __init__(self, store: EtcdKV, prefix: str, start_revision: int) -> None:
        self._store = store
        self._prefix = prefix
        self._next = start_revision  # the oldest revision not delivered yet
        self._call: Any = None
        self._created = False
        self._closed = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._progress_wanted = False
        self._held_bookmark: tuple[int, int] | None = None  # (revision, deliver after)
        self._backoff = _BACKOFF_MIN

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
                if err.code() not in _RESUMABLE:
                    raise await self._store._error(err, self._next) from None
            except asyncio.CancelledError:  # close() cancelled the stream
                if not self._closed.is_set() or _caller_cancelled():
                    raise
            if await self._closed_within(self._backoff * random.uniform(0.5, 1.0)):
                return
            self._backoff = min(self._backoff * 2, _BACKOFF_MAX)

    async def _stream(self) -> AsyncGenerator[WatchBatch, None]:
        call = self._call = self._store._watch.Watch(metadata=_REQUIRE_LEADER)
        try:
            prefix = self._prefix.encode() or _ALL_KEYS
            await self._write(_watch_request(prefix, prefix_end(self._prefix).encode(), self._next))
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
            self._store._learn_compacted(int(response.compact_revision))
            raise CompactedError(
                f"etcdserver: mvcc: required revision has been compacted (watch from {self._next})",
                compact_revision=int(response.compact_revision),
                requested=self._next,
            )
        if response.canceled:
            raise UnavailableError(f"etcd canceled the watch: {_one_line(response.cancel_reason)}")
        if response.created:
            self._created, self._backoff = True, _BACKOFF_MIN
            if self._progress_wanted:
                await self._send_progress()
            return None
        if response.events:
            return self._events(response.events)
        # Progress: periodic ones (own watch id) are ordered with events; requested ones
        # (watch id -1) are not on old members.
        trusted = response.watch_id != -1 or self._store._ordered_progress
        return await self._progress(int(response.header.revision), trusted=trusted)

    def _events(self, raw: Any) -> WatchBatch | None:
        events = [event for event in map(_event, raw) if event.revision >= self._next]
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
                changed = await self._store._last_change(self._prefix, delivered, revision)
            except StorageError:
                return None  # cannot prove it safe: drop this bookmark
            if changed > delivered:
                self._held_bookmark = (revision, changed)
                return None
        self._next = max(self._next, revision + 1)
        self._progress_wanted = False
        return WatchBatch([], self._next - 1)

    async def _send_progress(self) -> None:
        try:
            await self._write(rpc.WatchRequest(progress_request=rpc.WatchProgressRequest()))
        except grpc.aio.AioRpcError:
            pass  # the stream broke: the request is re-sent when it is re-created
        except asyncio.CancelledError:
            if _caller_cancelled():
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


def _watch_request(key: bytes, end: bytes, start: int, *, replay: bool = False) -> Any:
    """A watch with previous values and progress notifications (none for a replay)."""
    create = rpc.WatchCreateRequest(
        key=key, range_end=end, start_revision=start, prev_kv=not replay, progress_notify=not replay
    )
    return rpc.WatchRequest(create_request=create)


def _progress_is_ordered(version: str) -> bool:
    """Whether a member of this version answers progress requests in order with events
    (etcd#15220, fixed in 3.4.25 / 3.5.8; #17507, fixed in 3.4.31 / 3.5.13)."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:3])
    return numbers >= (3, 5, 13) or (3, 4, 31) <= numbers < (3, 5)


def _caller_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _put(key: str, value: bytes) -> Any:
    return rpc.RequestOp(request_put=rpc.PutRequest(key=key.encode(), value=value))


def _exists(key: str) -> Any:
    return rpc.Compare(
        key=key.encode(), target=rpc.Compare.CREATE, result=rpc.Compare.GREATER, create_revision=0
    )


def _mod_is(key: str, revision: int) -> Any:
    return rpc.Compare(
        key=key.encode(), target=rpc.Compare.MOD, result=rpc.Compare.EQUAL, mod_revision=revision
    )


def _raise_if_failed(key: str, response: Any) -> None:
    if response.succeeded:
        return
    current = response.responses[0].response_range.kvs
    if not current:
        raise KeyNotFoundError(f"key not found: {key}", key=key)
    revision = int(current[0].mod_revision)
    raise ConflictError(f"revision conflict on {key}: now {revision}", key=key, current_revision=revision)


def _key_value(kv: Any) -> KeyValue:
    return KeyValue(kv.key.decode(), bytes(kv.value), int(kv.create_revision), int(kv.mod_revision))


def _event(event: Any) -> Event:
    kind = EventType.DELETE if event.type == rpc.Event.DELETE else EventType.PUT
    had_prev = event.HasField("prev_kv") and event.prev_kv.create_revision
    return Event(kind, _key_value(event.kv), _key_value(event.prev_kv) if had_prev else None)

"""etcd v3 protocol helpers shared by ``EtcdKV`` and ``EtcdWatch``: grpc status-code sets,
the channel's target and options, request builders and conversions of aetcd's raw messages."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Sequence
from typing import Any

import grpc
from aetcd import rpc

from apiserver.storage.errors import ConflictError, KeyNotFoundError, StoreConfigError
from apiserver.storage.kv import Event, EventType, KeyValue

CALL_TIMEOUT = 10.0  # seconds; the deadline of every unary call and of a watch replay
BACKOFF_MIN, BACKOFF_MAX = 0.1, 2.0
CODE = grpc.StatusCode
TRANSIENT = {CODE.UNAVAILABLE, CODE.DEADLINE_EXCEEDED}
# A broken watch stream surfaces as any of these; the watch re-creates it.
RESUMABLE = TRANSIENT | {CODE.UNKNOWN, CODE.INTERNAL, CODE.CANCELLED}
# Ask the member to end the stream when it loses its leader instead of going silent.
REQUIRE_LEADER = (("hasleader", "true"),)
ALL_KEYS = b"\x00"
_KV_WAIT_FOR_READY = {"name": [{"service": "etcdserverpb.KV"}], "waitForReady": True}
CHANNEL_OPTIONS = [
    ("grpc.service_config", json.dumps({"methodConfig": [_KV_WAIT_FOR_READY]})),
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 3_000),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2_000),
    ("grpc.max_receive_message_length", 2**31 - 1),
    ("grpc.max_send_message_length", 2**31 - 1),
]


async def grpc_target(endpoints: Sequence[str]) -> str:
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


def one_line(text: str | None) -> str:
    """``text`` (e.g. grpc error details) with all whitespace runs collapsed to one space."""
    return " ".join((text or "").split())


def watch_request(key: bytes, end: bytes, start: int, *, replay: bool = False) -> Any:
    """A watch with previous values and progress notifications (none for a replay)."""
    create = rpc.WatchCreateRequest(
        key=key, range_end=end, start_revision=start, prev_kv=not replay, progress_notify=not replay
    )
    return rpc.WatchRequest(create_request=create)


def progress_is_ordered(version: str) -> bool:
    """Whether a member of this version answers progress requests in order with events
    (etcd#15220, fixed in 3.4.25 / 3.5.8; #17507, fixed in 3.4.31 / 3.5.13)."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:3])
    return numbers >= (3, 5, 13) or (3, 4, 31) <= numbers < (3, 5)


def caller_cancelled() -> bool:
    """Whether the current task itself is being cancelled (not just a call it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def put(key: str, value: bytes) -> Any:
    """A txn op writing ``value`` at ``key``."""
    return rpc.RequestOp(request_put=rpc.PutRequest(key=key.encode(), value=value))


def exists(key: str) -> Any:
    """A txn compare: ``key`` exists."""
    return rpc.Compare(
        key=key.encode(), target=rpc.Compare.CREATE, result=rpc.Compare.GREATER, create_revision=0
    )


def mod_is(key: str, revision: int) -> Any:
    """A txn compare: ``key`` was last modified at ``revision`` (0: it does not exist)."""
    return rpc.Compare(
        key=key.encode(), target=rpc.Compare.MOD, result=rpc.Compare.EQUAL, mod_revision=revision
    )


def raise_if_failed(key: str, response: Any) -> None:
    """Raise ``KeyNotFoundError`` or ``ConflictError`` for a failed txn on ``key`` (its
    failure branch read the key back)."""
    if response.succeeded:
        return
    current = response.responses[0].response_range.kvs
    if not current:
        raise KeyNotFoundError(f"key not found: {key}", key=key)
    revision = int(current[0].mod_revision)
    raise ConflictError(f"revision conflict on {key}: now {revision}", key=key, current_revision=revision)


def key_value(kv: Any) -> KeyValue:
    """A ``KeyValue`` from etcd's ``mvccpb.KeyValue``."""
    return KeyValue(kv.key.decode(), bytes(kv.value), int(kv.create_revision), int(kv.mod_revision))


def to_event(event: Any) -> Event:
    """An ``Event`` from etcd's ``mvccpb.Event`` (with its previous value when etcd sent one)."""
    kind = EventType.DELETE if event.type == rpc.Event.DELETE else EventType.PUT
    had_prev = event.HasField("prev_kv") and event.prev_kv.create_revision
    return Event(kind, key_value(event.kv), key_value(event.prev_kv) if had_prev else None)

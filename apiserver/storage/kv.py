"""The ``KV`` contract: an etcd-shaped key-value store of bytes.

Every backend (``memory://``, ``sqlite:///path``, ``etcd://host:port``) implements this protocol
and passes the same conformance suite (``tests/storage``). Guarantees:

* **Revisions.** One global revision counter only grows. Every successful write (create, update,
  delete) gets a revision one higher than the previous write; it becomes that key's
  ``mod_revision``. A failed write allocates nothing. ``current_revision`` is the revision of the
  last acknowledged write; a read that starts after a write was acknowledged sees it.
* **Compare-and-swap.** ``create`` succeeds only when the key is absent; ``update`` and
  ``delete`` only when the key's mod revision equals ``expected_revision``. Losing raises a typed
  error; nothing is written.
* **Ranges** are ordered by key. ``start`` continues a paged range (inclusive key); ``revision``
  reads the state as of that revision (0 = now) and raises ``CompactedError`` below the
  compaction point.
* **Watch** delivers, in revision order and with no gaps, every change under the prefix from
  ``start_revision`` on (events already in history first), each PUT/DELETE with the previous
  value. Batches also carry the store revision they are complete up to, so an empty batch is a
  progress notification (a bookmark). A watch below the compaction point raises
  ``CompactedError`` when iterated.
* **Values** larger than ``MAX_VALUE_BYTES`` are refused with ``RequestTooLargeError``.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from apiserver.storage.errors import (
    MAX_VALUE_BYTES,
    CompactedError,
    ConflictError,
    KeyExistsError,
    KeyNotFoundError,
    RequestTooLargeError,
    TooLargeResourceVersionError,
)


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One key at one revision, as etcd's ``mvccpb.KeyValue``."""

    key: str
    value: bytes
    create_revision: int
    mod_revision: int


class EventType(enum.Enum):
    PUT = "PUT"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class Event:
    """A change. For DELETE, ``kv.value`` is empty and ``kv.mod_revision`` is the deletion
    revision; ``prev_kv`` holds the last value. For a create, ``prev_kv`` is None."""

    type: EventType
    kv: KeyValue
    prev_kv: KeyValue | None

    @property
    def revision(self) -> int:
        return self.kv.mod_revision


@dataclass(frozen=True, slots=True)
class WatchBatch:
    """Events in revision order, plus the revision the watch is complete up to.

    ``revision`` >= the last event's revision. A batch with no events is a progress
    notification: nothing under the prefix changed up to ``revision``.
    """

    events: list[Event]
    revision: int


@dataclass(frozen=True, slots=True)
class RangeResult:
    """A page of a range. ``revision`` is the store revision the read was served at;
    ``more`` says keys remain after the last one; ``count`` is the number of keys under the
    prefix from ``start`` on (including this page) when the range asked for it (backends
    may fill it anyway); otherwise 0."""

    kvs: list[KeyValue]
    revision: int
    more: bool
    count: int = field(default=0)


class Watch(Protocol):
    """A running watch: iterate it for batches; close it when done."""

    def __aiter__(self) -> AsyncIterator[WatchBatch]: ...

    async def request_progress(self) -> None:
        """Ask for a progress batch (bookmark) at the store's current revision."""

    async def close(self) -> None: ...


@runtime_checkable
class KV(Protocol):
    """See the module docstring for the contract."""

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None: ...

    async def range(
        self, prefix: str, *, start: str = "", limit: int = 0, revision: int = 0, count: bool = False
    ) -> RangeResult: ...

    async def create(self, key: str, value: bytes) -> int:
        """Put ``value`` if ``key`` is absent; return the new revision or raise KeyExistsError."""

    async def update(self, key: str, value: bytes, expected_revision: int) -> int:
        """Put ``value`` if ``key``'s mod revision is ``expected_revision``; return the new
        revision. Raises KeyNotFoundError when absent, ConflictError when it moved on."""

    async def delete(self, key: str, expected_revision: int = 0) -> tuple[int, KeyValue]:
        """Delete ``key`` (only if its mod revision is ``expected_revision``, unless that is 0).
        Returns the deletion revision and the deleted value."""

    def watch(self, prefix: str, start_revision: int) -> Watch:
        """Watch changes under ``prefix`` with revision >= ``start_revision``
        (0 = from now on)."""

    async def current_revision(self) -> int: ...

    async def compact(self, revision: int) -> None:
        """Forget history before ``revision``; reads and watches below it raise
        CompactedError. Compacting to an older revision than already compacted is a no-op."""

    async def compacted_revision(self) -> int: ...

    async def close(self) -> None: ...


KEY_MAX = "\U0010ffff"  # sorts after every key (the highest code point; highest UTF-8 too)


def key_range_end(prefix: str) -> str:
    """``prefix_end`` for in-process backends, where an empty prefix means every key."""
    return prefix_end(prefix) if prefix else KEY_MAX


def prefix_end(prefix: str) -> str:
    """The smallest key greater than every key starting with ``prefix`` (etcd's range_end)."""
    if not prefix:
        return "\x00"
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def check_value_size(key: str, value: bytes) -> None:
    if len(value) > MAX_VALUE_BYTES:
        raise RequestTooLargeError(
            f"etcdserver: request is too large: {len(value)} bytes for {key} (limit {MAX_VALUE_BYTES})",
            key=key,
        )


CREATE = -1  # ``expected`` of a create: the key must be absent


def check_write(key: str, current: KeyValue | None, expected: int) -> None:
    """The compare half of a KV write, for backends that check in process.

    ``expected`` is ``CREATE`` (the key must be absent), 0 (it must exist) or the mod revision
    it must have. Raises KeyExistsError, KeyNotFoundError or ConflictError.
    """
    if expected == CREATE:
        if current is not None:
            raise KeyExistsError(f"key exists: {key}", key=key)
        return
    if current is None:
        raise KeyNotFoundError(f"key not found: {key}", key=key)
    if expected and current.mod_revision != expected:
        raise ConflictError(
            f"mod revision of {key} is {current.mod_revision}, not {expected}",
            key=key,
            current_revision=current.mod_revision,
        )


def check_revision(revision: int, *, compacted: int, current: int) -> None:
    """A read at ``revision`` (0 = now) must be inside [compacted, current]: below it is
    CompactedError (etcd's "required revision has been compacted"), above it
    TooLargeResourceVersionError (etcd's "required revision is a future revision")."""
    if revision and revision < compacted:
        raise CompactedError(
            "mvcc: required revision has been compacted",
            compact_revision=compacted,
            requested=revision,
        )
    if revision > current:
        raise TooLargeResourceVersionError(revision, current)

"""``memory://``: the KV contract in process memory, for tests and throwaway clusters.

Keeps every key's versions since the last compaction (so ranges at a past revision work) and
every event since then in a ``WatchFeed``. All methods run on the event loop without awaiting
in between, so each write is atomic.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from apiserver.storage.errors import (
    CompactedError,
)
from apiserver.storage.kv import (
    CREATE,
    Event,
    EventType,
    KeyValue,
    RangeResult,
    Watch,
    check_revision,
    check_value_size,
    check_write,
    key_range_end,
)
from apiserver.storage.watchfeed import FeedWatch, WatchFeed


@dataclass(frozen=True, slots=True)
class _Version:
    revision: int
    kv: KeyValue | None  # None: deleted at ``revision``


class MemoryKV:
    """See ``apiserver.storage.kv`` for the contract."""

    def __init__(self) -> None:
        self._revision = 0
        self._compacted = 0
        self._live: dict[str, KeyValue] = {}
        self._live_keys: list[str] = []  # sorted keys of _live
        self._versions: dict[str, list[_Version]] = {}
        self._all_keys: list[str] = []  # sorted keys of _versions
        self._feed = WatchFeed(0)

    # reads

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        if revision == 0:
            return self._live.get(key)
        self._check_revision(revision)
        return self._at(key, revision)

    async def range(
        self, prefix: str, *, start: str = "", limit: int = 0, revision: int = 0, count: bool = False
    ) -> RangeResult:
        begin, end = max(prefix, start), key_range_end(prefix)
        if revision == 0:
            lo = bisect.bisect_left(self._live_keys, begin)
            hi = bisect.bisect_left(self._live_keys, end)
            take = hi - lo if limit <= 0 else min(limit, hi - lo)
            kvs = [self._live[k] for k in self._live_keys[lo : lo + take]]
            return RangeResult(kvs, self._revision, more=take < hi - lo, count=hi - lo)
        self._check_revision(revision)
        lo = bisect.bisect_left(self._all_keys, begin)
        hi = bisect.bisect_left(self._all_keys, end)
        found = [kv for k in self._all_keys[lo:hi] if (kv := self._at(k, revision)) is not None]
        page = found if limit <= 0 else found[:limit]
        return RangeResult(page, revision, more=len(page) < len(found), count=len(found))

    async def current_revision(self) -> int:
        return self._revision

    async def compacted_revision(self) -> int:
        return self._compacted

    # writes

    async def create(self, key: str, value: bytes) -> int:
        check_value_size(key, value)
        check_write(key, self._live.get(key), CREATE)
        rev = self._revision + 1
        self._commit(key, KeyValue(key, value, rev, rev), None)
        return rev

    async def update(self, key: str, value: bytes, expected_revision: int) -> int:
        check_value_size(key, value)
        prev = self._expect(key, expected_revision)
        rev = self._revision + 1
        self._commit(key, KeyValue(key, value, prev.create_revision, rev), prev)
        return rev

    async def delete(self, key: str, expected_revision: int = 0) -> tuple[int, KeyValue]:
        prev = self._expect(key, expected_revision)
        rev = self._revision + 1
        self._commit(key, None, prev)
        return rev, prev

    async def compact(self, revision: int) -> None:
        revision = min(revision, self._revision)
        if revision <= self._compacted:
            return
        self._compacted = revision
        for key in list(self._versions):
            versions = self._versions[key]
            keep = bisect.bisect_right(versions, revision, key=lambda v: v.revision) - 1
            kept = versions[max(keep, 0) :]
            if kept and kept[0].kv is None and kept[0].revision <= revision:
                kept = kept[1:]
            if kept:
                self._versions[key] = kept
            else:
                del self._versions[key]
                self._all_keys.pop(bisect.bisect_left(self._all_keys, key))
        self._feed.trim_before(revision)

    def watch(self, prefix: str, start_revision: int) -> Watch:
        return FeedWatch(self._feed, prefix, start_revision, self._history, lambda: self._compacted)

    async def close(self) -> None:
        self._feed.close()

    # internals

    def _expect(self, key: str, expected_revision: int) -> KeyValue:
        prev = self._live.get(key)
        check_write(key, prev, expected_revision)
        assert prev is not None
        return prev

    def _commit(self, key: str, kv: KeyValue | None, prev: KeyValue | None) -> None:
        self._revision += 1
        rev = self._revision
        if kv is None:
            del self._live[key]
            self._live_keys.pop(bisect.bisect_left(self._live_keys, key))
            event = Event(EventType.DELETE, KeyValue(key, b"", 0, rev), prev)
        else:
            if prev is None:
                bisect.insort(self._live_keys, key)
            self._live[key] = kv
            event = Event(EventType.PUT, kv, prev)
        if key not in self._versions:
            bisect.insort(self._all_keys, key)
            self._versions[key] = []
        self._versions[key].append(_Version(rev, kv))
        self._feed.publish([event])

    def _at(self, key: str, revision: int) -> KeyValue | None:
        versions = self._versions.get(key, [])
        index = bisect.bisect_right(versions, revision, key=lambda v: v.revision) - 1
        return versions[index].kv if index >= 0 else None

    def _check_revision(self, revision: int) -> None:
        check_revision(revision, compacted=self._compacted, current=self._revision)

    async def _history(self, prefix: str, first: int, last: int) -> list[Event]:
        raise CompactedError(
            "mvcc: required revision has been compacted",
            compact_revision=self._compacted,
            requested=first,
        )

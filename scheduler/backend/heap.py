"""A heap of items addressed by key (upstream ``backend/heap``): push replaces the item with
the same key, and remove by key is O(1) (entries are dropped lazily when they surface).

Ties under ``less`` break by insertion order, so equal items come out first-in first-out.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class _Entry(Generic[T]):
    __slots__ = ("item", "key", "less", "seq")

    def __init__(self, key: str, item: T, seq: int, less: Callable[[T, T], bool]) -> None:
        self.key, self.item, self.seq, self.less = key, item, seq, less

    def __lt__(self, other: _Entry[T]) -> bool:
        if self.less(self.item, other.item):
            return True
        if self.less(other.item, self.item):
            return False
        return self.seq < other.seq


class KeyedHeap(Generic[T]):
    """Items ordered by ``less``; at most one item per key."""

    def __init__(self, less: Callable[[T, T], bool]) -> None:
        self._less = less
        self._heap: list[_Entry[T]] = []
        self._live: dict[str, _Entry[T]] = {}
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, key: object) -> bool:
        return key in self._live

    def get(self, key: str) -> T | None:
        entry = self._live.get(key)
        return entry.item if entry is not None else None

    def items(self) -> Iterator[T]:
        return (entry.item for entry in self._live.values())

    def push(self, key: str, item: T) -> None:
        """Add ``item``, or replace (and re-sort) the item already under ``key``."""
        entry = _Entry(key, item, next(self._seq), self._less)
        self._live[key] = entry
        heapq.heappush(self._heap, entry)
        if len(self._heap) > 2 * len(self._live) + 64:
            self._heap = list(self._live.values())
            heapq.heapify(self._heap)

    def remove(self, key: str) -> T | None:
        entry = self._live.pop(key, None)
        return entry.item if entry is not None else None

    def peek(self) -> T | None:
        self._drop_stale()
        return self._heap[0].item if self._heap else None

    def pop(self) -> T | None:
        self._drop_stale()
        if not self._heap:
            return None
        entry = heapq.heappop(self._heap)
        del self._live[entry.key]
        return entry.item

    def _drop_stale(self) -> None:
        while self._heap and self._live.get(self._heap[0].key) is not self._heap[0]:
            heapq.heappop(self._heap)

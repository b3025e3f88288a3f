"""In-process watch delivery for the embedded backends (memory and SQLite).

A ``WatchFeed`` holds the most recent events, in revision order with no gaps, as the single
writer publishes them on the event loop. Watchers wake on publication, never by polling, and
only when an event falls under their prefix: the feed keeps one ``asyncio.Event`` per prefix
being waited on (a cacher per resource watches its own prefix, so a write wakes one of them).
A watcher that starts below the feed's window reads the older part from the backend's history
first, then continues from the feed.
"""

from __future__ import annotations

import asyncio
import bisect
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable

from apiserver.storage.errors import CompactedError
from apiserver.storage.kv import Event, WatchBatch

# history(prefix, from_revision, to_revision) -> events under prefix in [from, to]; raises
# CompactedError when part of that range was compacted away.
HistoryReader = Callable[[str, int, int], Awaitable[list[Event]]]

HISTORY_PAGE = 2000


class WatchFeed:
    """The recent event window. ``publish`` must be called in revision order."""

    def __init__(self, revision: int, capacity: int | None = None) -> None:
        self.revision = revision
        self._events: deque[Event] = deque(maxlen=capacity)
        self._waiting: dict[str, asyncio.Event] = {}  # prefix -> set on its next event
        self.closed = False

    def publish(self, events: list[Event]) -> None:
        if not events:
            return
        self._events.extend(events)
        self.revision = events[-1].revision
        keys = [e.kv.key for e in events]
        woken = [p for p in self._waiting if any(k.startswith(p) for k in keys)]
        for prefix in woken:
            self._waiting.pop(prefix).set()

    def wake(self) -> None:
        """Wake every watcher without new events (progress requests, close)."""
        waiting, self._waiting = self._waiting, {}
        for event in waiting.values():
            event.set()

    def close(self) -> None:
        """The store is closing: every watch ends."""
        self.closed = True
        self.wake()

    def changed(self, prefix: str = "") -> asyncio.Event:
        """Set at the next publication of an event under ``prefix`` (any event for ``""``), or
        at the next ``wake``."""
        event = self._waiting.get(prefix)
        if event is None:
            event = self._waiting[prefix] = asyncio.Event()
        return event

    @property
    def oldest(self) -> int:
        """The lowest revision the window can serve from (``revision + 1`` when empty)."""
        return self._events[0].revision if self._events else self.revision + 1

    def since(self, revision: int) -> list[Event] | None:
        """Events with revision >= ``revision``, or None when the window starts later."""
        if revision < self.oldest:
            return None
        index = bisect.bisect_left(self._events, revision, key=lambda e: e.revision)
        return [self._events[i] for i in range(index, len(self._events))]

    def trim_before(self, revision: int) -> None:
        while self._events and self._events[0].revision < revision:
            self._events.popleft()


class FeedWatch:
    """A ``Watch`` over a ``WatchFeed``, reading older revisions from history."""

    def __init__(
        self,
        feed: WatchFeed,
        prefix: str,
        start_revision: int,
        history: HistoryReader,
        compacted: Callable[[], int],
    ) -> None:
        self._feed = feed
        self._prefix = prefix
        self._next = start_revision if start_revision > 0 else feed.revision + 1
        self._history = history
        self._compacted = compacted
        self._progress = False
        self._closed = False
        self._parked = False  # the reader waits for news (no read in flight)

    def quiet_until(self) -> int:
        """The newest revision this watch is known to have nothing more to deliver up to:
        when it is parked and no event for its prefix is pending, the feed's revision (and
        the pending, unrelated events are skipped); otherwise the last revision it passed.
        Lets a watch cache prove it is fresh without a round trip through a progress event."""
        if not self._parked:
            return self._next - 1
        events = self._feed.since(self._next)
        if events is None or any(e.kv.key.startswith(self._prefix) for e in events):
            return self._next - 1
        self._next = self._feed.revision + 1
        return self._feed.revision

    async def request_progress(self) -> None:
        self._progress = True
        self._feed.wake()

    async def close(self) -> None:
        self._closed = True
        self._feed.wake()

    def __aiter__(self) -> AsyncIterator[WatchBatch]:
        return self._batches()

    async def _batches(self) -> AsyncIterator[WatchBatch]:
        self._check_compacted()
        while not self._closed and not self._feed.closed:
            changed = self._feed.changed(self._prefix)
            if self._next <= self._feed.revision:
                batch = await self._read()
                if batch.events:
                    yield batch
                continue
            if self._progress:
                self._progress = False
                yield WatchBatch([], self._feed.revision)
                continue
            self._parked = True
            try:
                await changed.wait()
            finally:
                self._parked = False

    async def _read(self) -> WatchBatch:
        events = self._feed.since(self._next)
        if events is not None:
            upto = self._feed.revision
        else:
            self._check_compacted()
            upto = min(self._next + HISTORY_PAGE - 1, self._feed.oldest - 1)
            events = await self._history(self._prefix, self._next, upto)
        matching = [e for e in events if e.kv.key.startswith(self._prefix) and e.revision <= upto]
        self._next = upto + 1
        return WatchBatch(matching, upto)

    def _check_compacted(self) -> None:
        compacted = self._compacted()
        if self._next < compacted:
            raise CompactedError(
                f"mvcc: required revision has been compacted (requested {self._next}, compacted {compacted})",
                compact_revision=compacted,
                requested=self._next,
            )

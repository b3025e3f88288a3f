"""One client watch on the watch cache (upstream's ``cacheWatcher``).

Where a watch starts (``resourceVersion`` and ``sendInitialEvents``, as upstream):

* ``sendInitialEvents=true``: wait until the cache has reached the requested RV (or, with none,
  the store's current revision: a consistent start), send the current state as ADDED events,
  then, when bookmarks are allowed, a BOOKMARK annotated ``k8s.io/initial-events-end``.
* RV ``""``/``"0"``: the current state, then changes (``sendInitialEvents=false``: no state).
* RV ``N``: every buffered change after N; 410 ``Expired`` when N is older than the window.

The initial state and the replay are queued before the watcher subscribes, without bound.
Live events go through a bounded buffer: a watcher that falls that far behind is terminated
(its stream ends; the client re-watches from its last RV) so it stalls nobody, and no event
is ever dropped from the middle of a stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from apiserver.storage.interface import (
    ADDED,
    DELETED,
    ERROR,
    MODIFIED,
    ListOptions,
    Predicate,
    WatchEvent,
    bookmark,
    parse_resource_version,
    status_expired,
)
from minikube_py.api.unstructured import Object

log = logging.getLogger("apiserver.cacher")


@dataclass(frozen=True, slots=True)
class Change:
    """One change in the cache's window: ``obj`` None is a deletion; ``old`` the state before."""

    revision: int
    key: str
    obj: Object | None
    old: Object | None
    at: float = 0.0  # when the cache applied it (time.monotonic)


class WatchCache(Protocol):
    """What a watcher needs of the watch cache that feeds it (``Cacher``): its window and
    revisions, and (un)registering. A protocol here, so this module does not import the cache
    that imports it."""

    watcher_buffer: int
    bookmark_interval: float
    resource_version: int
    oldest_revision: int

    async def wait_ready(self) -> None: ...

    async def wait_until_fresh(self, minimum: int) -> None: ...

    async def current_resource_version(self) -> int: ...

    def register(
        self, watcher: CacheWatcher, from_revision: int | None, *, initial_end: bool = False
    ) -> None: ...

    def unregister(self, watcher: CacheWatcher) -> None: ...


class CacheWatcher:
    def __init__(self, cacher: WatchCache, prefix: str, opts: ListOptions) -> None:
        self._cacher = cacher
        self.prefix = prefix
        self._opts = opts
        self.matches: Predicate = opts.predicate or (lambda _obj: True)
        self._queue: asyncio.Queue[WatchEvent | None] = asyncio.Queue()
        self._initial = 0  # initial/replay events still queued (they come first)
        self._live = 0  # live events queued, bounded by cacher.watcher_buffer
        self._done = False
        self._ended = False  # ``ready`` took the end sentinel

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._events()

    async def close(self) -> None:
        self.terminate()

    def terminate(self) -> None:
        """End this watch (closed, too slow, or the cache relisted)."""
        if not self._done:
            self._done = True
            self._cacher.unregister(self)
            self._queue.put_nowait(None)

    def start(self, events: list[WatchEvent]) -> None:
        """Queue the initial state or replay (unbounded: it was asked for)."""
        for event in events:
            self._queue.put_nowait(event)
        self._initial += len(events)

    def event_for(self, change: Change) -> WatchEvent | None:
        """The event this watcher sees for ``change`` (predicate transitions as upstream: an
        object leaving the selection is DELETED with its previous state)."""
        if not change.key.startswith(self.prefix):
            return None
        new_ok = change.obj is not None and self.matches(change.obj)
        old_ok = change.old is not None and self.matches(change.old)
        if change.obj is not None and new_ok:
            return WatchEvent(MODIFIED if old_ok else ADDED, change.obj)
        if change.old is not None and old_ok:
            meta = {**change.old["metadata"], "resourceVersion": str(change.revision)}
            return WatchEvent(DELETED, {**change.old, "metadata": meta})
        return None

    def dispatch(self, change: Change) -> None:
        """A live change (called by the cacher for every change while subscribed)."""
        event = self.event_for(change)
        if event is None or self._done:
            return
        if self._live >= self._cacher.watcher_buffer:
            log.warning("%s: watcher too slow, terminating it", self.prefix)
            self.terminate()
            return
        self._live += 1
        self._queue.put_nowait(event)

    async def _events(self) -> AsyncIterator[WatchEvent]:
        try:
            expired = await self._subscribe()
            if expired is not None:
                yield expired
                return
            while (event := await self._next()) is not None:
                yield event
        finally:
            self.terminate()

    async def _subscribe(self) -> WatchEvent | None:
        """Register at the right starting point; an ERROR event when the RV is too old."""
        cacher, opts = self._cacher, self._opts
        revision = parse_resource_version(opts.resource_version)
        await cacher.wait_ready()
        if opts.send_initial_events:
            await cacher.wait_until_fresh(revision or await cacher.current_resource_version())
            cacher.register(self, None, initial_end=opts.allow_bookmarks)
            return None
        if revision == 0:
            cacher.register(self, None if opts.send_initial_events is None else cacher.resource_version)
            return None
        if revision > cacher.resource_version:
            await cacher.wait_until_fresh(revision)
        if revision < cacher.oldest_revision:
            message = f"too old resource version: {revision} ({cacher.oldest_revision})"
            return WatchEvent(ERROR, status_expired(message))
        cacher.register(self, revision)  # no await since the checks: no event can slip by
        return None

    async def _next(self) -> WatchEvent | None:
        if self._ended:
            return None
        if not self._queue.empty():  # no wait_for (a task per call) when one is waiting
            return self._taken(self._queue.get_nowait())
        try:
            if not self._opts.allow_bookmarks:
                event = await self._queue.get()
            else:
                event = await asyncio.wait_for(self._queue.get(), self._cacher.bookmark_interval)
        except TimeoutError:
            return bookmark(self._cacher.resource_version)
        return self._taken(event)

    def ready(self, limit: int) -> list[WatchEvent]:
        events: list[WatchEvent] = []
        while len(events) < limit and not self._ended and not self._queue.empty():
            event = self._taken(self._queue.get_nowait())
            if event is None:
                self._ended = True  # the end sentinel: the next ``_next`` ends the stream
            else:
                events.append(event)
        return events

    def _taken(self, event: WatchEvent | None) -> WatchEvent | None:
        if event is not None and self._initial:
            self._initial -= 1
        elif event is not None:
            self._live -= 1
        return event

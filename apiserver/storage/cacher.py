"""The watch cache: one per resource prefix, fed by one KV watch, serving reads and watches.

``Cacher`` implements ``ObjectStorage``. Writes pass through to the underlying
``KVObjectStorage``; the cache learns of them through its watch like any other change.

* **Reflector** (``run``): list the prefix at a consistent revision, then watch from the next
  revision, applying each event to the current state and to a ring of recent events. Progress
  batches advance the cache's resourceVersion without events. If the watch fails (compaction,
  backend error) the cache relists and terminates every watcher (clients re-watch, as with
  upstream's cacher).
* **Reads**: ``resourceVersion="0"`` is served at once; ``"N"`` (not older than) waits until
  the cache has reached N (``TooLargeResourceVersionError`` after ``fresh_timeout``);
  ``""`` (consistent) waits until the cache has caught up with the store's current revision,
  asking the KV for a progress notification, and falls back to the store on timeout. Exact
  reads and continue tokens from an older snapshot are delegated to the store.
* **Watches** start from any RV inside the window (``oldest_revision`` and later), or from the
  current state (``""``/``"0"``); older RVs get a 410 ``Expired`` ERROR event. Each watcher has
  its own bounded buffer; a watcher that falls that far behind is terminated so it stalls
  nobody. Watchers that asked for bookmarks get one every ``bookmark_interval`` seconds of
  quiet.
"""

from __future__ import annotations

import asyncio
import bisect
import builtins
import contextlib
import logging
import random
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass

from apiserver.storage.errors import (
    KeyNotFoundError,
    StorageError,
    TooLargeResourceVersionError,
)
from apiserver.storage.interface import (
    ADDED,
    DELETED,
    ERROR,
    MODIFIED,
    ListOptions,
    Object,
    ObjectList,
    Preconditions,
    Predicate,
    TryUpdate,
    ValidateDeletion,
    WatchEvent,
    bookmark,
    decode_continue,
    encode_continue,
    parse_resource_version,
    status_expired,
)
from apiserver.storage.kv import Event, EventType, Watch, prefix_end
from apiserver.storage.objects import KVObjectStorage, decode

log = logging.getLogger("apiserver.cacher")


@dataclass(frozen=True, slots=True)
class _Change:
    revision: int
    key: str
    obj: Object | None  # None: deleted
    old: Object | None


class Cacher:
    """See the module docstring."""

    def __init__(
        self,
        storage: KVObjectStorage,
        prefix: str,
        *,
        capacity: int = 1000,
        watcher_buffer: int = 1000,
        bookmark_interval: float = 60.0,
        fresh_timeout: float = 3.0,
    ) -> None:
        self.storage = storage
        self.prefix = prefix
        self.capacity = capacity
        self.watcher_buffer = watcher_buffer
        self.bookmark_interval = bookmark_interval
        self.fresh_timeout = fresh_timeout
        self.resource_version = 0
        self.oldest_revision = 0
        self._objects: dict[str, Object] = {}
        self._keys: list[str] = []
        self._changes: deque[_Change] = deque()
        self._watchers: set[_CacheWatcher] = set()
        self._ready = asyncio.Event()
        self._advanced = asyncio.Condition()
        self._kv_watch: Watch | None = None

    # the reflector

    async def run(self) -> None:
        """Keep the cache in sync until cancelled."""
        delay = 0.1
        while True:
            try:
                await self._list_and_watch()
                delay = 0.1
            except (StorageError, OSError) as err:
                log.warning("apiserver cacher %s: watch failed, relisting: %s", self.prefix, err)
                await asyncio.sleep(delay * random.uniform(0.8, 1.2))
                delay = min(delay * 2, 5.0)
            finally:
                self._ready.clear()
                self._terminate_watchers()

    async def _list_and_watch(self) -> None:
        items, revision = await self.storage.snapshot(self.prefix)
        self._replace(items, revision)
        await self._advance(revision)
        self._kv_watch = watch = self.storage.kv.watch(self.prefix, self.resource_version + 1)
        try:
            async for batch in watch:
                for event in batch.events:
                    self._apply(event)
                await self._advance(batch.revision)
        finally:
            self._kv_watch = None
            await watch.close()

    def _replace(self, items: dict[str, Object], revision: int) -> None:
        self._objects = items
        self._keys = sorted(items)
        self._changes.clear()
        self.resource_version = self.oldest_revision = revision
        self._ready.set()

    def _apply(self, event: Event) -> None:
        key = event.kv.key
        old = self._objects.get(key)
        obj: Object | None = None
        if event.type is EventType.PUT:
            obj = self._objects[key] = decode(event.kv)
            if old is None:
                bisect.insort(self._keys, key)
        else:
            if old is not None:
                del self._objects[key]
                self._keys.pop(bisect.bisect_left(self._keys, key))
                old = {**old, "metadata": {**old["metadata"], "resourceVersion": str(event.revision)}}
        change = _Change(event.revision, key, obj, old)
        self._changes.append(change)
        if len(self._changes) > self.capacity:
            self.oldest_revision = self._changes.popleft().revision
        for watcher in list(self._watchers):
            watcher.dispatch(change)

    async def _advance(self, revision: int) -> None:
        if revision > self.resource_version:
            self.resource_version = revision
        async with self._advanced:
            self._advanced.notify_all()

    def _terminate_watchers(self) -> None:
        for watcher in list(self._watchers):
            watcher.terminate()

    # freshness

    async def wait_ready(self) -> None:
        """Wait until the initial list is in the cache (upstream's cacher ``ready``)."""
        await self._ready.wait()

    async def wait_until_fresh(self, minimum: int) -> None:
        """Wait until the cache is at ``minimum`` or later; TooLargeResourceVersionError after
        ``fresh_timeout``."""
        try:
            await asyncio.wait_for(self._wait_fresh(minimum), self.fresh_timeout)
        except TimeoutError:
            raise TooLargeResourceVersionError(minimum, self.resource_version) from None

    async def _wait_fresh(self, minimum: int) -> None:
        await self._ready.wait()
        if self.resource_version >= minimum:
            return
        if self._kv_watch is not None:
            await self._kv_watch.request_progress()
        async with self._advanced:
            await self._advanced.wait_for(lambda: self._ready.is_set() and self.resource_version >= minimum)

    # ObjectStorage: reads

    async def current_resource_version(self) -> int:
        return await self.storage.current_resource_version()

    async def get(self, key: str, *, resource_version: str = "") -> Object:
        if resource_version == "":
            return await self.storage.get(key)
        await self.wait_until_fresh(parse_resource_version(resource_version))
        obj = self._objects.get(key)
        if obj is None:
            raise KeyNotFoundError(f"key not found: {key}", key=key)
        return obj

    async def list(self, prefix: str, opts: ListOptions) -> ObjectList:
        start = prefix
        if opts.continue_token:
            start, revision = decode_continue(opts.continue_token, prefix)
            if revision != self.resource_version or not self._ready.is_set():
                return await self.storage.list(prefix, opts)
        elif opts.resource_version_match == "Exact" or (
            opts.limit > 0 and opts.resource_version not in ("", "0") and opts.resource_version_match == ""
        ):
            return await self.storage.list(prefix, opts)
        elif opts.resource_version == "":
            try:
                await self.wait_until_fresh(await self.storage.current_resource_version())
            except TooLargeResourceVersionError:
                return await self.storage.list(prefix, opts)
        else:
            await self.wait_until_fresh(parse_resource_version(opts.resource_version))
        return self._list_from_cache(prefix, start, opts)

    def _list_from_cache(self, prefix: str, start: str, opts: ListOptions) -> ObjectList:
        lo = bisect.bisect_left(self._keys, start)
        hi = bisect.bisect_left(self._keys, prefix_end(prefix))
        items: list[Object] = []
        last = lo
        for index in range(lo, hi):
            if opts.limit > 0 and len(items) >= opts.limit:
                break
            last = index + 1
            obj = self._objects[self._keys[index]]
            if opts.predicate is None or opts.predicate(obj):
                items.append(obj)
        revision = self.resource_version
        if last >= hi or opts.limit <= 0:
            return ObjectList(items, str(revision))
        token = encode_continue(self._keys[last - 1], prefix, revision)
        remaining = None if opts.predicate else hi - last
        return ObjectList(items, str(revision), token, remaining)

    # ObjectStorage: writes pass through

    async def create(self, key: str, obj: Object) -> Object:
        return await self.storage.create(key, obj)

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        preconditions: Preconditions | None = None,
        ignore_not_found: bool = False,
    ) -> Object:
        return await self.storage.guaranteed_update(
            key, try_update, preconditions=preconditions, ignore_not_found=ignore_not_found
        )

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
    ) -> Object:
        return await self.storage.delete(
            key, preconditions=preconditions, validate_deletion=validate_deletion
        )

    # ObjectStorage: watch

    def watch(self, prefix: str, opts: ListOptions) -> _CacheWatcher:
        return _CacheWatcher(self, prefix, opts)

    def _register(self, watcher: _CacheWatcher, revision: int) -> None:
        """Queue the replay (or initial state) for ``watcher`` and subscribe it, atomically."""
        if revision == 0:
            watcher.start_from_state(self._state(watcher.prefix), self.resource_version)
        else:
            index = bisect.bisect_right(self._changes, revision, key=lambda c: c.revision)
            for i in range(index, len(self._changes)):
                watcher.dispatch(self._changes[i])
        self._watchers.add(watcher)

    def _state(self, prefix: str) -> builtins.list[Object]:
        lo = bisect.bisect_left(self._keys, prefix)
        hi = bisect.bisect_left(self._keys, prefix_end(prefix))
        return [self._objects[k] for k in self._keys[lo:hi]]


class _CacheWatcher:
    """One client watch on the cache: a bounded buffer fed by the cacher."""

    def __init__(self, cacher: Cacher, prefix: str, opts: ListOptions) -> None:
        self._cacher = cacher
        self.prefix = prefix
        self._opts = opts
        self._match: Predicate = opts.predicate or (lambda _obj: True)
        self._queue: asyncio.Queue[WatchEvent | None] = asyncio.Queue(cacher.watcher_buffer)
        self._done = False

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self._events()

    async def close(self) -> None:
        self._done = True
        self._cacher._watchers.discard(self)
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)

    def terminate(self) -> None:
        """Stop this watcher (its buffer overflowed or the cache relisted)."""
        self._cacher._watchers.discard(self)
        self._done = True
        if self._queue.full():
            self._queue.get_nowait()
        self._queue.put_nowait(None)

    def start_from_state(self, objects: list[Object], revision: int) -> None:
        for obj in objects:
            if self._match(obj):
                self._put(WatchEvent(ADDED, obj))
        if self._opts.send_initial_events and self._opts.allow_bookmarks:
            self._put(bookmark(revision, initial_events_end=True))

    def dispatch(self, change: _Change) -> None:
        if not change.key.startswith(self.prefix):
            return
        new_ok = change.obj is not None and self._match(change.obj)
        old_ok = change.old is not None and self._match(change.old)
        if change.obj is not None and new_ok:
            self._put(WatchEvent(MODIFIED if old_ok else ADDED, change.obj))
        elif change.old is not None and old_ok:
            self._put(WatchEvent(DELETED, change.obj if change.obj is not None else change.old))

    def _put(self, event: WatchEvent) -> None:
        if self._done:
            return
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            log.warning("apiserver cacher %s: watcher too slow, terminating it", self.prefix)
            self.terminate()

    async def _events(self) -> AsyncIterator[WatchEvent]:
        cacher, opts = self._cacher, self._opts
        revision = parse_resource_version(opts.resource_version)
        await cacher._ready.wait()
        if revision > cacher.resource_version:
            await cacher.wait_until_fresh(revision)
        if revision and revision < cacher.oldest_revision:
            message = f"too old resource version: {revision} ({cacher.oldest_revision})"
            yield WatchEvent(ERROR, status_expired(message))
            return
        cacher._register(self, revision)  # no await since the checks: no event can slip by
        try:
            while True:
                event = await self._next()
                if event is None:
                    return
                yield event
        finally:
            cacher._watchers.discard(self)

    async def _next(self) -> WatchEvent | None:
        if not self._opts.allow_bookmarks:
            return await self._queue.get()
        try:
            return await asyncio.wait_for(self._queue.get(), self._cacher.bookmark_interval)
        except TimeoutError:
            return bookmark(self._cacher.resource_version)

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
  current state (``""``/``"0"``); older RVs get a 410 ``Expired`` ERROR event. The window
  holds at least ``capacity`` changes and, as upstream's, every change of the last 75 s
  (``event_fresh_seconds``) up to ``max_capacity``, so a client can resume after a burst. Each watcher has
  its own bounded buffer; a watcher that falls that far behind is terminated so it stalls
  nobody. Watchers that asked for bookmarks get one every ``bookmark_interval`` seconds of
  quiet.
* **Indexes** (``indexers``: field -> value of an object): for each, the keys by value, kept
  in key order. A list whose field selector requires an indexed field's value
  (``ListOptions.exact_match``) walks that value's keys instead of every key (upstream indexes
  pods by ``spec.nodeName`` for the node agents); the predicate still decides, so the items,
  their order and the continue tokens are those of the full walk. Watches filter as before.
"""

from __future__ import annotations

import asyncio
import bisect
import builtins
import logging
import random
import time
from collections import deque
from collections.abc import Callable, Mapping

from apiserver.storage.cacher_watcher import CacheWatcher, Change
from apiserver.storage.errors import (
    KeyNotFoundError,
    StorageError,
    TooLargeResourceVersionError,
)
from apiserver.storage.interface import (
    ADDED,
    ListOptions,
    ObjectList,
    Preconditions,
    TryUpdate,
    ValidateDeletion,
    WatchEvent,
    bookmark,
    decode_continue,
    encode_continue,
    parse_resource_version,
)
from apiserver.storage.kv import Event, EventType, Watch, key_range_end
from apiserver.storage.objects import KVObjectStorage
from minikube_py.api.unstructured import Object

log = logging.getLogger("apiserver.cacher")
RELIST_RESET_AFTER = 10.0  # a watch that lasted this long resets the relist backoff

Indexer = Callable[[Object], str]


class Cacher:
    """See the module docstring."""

    def __init__(
        self,
        storage: KVObjectStorage,
        prefix: str,
        *,
        capacity: int = 1000,
        max_capacity: int = 1000,
        event_fresh_seconds: float = 75.0,
        watcher_buffer: int = 10_000,
        bookmark_interval: float = 60.0,
        fresh_timeout: float = 3.0,
        indexers: Mapping[str, Indexer] | None = None,
    ) -> None:
        self.storage = storage
        self.prefix = prefix
        self.capacity = capacity
        self.max_capacity = max(capacity, max_capacity)
        self.event_fresh_seconds = event_fresh_seconds
        self.watcher_buffer = watcher_buffer
        self.bookmark_interval = bookmark_interval
        self.fresh_timeout = fresh_timeout
        self.resource_version = 0
        self.oldest_revision = 0
        self._objects: dict[str, Object] = {}
        self._keys: list[str] = []
        self._indexers = dict(indexers or {})
        # field -> value -> sorted keys of the objects with that value
        self._indices: dict[str, dict[str, list[str]]] = {field: {} for field in self._indexers}
        self._changes: deque[Change] = deque()
        self._watchers: set[CacheWatcher] = set()
        self._ready = asyncio.Event()
        self._advanced = asyncio.Condition()
        self._kv_watch: Watch | None = None

    # the reflector

    async def run(self) -> None:
        """Keep the cache in sync until cancelled."""
        delay = 0.1
        while True:
            started = time.monotonic()
            try:
                await self._list_and_watch()
                log.info("%s: watch ended, relisting", self.prefix)  # e.g. the store is closing
            except (StorageError, OSError) as err:
                log.warning("%s: watch failed, relisting: %s", self.prefix, err)
            finally:
                self._ready.clear()
                self._terminate_watchers()
            if time.monotonic() - started > RELIST_RESET_AFTER:
                delay = 0.1
            # always wait before relisting: a watch that ends at once (a closed store) must not
            # turn this into a loop that never yields
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))
            delay = min(delay * 2, 5.0)

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
        self._indices = {field: {} for field in self._indexers}
        for key in self._keys:
            self._index(key, items[key])
        self._changes.clear()
        self.resource_version = self.oldest_revision = revision
        self._ready.set()

    def _apply(self, event: Event) -> None:
        key = event.kv.key
        old = self._objects.get(key)
        obj: Object | None = None
        if old is not None:
            self._unindex(key, old)
        if event.type is EventType.PUT:
            obj = self._objects[key] = self.storage.decode_event(event)
            self._index(key, obj)
            if old is None:
                bisect.insort(self._keys, key)
        else:
            if old is not None:
                del self._objects[key]
                self._keys.pop(bisect.bisect_left(self._keys, key))
        now = time.monotonic()
        change = Change(event.revision, key, obj, old, now)
        changes = self._changes
        changes.append(change)
        # keep at least ``capacity`` changes, and all of the last ``event_fresh_seconds`` up to
        # ``max_capacity`` (upstream's watch cache sizing: a burst stays resumable)
        fresh_since = now - self.event_fresh_seconds
        while len(changes) > self.capacity and (
            len(changes) > self.max_capacity or changes[0].at < fresh_since
        ):
            self.oldest_revision = changes.popleft().revision
        for watcher in list(self._watchers):
            watcher.dispatch(change)

    def _index(self, key: str, obj: Object) -> None:
        for field, indexer in self._indexers.items():
            bisect.insort(self._indices[field].setdefault(indexer(obj), []), key)

    def _unindex(self, key: str, obj: Object) -> None:
        for field, indexer in self._indexers.items():
            value = indexer(obj)
            keys = self._indices[field][value]
            keys.pop(bisect.bisect_left(keys, key))
            if not keys:
                del self._indices[field][value]

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
        if self._ready.is_set() and self.resource_version >= minimum:
            return  # the common case: no task, no timer
        quiet_until = getattr(self._kv_watch, "quiet_until", None)  # in-process feeds answer at once
        if self._ready.is_set() and quiet_until is not None and (upto := quiet_until()) >= minimum:
            self.resource_version = max(self.resource_version, upto)
            return
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
        keys = self._indexed_keys(opts)
        end = key_range_end(prefix)
        lo, hi = bisect.bisect_left(keys, start), bisect.bisect_left(keys, end)
        if opts.limit <= 0:  # no pages: the whole range, as the walk below without its bookkeeping
            objects, predicate = self._objects, opts.predicate
            matched = [objects[key] for key in keys[lo:hi]]
            if predicate is not None:
                matched = [obj for obj in matched if predicate(obj)]
            return ObjectList(matched, str(self.resource_version))
        items: list[Object] = []
        last = lo
        for index in range(lo, hi):
            if opts.limit > 0 and len(items) >= opts.limit:
                break
            last = index + 1
            obj = self._objects[keys[index]]
            if opts.predicate is None or opts.predicate(obj):
                items.append(obj)
        revision = self.resource_version
        if keys is not self._keys:  # where the full walk stops: after the last match, or the end
            reached = opts.limit > 0 and len(items) >= opts.limit
            hi = bisect.bisect_left(self._keys, end)
            last = bisect.bisect_right(self._keys, keys[last - 1]) if reached else hi
            keys = self._keys
        if last >= hi or opts.limit <= 0:
            return ObjectList(items, str(revision))
        token = encode_continue(keys[last - 1], prefix, revision)
        remaining = None if opts.predicate else hi - last
        return ObjectList(items, str(revision), token, remaining)

    def _indexed_keys(self, opts: ListOptions) -> builtins.list[str]:
        """The keys a list must walk: an index's when the selector pins an indexed field."""
        if opts.exact_match is not None and opts.predicate is not None:
            for field, index in self._indices.items():
                if (value := opts.exact_match(field)) is not None:
                    return index.get(value, [])
        return self._keys

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

    def watch(self, prefix: str, opts: ListOptions) -> CacheWatcher:
        return CacheWatcher(self, prefix, opts)

    def register(
        self, watcher: CacheWatcher, from_revision: int | None, *, initial_end: bool = False
    ) -> None:
        """Subscribe ``watcher``, first queueing either the current state (``from_revision``
        None; then the initial-events-end bookmark when ``initial_end``) or the buffered changes
        after ``from_revision``. Synchronous, so no change can slip in between."""
        if from_revision is None:
            events = [WatchEvent(ADDED, obj) for obj in self._state(watcher.prefix) if watcher.matches(obj)]
            if initial_end:
                events.append(bookmark(self.resource_version, initial_events_end=True))
        else:
            index = bisect.bisect_right(self._changes, from_revision, key=lambda c: c.revision)
            changes = (watcher.event_for(self._changes[i]) for i in range(index, len(self._changes)))
            events = [e for e in changes if e is not None]
        watcher.start(events)
        self._watchers.add(watcher)

    def unregister(self, watcher: CacheWatcher) -> None:
        self._watchers.discard(watcher)

    def objects(self, prefix: str = "") -> builtins.list[Object]:
        """The cached objects under ``prefix`` (default: all), in key order. Shared: copy
        before mutating."""
        return self._state(prefix or self.prefix)

    def _state(self, prefix: str) -> builtins.list[Object]:
        lo = bisect.bisect_left(self._keys, prefix)
        hi = bisect.bisect_left(self._keys, key_range_end(prefix))
        return [self._objects[k] for k in self._keys[lo:hi]]

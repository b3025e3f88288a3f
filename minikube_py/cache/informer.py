"""SharedInformer: one Reflector feeding one Indexer, with notifications fanned out to any
number of event handlers (client-go's ``shared_informer.go``).

What an informer guarantees (and what it does not):

- **Eventual consistency.** The cache (``indexer``) converges to the server's state of the
  watched objects: after writes stop and the watch is healthy, it holds the latest state of
  every object, and each handler has been told about it. In between, the cache may lag the
  server; it never runs ahead of it.
- **Order per object only.** For one object, a handler sees notifications in the order the
  changes happened (possibly skipping intermediate states after a relist). There is no
  ordering between different objects, nor between different handlers.
- **Identity is namespace/name.** An object deleted and recreated under the same name may
  reach a handler as a single update; a handler that cares compares ``metadata.uid``.
- **Deletes may be reported late and stale.** When the watch was down and a relist no longer
  finds an object, ``on_delete`` gets a ``DeletedFinalStateUnknown`` holding the key and the
  last state the cache knew.
- **Objects are shared.** The objects passed to handlers and returned by the indexer are the
  cache's own: copy (``copy.deepcopy``) before mutating.
- **Handlers must be quick and must not block.** Each handler has its own unbounded buffer and
  task, so a slow handler delays only itself; still, long work belongs in a workqueue: a
  handler computes a key, updates expectations and enqueues. A handler that raises is logged
  and keeps receiving later notifications.
- **Late handlers catch up.** A handler added while the informer runs first receives
  ``on_add(obj, is_in_initial_list=True)`` for every object already in the cache.
- **Resync.** With ``resync_period > 0``, every handler periodically gets
  ``on_update(obj, obj)`` for every cached object, so level-based controllers re-check state.
  A relist also reports every listed object that was already cached as an update, even when
  its resourceVersion did not change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.cache.reflector import Reflector
from minikube_py.cache.store import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    Indexer,
    IndexFunc,
    deletion_handling_meta_namespace_key,
    namespace_index_func,
)
from minikube_py.client.interfaces import ListerWatcher
from minikube_py.clock import Clock, RealClock

logger = logging.getLogger("informer")

SYNC_POLL_PERIOD = 0.1


class ResourceEventHandler(Protocol):
    """Receives an informer's notifications (see the module doc for the guarantees)."""

    def on_add(self, obj: Object, is_in_initial_list: bool) -> None: ...

    def on_update(self, old: Object, new: Object) -> None: ...

    def on_delete(self, obj: Object | DeletedFinalStateUnknown) -> None: ...


@dataclass
class EventHandlerFuncs:
    """A ``ResourceEventHandler`` from plain functions; a missing one ignores its events."""

    add: Callable[[Object], None] | None = None
    update: Callable[[Object, Object], None] | None = None
    delete: Callable[[Object | DeletedFinalStateUnknown], None] | None = None

    @classmethod
    def enqueueing(cls, enqueue: Callable[[str], None]) -> EventHandlerFuncs:
        """Every add, update and delete enqueues the object's ``namespace/name`` key (the
        usual handler of a controller keyed by the objects it watches)."""

        def key(obj: Object | DeletedFinalStateUnknown) -> None:
            enqueue(deletion_handling_meta_namespace_key(obj))

        return cls(add=key, update=lambda _old, new: key(new), delete=key)

    def on_add(self, obj: Object, is_in_initial_list: bool) -> None:
        if self.add is not None:
            self.add(obj)

    def on_update(self, old: Object, new: Object) -> None:
        if self.update is not None:
            self.update(old, new)

    def on_delete(self, obj: Object | DeletedFinalStateUnknown) -> None:
        if self.delete is not None:
            self.delete(obj)


@dataclass(frozen=True, slots=True)
class _Add:
    obj: Object
    is_in_initial_list: bool


@dataclass(frozen=True, slots=True)
class _Update:
    old: Object
    new: Object


@dataclass(frozen=True, slots=True)
class _Delete:
    obj: Object | DeletedFinalStateUnknown


_Notification = _Add | _Update | _Delete


YIELD_EVERY = 100  # notifications a listener delivers before it lets other tasks run


class _Listener:
    """One handler with its own unbounded buffer, drained by its own task."""

    def __init__(self, handler: ResourceEventHandler, name: str) -> None:
        self.handler = handler
        self.name = name
        self.queue: asyncio.Queue[_Notification] = asyncio.Queue()

    async def run(self) -> None:
        delivered = 0
        while True:
            notification = await self.queue.get()
            try:
                self._deliver(notification)
            except Exception:
                logger.exception("%s: event handler %r failed", self.name, self.handler)
            delivered += 1
            if delivered % YIELD_EVERY == 0:
                # a full buffer (a relist of 20,000 pods) never suspends ``get``: let the rest
                # of the process (the apiserver, in ``up``) run, and cancellation in
                await asyncio.sleep(0)

    def _deliver(self, n: _Notification) -> None:
        if isinstance(n, _Add):
            self.handler.on_add(n.obj, n.is_in_initial_list)
        elif isinstance(n, _Update):
            self.handler.on_update(n.old, n.new)
        else:
            self.handler.on_delete(n.obj)


class SharedInformer:
    """A cache of one resource (``indexer``) plus handlers told about every change.

    ``run`` lists and watches until cancelled; handlers are called from per-handler tasks that
    ``run`` owns. The namespace index (``NAMESPACE_INDEX``) is always present.
    """

    def __init__(
        self,
        lister_watcher: ListerWatcher,
        resource_type: ResourceType,
        *,
        clock: Clock | None = None,
        resync_period: float = 0.0,
        indexers: Mapping[str, IndexFunc] | None = None,
    ) -> None:
        self.resource_type = resource_type
        self.name = resource_type.resource
        self._clock: Clock = clock or RealClock()
        self._resync_period = resync_period
        all_indexers: dict[str, IndexFunc] = {NAMESPACE_INDEX: namespace_index_func}
        all_indexers.update(indexers or {})
        self.indexer = Indexer(all_indexers)
        self.reflector = Reflector(
            lister_watcher, resource_type, _InformerSink(self), clock=self._clock, name=self.name
        )
        self._listeners: list[_Listener] = []
        self._synced_event = asyncio.Event()
        self._tasks: asyncio.TaskGroup | None = None
        self._started = False

    # -- handlers and indexes ---------------------------------------------------------------

    def add_event_handler(self, handler: ResourceEventHandler | EventHandlerFuncs) -> None:
        """Register ``handler``; it first gets ``on_add(obj, True)`` for every cached object."""
        listener = _Listener(handler, self.name)
        for obj in self.indexer.list():
            listener.queue.put_nowait(_Add(obj, True))
        self._listeners.append(listener)
        if self._tasks is not None:
            self._tasks.create_task(listener.run(), name=f"informer-{self.name}-handler")

    def add_indexers(self, indexers: Mapping[str, IndexFunc]) -> None:
        """More indexes (objects already cached are indexed at once); ValueError on a clash."""
        self.indexer.add_indexers(indexers)

    # -- state ------------------------------------------------------------------------------

    def has_synced(self) -> bool:
        """True once the first list is in the cache and its adds are queued to every handler."""
        return self._synced_event.is_set()

    async def wait_synced(self) -> None:
        """Return once ``has_synced()`` is True (no polling)."""
        await self._synced_event.wait()

    def last_sync_resource_version(self) -> str:
        return self.reflector.last_sync_resource_version()

    def is_started(self) -> bool:
        return self._started

    # -- running ----------------------------------------------------------------------------

    async def run(self) -> None:
        """List, watch and notify until cancelled (once per informer)."""
        if self._started:
            raise RuntimeError(f"informer for {self.name} already started")
        self._started = True
        try:
            async with asyncio.TaskGroup() as tasks:
                self._tasks = tasks
                for listener in self._listeners:
                    tasks.create_task(listener.run(), name=f"informer-{self.name}-handler")
                tasks.create_task(self.reflector.run(), name=f"reflector-{self.name}")
                if self._resync_period > 0:
                    tasks.create_task(self._resync_loop(), name=f"informer-{self.name}-resync")
        finally:
            self._tasks = None

    async def _resync_loop(self) -> None:
        while True:
            await self._clock.sleep(self._resync_period)
            if self._synced_event.is_set():
                for obj in self.indexer.list():
                    self._distribute(_Update(obj, obj))

    def _distribute(self, notification: _Notification) -> None:
        for listener in self._listeners:
            listener.queue.put_nowait(notification)

    def _mark_synced(self) -> None:
        self._synced_event.set()


class _InformerSink:
    """The Reflector's store for an informer: updates the indexer, then notifies handlers
    (client-go's ``processDeltas`` over a DeltaFIFO, without the FIFO: the event loop already
    serializes the Reflector's calls)."""

    def __init__(self, informer: SharedInformer) -> None:
        self._informer = informer

    def add(self, obj: Object) -> None:
        self._upsert(obj, is_in_initial_list=False)

    def update(self, obj: Object) -> None:
        self._upsert(obj, is_in_initial_list=False)

    def _upsert(self, obj: Object, *, is_in_initial_list: bool) -> None:
        indexer = self._informer.indexer
        old = indexer.get(obj)
        indexer.update(obj)
        if old is None:
            self._informer._distribute(_Add(obj, is_in_initial_list))
        else:
            self._informer._distribute(_Update(old, obj))

    def delete(self, obj: Object) -> None:
        self._informer.indexer.delete(obj)
        self._informer._distribute(_Delete(obj))

    def replace(self, objs: list[Object], resource_version: str) -> None:
        informer = self._informer
        indexer = informer.indexer
        initial = not informer.has_synced()
        old = {indexer.key(obj): obj for obj in indexer.list()}
        indexer.replace(objs, resource_version)
        listed: set[str] = set()
        for obj in objs:
            key = indexer.key(obj)
            listed.add(key)
            previous = old.get(key)
            if previous is None:
                informer._distribute(_Add(obj, initial))
            else:
                informer._distribute(_Update(previous, obj))
        for key, last_known in old.items():
            if key not in listed:
                informer._distribute(_Delete(DeletedFinalStateUnknown(key, last_known)))
        informer._mark_synced()


async def wait_for_cache_sync(*synced: Callable[[], bool], clock: Clock | None = None) -> None:
    """Return once every ``synced()`` is True, checking every 0.1 s of ``clock``.

    A ``SharedInformer.has_synced`` is awaited directly (no polling, so a fake clock need not
    be stepped); any other callable is polled.
    """
    polled: list[Callable[[], bool]] = []
    for fn in synced:
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, SharedInformer) and getattr(fn, "__func__", None) is SharedInformer.has_synced:
            await owner.wait_synced()
        else:
            polled.append(fn)
    poll_clock: Clock = clock or RealClock()
    while not all(fn() for fn in polled):
        await poll_clock.sleep(SYNC_POLL_PERIOD)

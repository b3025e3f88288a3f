"""The Reflector turns list + watch of one resource into store calls (client-go's
``reflector.go``). It knows nothing about handlers or indexes: it feeds a ``StoreSink``.

The cycle:

1. **List** (consistent read, paginated ``limit=500`` + ``continue``) and hand the items to
   ``sink.replace(items, list_rv)``; ``last_sync_resource_version`` becomes the list's RV.
2. **Watch** from that RV with bookmarks and a server-side timeout of 5 to 10 minutes
   (randomized, so that many clients do not reconnect at once). ADDED and MODIFIED become
   ``sink.add``/``sink.update``, DELETED ``sink.delete``; every event, a BOOKMARK included
   (which changes nothing else), advances ``last_sync_resource_version``.
3. When the server ends the stream normally, watch again from the last RV: nothing is lost
   and nothing is listed again.
4. ``Gone`` (410: that RV is older than the server keeps) means events were lost: list again
   (step 1). The relist repairs the store; what vanished meanwhile is deleted by ``replace``.
5. Any other failure (an ``ApiError``, a lost connection) waits a jittered exponential backoff
   (0.8 s doubling to 30 s, reset after two healthy minutes) on the injected clock, then
   resumes watching from the last RV (or retries the list when the list failed).

Two watches in a row that end normally within a second without a single event, and a watch
that says ``Gone`` right after a fresh list, are treated as failures (backoff), so a
misbehaving server cannot make the Reflector spin.

List items that lack ``apiVersion``/``kind`` (the API leaves them out inside a list) get them
from the resource type, as client-go's unstructured list decoding does.
"""

from __future__ import annotations

import enum
import logging
import random
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from minikube_py.api.scheme import ResourceType
from minikube_py.cache.backoff import Backoff
from minikube_py.client.interfaces import (
    ADDED,
    BOOKMARK,
    DELETED,
    MODIFIED,
    Gone,
    ListerWatcher,
    Object,
    WatchEvent,
)
from minikube_py.clock import Clock, RealClock

logger = logging.getLogger("reflector")

PAGE_SIZE = 500
MIN_WATCH_TIMEOUT = 300.0  # seconds; the actual timeout is 1x to 2x this
SHORT_WATCH = 1.0  # seconds; an empty watch shorter than this counts as a failure


class StoreSink(Protocol):
    """What a Reflector writes to (an ``Indexer`` is one; the informer has its own)."""

    def add(self, obj: Object) -> None: ...

    def update(self, obj: Object) -> None: ...

    def delete(self, obj: Object) -> None: ...

    def replace(self, objs: list[Object], resource_version: str) -> None: ...


class _WatchEnd(enum.Enum):
    CLOSED = "closed"  # the server ended the stream: watch again
    GONE = "gone"  # 410: list again
    FAILED = "failed"  # back off, then watch again from the last RV
    SHORT = "short"  # ended at once again, without events: back off, then watch again


class Reflector:
    """Keeps ``store_sink`` in step with the server's state of one resource (see module doc).

    ``run`` works until cancelled. ``name`` labels log lines. ``rand`` (values in [0, 1))
    drives the watch timeout and the backoff jitter, so tests can make them deterministic.
    """

    def __init__(
        self,
        lister_watcher: ListerWatcher,
        resource_type: ResourceType,
        store_sink: StoreSink,
        *,
        clock: Clock | None = None,
        name: str = "",
        page_size: int = PAGE_SIZE,
        min_watch_timeout: float = MIN_WATCH_TIMEOUT,
        rand: Callable[[], float] = random.random,
        backoff: Backoff | None = None,
    ) -> None:
        self._lw = lister_watcher
        self._rt = resource_type
        self._sink = store_sink
        self._clock: Clock = clock or RealClock()
        self.name = name or resource_type.resource
        self._page_size = page_size
        self._min_watch_timeout = min_watch_timeout
        self._rand = rand
        self._backoff = backoff or Backoff(self._clock, rand=rand)
        self._last_rv = ""
        self._empty_watches = 0  # consecutive short watches without events
        self.lists = 0  # completed lists, for tests and metrics
        self.watches = 0  # watches opened

    def last_sync_resource_version(self) -> str:
        """The RV of the last list or of the last watch event (bookmarks included) applied;
        ``""`` before the first list."""
        return self._last_rv

    async def run(self) -> None:
        """List, then watch, forever (until cancelled)."""
        need_list = True
        after_list = False  # the coming watch starts from a fresh list's RV
        while True:
            if need_list:
                try:
                    await self._list()
                except Exception as err:
                    delay = self._backoff.next_delay()
                    logger.warning("%s: list failed, retrying in %.2fs: %s", self.name, delay, err)
                    await self._clock.sleep(delay)
                    continue
                need_list = False
                after_list = True
            end, events = await self._watch()
            if end is _WatchEnd.GONE:
                need_list = True
                if after_list and events == 0:
                    await self._wait("watch right after list answered Gone")
                else:
                    logger.info("%s: resourceVersion %s expired, relisting", self.name, self._last_rv)
            elif end is _WatchEnd.FAILED:
                await self._wait("watch failed")
            elif end is _WatchEnd.SHORT:
                await self._wait("very short watch without events")
            after_list = False

    async def _wait(self, why: str) -> None:
        delay = self._backoff.next_delay()
        logger.info("%s: %s, retrying in %.2fs", self.name, why, delay)
        await self._clock.sleep(delay)

    async def _list(self) -> None:
        items: list[Object] = []
        continue_ = ""
        while True:
            page = await self._lw.list(resource_version=None, limit=self._page_size, continue_=continue_)
            meta: dict[str, Any] = page.get("metadata") or {}
            for item in page.get("items") or []:
                items.append(self._with_kind(item))
            continue_ = str(meta.get("continue") or "")
            if not continue_:
                break
        resource_version = str(meta.get("resourceVersion") or "")
        self._sink.replace(items, resource_version)
        self._last_rv = resource_version
        self.lists += 1
        logger.debug("%s: listed %d objects at resourceVersion %s", self.name, len(items), resource_version)

    async def _watch(self) -> tuple[_WatchEnd, int]:
        """One watch from the last RV; returns how it ended and how many events it carried."""
        timeout = int(self._min_watch_timeout * (1.0 + self._rand()))
        started = self._clock.monotonic()
        events = 0
        self.watches += 1
        stream = self._lw.watch(resource_version=self._last_rv, allow_bookmarks=True, timeout_seconds=timeout)
        try:
            async for event in stream:
                events += 1
                self._apply(event)
        except Gone:
            return _WatchEnd.GONE, events
        except Exception as err:
            logger.warning("%s: watch from resourceVersion %s failed: %s", self.name, self._last_rv, err)
            return _WatchEnd.FAILED, events
        finally:
            await _close(stream)
        if events == 0 and self._clock.monotonic() - started < SHORT_WATCH:
            self._empty_watches += 1
            if self._empty_watches >= 2:
                return _WatchEnd.SHORT, events
        else:
            self._empty_watches = 0
        return _WatchEnd.CLOSED, events

    def _apply(self, event: WatchEvent) -> None:
        obj = event.object
        if event.type == BOOKMARK:
            pass
        elif event.type == ADDED:
            self._sink.add(self._with_kind(obj))
        elif event.type == MODIFIED:
            self._sink.update(self._with_kind(obj))
        elif event.type == DELETED:
            self._sink.delete(self._with_kind(obj))
        else:
            logger.warning("%s: ignoring watch event of unknown type %r", self.name, event.type)
            return
        rv = (obj.get("metadata") or {}).get("resourceVersion")
        if rv:
            self._last_rv = str(rv)

    def _with_kind(self, obj: Object) -> Object:
        if "kind" not in obj or "apiVersion" not in obj:
            obj.setdefault("apiVersion", self._rt.api_version)
            obj.setdefault("kind", self._rt.kind)
        return obj


async def _close(stream: AsyncIterator[WatchEvent]) -> None:
    aclose: Callable[[], Any] | None = getattr(stream, "aclose", None)
    if aclose is not None:
        try:
            await aclose()
        except Exception as err:  # closing a broken stream must not hide why it broke
            logger.debug("closing watch stream: %s", err)

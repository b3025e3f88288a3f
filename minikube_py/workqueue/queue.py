"""``Queue``: the work queue every controller drains (client-go ``util/workqueue``).

Contract:

- **Dedup.** An item added while it is already waiting is queued once: bursts of events for
  one key collapse into one sync.
- **Never twice at once.** An item is *dirty* from ``add`` until a worker ``get``s it, and
  *processing* from ``get`` until that worker calls ``done``. Adding an item that is
  processing only marks it dirty; ``done`` then puts it back at the tail. So no two workers
  ever hold the same item, and a change seen during a sync is never lost.
- **Order.** Items are handed out first in, first out (re-queued items go to the tail).
- **Shutdown.** After ``shut_down`` adds are ignored; ``get`` keeps handing out what is already
  queued and returns ``None`` once the queue is shut down *and* empty, so ``None`` means "stop
  working". ``shut_down_with_drain`` also waits until every processing item is ``done``.

Every ``get`` must be paired with exactly one ``done``. One event loop, not thread-safe.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


class Queue(Generic[T]):
    """A FIFO of hashable items with the ``dirty``/``processing`` invariant (module docstring)."""

    def __init__(self) -> None:
        self._queue: deque[T] = deque()
        self._dirty: set[T] = set()
        self._processing: set[T] = set()
        self._getters: deque[asyncio.Future[None]] = deque()
        self._drained: asyncio.Event | None = None
        self._shutting_down = False
        self.adds = 0  # items newly marked dirty, ever (the ``workqueue_adds_total`` metric)

    def __len__(self) -> int:
        """Items waiting to be handed out (not counting those being processed)."""
        return len(self._queue)

    def add(self, item: T) -> None:
        """Mark ``item`` as needing work; a no-op when it already does or after shutdown."""
        if self._shutting_down or item in self._dirty:
            return
        self.adds += 1
        self._dirty.add(item)
        if item in self._processing:
            return  # ``done`` re-queues it
        self._queue.append(item)
        self._wake_getter()

    async def get(self) -> T | None:
        """The next item, waiting for one; ``None`` once shut down and empty (stop working)."""
        while not self._queue:
            if self._shutting_down:
                return None
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._getters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._wake_getter()  # pass on the wake-up this getter will not use
                elif waiter in self._getters:
                    self._getters.remove(waiter)
                raise
        item = self._queue.popleft()
        self._processing.add(item)
        self._dirty.discard(item)
        return item

    def done(self, item: T) -> None:
        """``item`` is no longer processed; if it was added meanwhile it is queued again."""
        self._processing.discard(item)
        if item in self._dirty:
            self._queue.append(item)
            self._wake_getter()
        elif not self._processing and self._drained is not None:
            self._drained.set()

    def shut_down(self) -> None:
        """Ignore further adds; waiting getters return ``None`` once the queue is empty."""
        self._shutting_down = True
        while self._getters:
            waiter = self._getters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    async def shut_down_with_drain(self) -> None:
        """``shut_down``, then wait until every item handed out has been marked ``done``."""
        self.shut_down()
        while self._processing:
            self._drained = asyncio.Event()
            await self._drained.wait()

    def shutting_down(self) -> bool:
        return self._shutting_down

    def _wake_getter(self) -> None:
        while self._getters:
            waiter = self._getters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

"""``DelayingQueue``: a ``Queue`` whose items can be added after a delay (client-go ``delaying_queue``).

Waiting items sit in a heap ordered by ready time, at most once per item: adding an item that
already waits keeps the earlier of the two times. ``run`` is the loop that moves items into
the queue when they become ready, sleeping on the injected clock until the next ready time
(or until an earlier entry arrives). It runs in the owner's TaskGroup until the queue is shut
down or the task is cancelled; waiting items are dropped at shutdown.

Items become ready up to ``2 * SLACK`` seconds early: that absorbs the rounding of clock
arithmetic (a clock reading of 1.8e9 s resolves only ~0.24 µs), so a fake clock stepped by
exactly the delay releases the item.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools

from minikube_py.clock import Clock, RealClock
from minikube_py.workqueue.queue import Queue, T

SLACK = 1e-6  # seconds


class DelayingQueue(Queue[T]):
    def __init__(self, *, clock: Clock | None = None, name: str = "") -> None:
        super().__init__()
        self.name = name
        self._clock = clock or RealClock()
        self._waiting: list[tuple[float, int, T]] = []  # heap; stale entries skipped
        self._ready_at: dict[T, float] = {}
        self._order = itertools.count()
        self._wake = asyncio.Event()

    def add_after(self, item: T, delay: float) -> None:
        """Add ``item`` once ``delay`` seconds of the clock have passed (at once if <= 0)."""
        if self.shutting_down():
            return
        if delay <= 0:
            self.add(item)
            return
        ready_at = self._clock.monotonic() + delay
        current = self._ready_at.get(item)
        if current is not None and current <= ready_at:
            return
        self._ready_at[item] = ready_at
        if not self._waiting or ready_at < self._waiting[0][0]:
            self._wake.set()  # run() sleeps until a later time; make it look again
        heapq.heappush(self._waiting, (ready_at, next(self._order), item))

    def waiting(self) -> int:
        """Items waiting for their delay to pass."""
        return len(self._ready_at)

    def shut_down(self) -> None:
        super().shut_down()
        self._wake.set()

    async def run(self) -> None:
        """Move ready items into the queue until shut down (or cancelled)."""
        while not self.shutting_down():
            next_at = self._add_ready()
            self._wake.clear()
            if next_at is None:
                await self._wake.wait()
            else:
                await self._sleep_or_wake(next_at - self._clock.monotonic() - SLACK)
        self._waiting.clear()
        self._ready_at.clear()

    def _add_ready(self) -> float | None:
        """Queue every item whose time has come; the next ready time, if any."""
        now = self._clock.monotonic()
        while self._waiting:
            ready_at, _, item = self._waiting[0]
            if self._ready_at.get(item) != ready_at:
                heapq.heappop(self._waiting)  # superseded by an earlier time
                continue
            if ready_at > now + 2 * SLACK:
                return ready_at
            heapq.heappop(self._waiting)
            del self._ready_at[item]
            self.add(item)
        return None

    async def _sleep_or_wake(self, seconds: float) -> None:
        async with asyncio.TaskGroup() as tg:
            sleeper = tg.create_task(self._clock.sleep(seconds))
            waker = tg.create_task(self._wake.wait())
            sleeper.add_done_callback(lambda _: waker.cancel())
            waker.add_done_callback(lambda _: sleeper.cancel())

"""Upstream's ``BoundedFrequencyRunner`` (``pkg/util/async``): ``request()`` asks for a sync;
syncs run at most once per ``min_interval`` (a burst of changes becomes one sync: the first
change after a quiet period runs at once, the rest wait for the interval and run together)
and at least once per ``max_interval`` (a periodic resync), all on an injected clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from minikube_py.clock import Clock


class BoundedFrequencyRunner:
    def __init__(
        self, sync: Callable[[], Awaitable[None]], clock: Clock, *, min_interval: float, max_interval: float
    ) -> None:
        self._sync = sync
        self._clock = clock
        self.min_interval = min_interval
        self.max_interval = max_interval
        self._wanted = asyncio.Event()
        self._last: float | None = None
        self.extra_deadline: Callable[[], float | None] = lambda: None  # e.g. a bind retry

    def request(self) -> None:
        self._wanted.set()

    async def run(self) -> None:
        while True:
            await self._wait_wanted()
            if self._last is not None:
                await self._clock.sleep(self._last + self.min_interval - self._clock.monotonic())
            self._wanted.clear()
            self._last = self._clock.monotonic()
            await self._sync()

    async def _wait_wanted(self) -> None:
        if self._wanted.is_set() or self._last is None:
            return
        deadline = self._last + self.max_interval
        extra = self.extra_deadline()
        if extra is not None:
            deadline = min(deadline, extra)
        timer = asyncio.ensure_future(self._clock.sleep(deadline - self._clock.monotonic()))
        wanted = asyncio.ensure_future(self._wanted.wait())
        try:
            await asyncio.wait({timer, wanted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
            wanted.cancel()

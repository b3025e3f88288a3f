"""Time as an injected dependency (ARCHITECTURE §8): every timer in the system takes a ``Clock``.

``RealClock`` reads the system; ``FakeClock`` is a first-class test clock whose time moves only
when a test calls ``step``. Sleepers on a fake clock wake, in deadline order, when a step
reaches their deadline, so timing behaviour (backoff, lease expiry, grace periods) is tested
without real sleeps.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    """``now`` is wall time in seconds since the epoch (for timestamps written to objects);
    ``monotonic`` never goes back (for durations); ``sleep`` waits ``seconds`` of this clock."""

    def now(self) -> float: ...

    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    """The system clock."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class FakeClock:
    """A clock that moves only by ``step``. ``now`` and ``monotonic`` advance together.

    ``sleep(s)`` returns once ``step`` has moved the clock ``s`` seconds past the call (a
    sleep of zero or less returns at once). ``step`` wakes due sleepers in deadline order and
    lets each woken task run before returning, so ``await clock.step(1)`` is a full tick.
    """

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), future))
        await future

    def has_sleepers(self) -> bool:
        """True while any task waits on this clock (tests use it to know a timer is armed)."""
        return any(not f.done() for _, _, f in self._sleepers)

    async def step(self, seconds: float) -> None:
        """Move the clock forward and wake every sleeper whose deadline has come."""
        target = self._now + seconds
        while self._sleepers and self._sleepers[0][0] <= target:
            deadline, _, future = heapq.heappop(self._sleepers)
            self._now = max(self._now, deadline)
            if not future.done():
                future.set_result(None)
                for _ in range(5):
                    await asyncio.sleep(0)
        self._now = target
        for _ in range(5):
            await asyncio.sleep(0)

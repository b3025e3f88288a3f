"""The ``Retry-After`` a priority level's rejections suggest (upstream's dropped requests
tracker): 1 second at first; doubled (up to 32) when the last ``retry_after`` seconds saw at
least three drops per second of it, at most once per ``retry_after`` seconds; lowered by one
when they saw fewer drops than its value. Re-evaluated when a drop starts a new second."""

from __future__ import annotations

import time
from collections.abc import Callable

MAX_RETRY_AFTER = 32


class _LevelDrops:
    def __init__(self) -> None:
        self.history: list[tuple[int, int]] = []  # (unix second, drops), oldest first
        self.current_second = 0
        self.current_count = 0
        self.retry_after = 1
        self.raised_at = 0

    def record(self, second: int) -> None:
        if second == self.current_second:
            self.current_count += 1
            return
        self._remember(self.current_second, self.current_count)
        self.current_second, self.current_count = second, 1
        self._adjust(second)

    def _remember(self, second: int, count: int) -> None:
        self.history.append((second, count))
        horizon = min(2 * self.retry_after, MAX_RETRY_AFTER)
        self.history = [(s, n) for s, n in self.history if second - s <= horizon]

    def _adjust(self, now: int) -> None:
        window = self.retry_after
        drops = sum(n for s, n in self.history if now - s <= window and s < now)
        if now - self.raised_at >= window and drops >= 3 * window:
            self.retry_after = min(2 * window, MAX_RETRY_AFTER)
            self.raised_at = now
        elif drops < window and window > 1:
            self.retry_after = window - 1


class DroppedRequests:
    """Drops per priority level; ``clock`` returns seconds (``time.time`` by default)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._levels: dict[str, _LevelDrops] = {}

    def record(self, priority_level: str) -> None:
        self._levels.setdefault(priority_level, _LevelDrops()).record(int(self._clock()))

    def retry_after(self, priority_level: str) -> int:
        level = self._levels.get(priority_level)
        return level.retry_after if level else 1

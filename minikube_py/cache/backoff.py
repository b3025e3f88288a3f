"""Jittered exponential backoff with a reset after a healthy period (client-go's
``wait.NewExponentialBackoffManager`` as the Reflector configures it: 0.8 s doubling to 30 s,
reset once two minutes pass without a failure). Time comes from the injected ``Clock``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from minikube_py.clock import Clock


class Backoff:
    """``next_delay`` gives the wait before the next retry; ``wait`` sleeps it on the clock.

    The n-th consecutive delay is ``initial * factor**(n-1)`` stretched by up to ``jitter``
    times itself (``rand()`` in [0, 1)), never more than ``cap``. When ``reset_after``
    seconds pass between two failures, the sequence starts again from ``initial``.
    """

    def __init__(
        self,
        clock: Clock,
        *,
        initial: float = 0.8,
        cap: float = 30.0,
        factor: float = 2.0,
        jitter: float = 1.0,
        reset_after: float = 120.0,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self._clock = clock
        self._initial = initial
        self._cap = cap
        self._factor = factor
        self._jitter = jitter
        self._reset_after = reset_after
        self._rand = rand
        self._current = initial
        self._last: float | None = None

    def next_delay(self) -> float:
        now = self._clock.monotonic()
        if self._last is not None and now - self._last > self._reset_after:
            self._current = self._initial
        self._last = now
        delay = min(self._cap, self._current * (1.0 + self._jitter * self._rand()))
        self._current = min(self._cap, self._current * self._factor)
        return delay

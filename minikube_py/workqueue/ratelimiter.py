"""Rate limiters: how long an item waits before it is retried (client-go ``default_rate_limiters``).

A limiter answers three questions about an item: ``when`` may it be processed again (seconds
from now; asking counts as one more failure/requeue), ``forget`` its history (it succeeded),
and how many times it was requeued (``num_requeues``).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Protocol, TypeVar

from minikube_py.clock import Clock, RealClock

T_contra = TypeVar("T_contra", bound=Hashable, contravariant=True)


class RateLimiter(Protocol[T_contra]):
    def when(self, item: T_contra) -> float:
        """The delay in seconds before ``item`` may be processed again; counts one requeue."""
        ...

    def forget(self, item: T_contra) -> None:
        """Drop ``item``'s history (called after it was processed successfully)."""
        ...

    def num_requeues(self, item: T_contra) -> int: ...


class ItemExponentialFailureRateLimiter:
    """Per item: ``base_delay * 2**failures``, capped at ``max_delay``; ``forget`` resets."""

    def __init__(self, base_delay: float = 0.005, max_delay: float = 1000.0) -> None:
        self._base = base_delay
        self._max = max_delay
        self._failures: dict[Hashable, int] = {}

    def when(self, item: Hashable) -> float:
        exp = self._failures.get(item, 0)
        self._failures[item] = exp + 1
        if exp >= 64:  # 2**exp would dwarf any cap; avoid huge floats
            return self._max
        return min(self._base * 2.0**exp, self._max)

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)


class BucketRateLimiter:
    """One token bucket for all items: ``burst`` at once, then ``qps`` per second.

    Every ``when`` reserves a token; when the bucket is empty the reservation is in the
    future and ``when`` returns how far (so a flood is spread out at ``qps``). Items have no
    history: ``forget`` does nothing and ``num_requeues`` is 0.
    """

    def __init__(self, qps: float = 10.0, burst: int = 100, clock: Clock | None = None) -> None:
        self._qps = qps
        self._burst = float(burst)
        self._clock = clock or RealClock()
        self._tokens = float(burst)
        self._last = self._clock.monotonic()

    def when(self, item: Hashable) -> float:
        now = self._clock.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._qps)
        self._last = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self._qps

    def forget(self, item: Hashable) -> None:
        return None

    def num_requeues(self, item: Hashable) -> int:
        return 0


class MaxOfRateLimiter:
    """The worst (longest) answer of several limiters; ``forget`` forgets in all of them."""

    def __init__(self, *limiters: RateLimiter[Any]) -> None:
        self._limiters = limiters

    def when(self, item: Hashable) -> float:
        return max((limiter.when(item) for limiter in self._limiters), default=0.0)

    def forget(self, item: Hashable) -> None:
        for limiter in self._limiters:
            limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return max((limiter.num_requeues(item) for limiter in self._limiters), default=0)


def default_controller_rate_limiter(clock: Clock | None = None) -> RateLimiter[Any]:
    """Upstream's controller default: per-item exponential 5 ms .. 1000 s, overall 10 qps / burst 100."""
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(0.005, 1000.0),
        BucketRateLimiter(qps=10.0, burst=100, clock=clock),
    )

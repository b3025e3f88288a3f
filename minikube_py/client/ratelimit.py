"""The client-side rate limiter: a token bucket, like client-go's ``flowcontrol.NewTokenBucketRateLimiter``
(``golang.org/x/time/rate``): ``qps`` tokens a second, at most ``burst`` saved up."""

from __future__ import annotations

import asyncio

from minikube_py.clock import Clock, RealClock


class TokenBucket:
    """``await wait()`` takes one token, sleeping until one is due.

    The bucket starts full. Each caller reserves its token at once (the count may go below
    zero) and sleeps for the deficit, so waiters are served in arrival order and the rate holds
    however many wait. A waiter cancelled while sleeping gives its token back. ``qps <= 0``
    disables limiting (``wait`` returns at once); ``burst`` below 1 counts as 1.
    """

    def __init__(self, qps: float, burst: int, clock: Clock | None = None) -> None:
        self.qps = qps
        self.burst = max(1, burst)
        self._clock: Clock = clock or RealClock()
        self._tokens = float(self.burst)
        self._last = self._clock.monotonic()

    @property
    def enabled(self) -> bool:
        return self.qps > 0

    def tokens(self) -> float:
        """Tokens available now (negative while callers are waiting)."""
        self._refill()
        return self._tokens

    async def wait(self) -> None:
        if not self.enabled:
            return
        self._refill()
        self._tokens -= 1
        if self._tokens >= 0:
            return
        try:
            await self._clock.sleep(-self._tokens / self.qps)
        except asyncio.CancelledError:
            self._tokens += 1
            raise

    def _refill(self) -> None:
        now = self._clock.monotonic()
        elapsed = max(0.0, now - self._last)
        self._last = now
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.qps)

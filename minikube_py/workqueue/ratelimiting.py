"""``RateLimitingQueue``: a delaying queue whose retries are spaced by a ``RateLimiter``.

The controller pattern (client-go ``rate_limiting_queue``): a failed sync calls
``add_rate_limited(key)`` (retried after ``limiter.when(key)``), a successful one calls
``forget(key)`` so the next failure starts from the shortest backoff again.
"""

from __future__ import annotations

from typing import Any

from minikube_py.clock import Clock
from minikube_py.workqueue.delaying import DelayingQueue
from minikube_py.workqueue.queue import T
from minikube_py.workqueue.ratelimiter import RateLimiter, default_controller_rate_limiter


class RateLimitingQueue(DelayingQueue[T]):
    def __init__(
        self, rate_limiter: RateLimiter[Any] | None = None, *, clock: Clock | None = None, name: str = ""
    ) -> None:
        super().__init__(clock=clock, name=name)
        self.rate_limiter: RateLimiter[Any] = rate_limiter or default_controller_rate_limiter(clock)

    def add_rate_limited(self, item: T) -> None:
        """Add ``item`` after the limiter's delay (one more requeue in its history)."""
        self.add_after(item, self.rate_limiter.when(item))

    def forget(self, item: T) -> None:
        """Stop tracking ``item``'s failures; it does not remove it from the queue."""
        self.rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self.rate_limiter.num_requeues(item)

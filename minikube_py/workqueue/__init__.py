"""Work queues for controllers: dedup with the dirty/processing invariant, delays, rate limits."""

from minikube_py.workqueue.delaying import DelayingQueue
from minikube_py.workqueue.queue import Queue
from minikube_py.workqueue.ratelimiter import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    default_controller_rate_limiter,
)
from minikube_py.workqueue.ratelimiting import RateLimitingQueue

__all__ = [
    "BucketRateLimiter",
    "DelayingQueue",
    "ItemExponentialFailureRateLimiter",
    "MaxOfRateLimiter",
    "Queue",
    "RateLimiter",
    "RateLimitingQueue",
    "default_controller_rate_limiter",
]

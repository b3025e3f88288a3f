"""Rate limiters: per-item exponential, token bucket, max-of."""

from __future__ import annotations

import pytest

from minikube_py.clock import FakeClock
from minikube_py.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    default_controller_rate_limiter,
)


def test_exponential_doubles_per_failure_and_caps() -> None:
    limiter = ItemExponentialFailureRateLimiter(0.005, 0.04)
    assert [limiter.when("a") for _ in range(6)] == pytest.approx([0.005, 0.01, 0.02, 0.04, 0.04, 0.04])
    assert limiter.num_requeues("a") == 6
    assert limiter.when("b") == pytest.approx(0.005)  # per item


def test_exponential_forget_resets() -> None:
    limiter = ItemExponentialFailureRateLimiter()
    limiter.when("a")
    limiter.when("a")
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0
    assert limiter.when("a") == pytest.approx(0.005)


def test_exponential_huge_failure_count_is_capped() -> None:
    limiter = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    delays = [limiter.when("a") for _ in range(2000)]
    assert delays[-1] == 1000.0


def test_bucket_burst_then_qps_spacing() -> None:
    clock = FakeClock()
    limiter = BucketRateLimiter(qps=10.0, burst=3, clock=clock)
    assert [limiter.when(i) for i in range(3)] == [0.0, 0.0, 0.0]
    assert [limiter.when(i) for i in range(3, 6)] == pytest.approx([0.1, 0.2, 0.3])
    assert limiter.num_requeues("x") == 0


async def test_bucket_refills_with_time() -> None:
    clock = FakeClock()
    limiter = BucketRateLimiter(qps=10.0, burst=2, clock=clock)
    limiter.when(1)
    limiter.when(2)
    assert limiter.when(3) == pytest.approx(0.1)
    await clock.step(10)  # refills, but never past the burst
    assert [limiter.when(i) for i in range(3)] == pytest.approx([0.0, 0.0, 0.1])


def test_max_of_takes_the_longest_and_forgets_in_all() -> None:
    clock = FakeClock()
    limiter = MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(0.005, 1000.0), BucketRateLimiter(qps=1.0, burst=1, clock=clock)
    )
    assert limiter.when("a") == pytest.approx(0.005)  # bucket has a token: exponential wins
    assert limiter.when("a") == pytest.approx(1.0)  # bucket empty: 1 s wait wins
    assert limiter.num_requeues("a") == 2
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0


def test_default_controller_rate_limiter() -> None:
    limiter = default_controller_rate_limiter(FakeClock())
    assert [limiter.when("k") for _ in range(3)] == pytest.approx([0.005, 0.01, 0.02])
    for i in range(97):
        limiter.when(i)
    assert limiter.when("other") == pytest.approx(0.1)  # 101st token in the same instant

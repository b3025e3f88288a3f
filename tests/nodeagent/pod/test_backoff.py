"""Crash-loop backoff: 10 s doubling to 5 min, reset after 10 min without a restart."""

from __future__ import annotations

from minikube_py.clock import FakeClock
from nodeagent.pod.backoff import Backoff


def test_the_delay_doubles_up_to_five_minutes() -> None:
    clock = FakeClock()
    backoff = Backoff(clock)
    delays = []
    for _ in range(7):
        backoff.next("uid/c", clock.now())
        delays.append(backoff.delay("uid/c"))
    assert delays == [10, 20, 40, 80, 160, 300, 300]


async def test_in_backoff_until_the_delay_passed_since_the_exit() -> None:
    clock = FakeClock()
    backoff = Backoff(clock)
    finished = clock.now()
    assert not backoff.in_backoff_since("uid/c", finished)  # never restarted: no wait
    backoff.next("uid/c", finished)
    await clock.step(9.9)
    assert backoff.in_backoff_since("uid/c", finished)
    await clock.step(0.2)
    assert not backoff.in_backoff_since("uid/c", finished)


async def test_a_container_that_ran_ten_minutes_starts_over_from_ten_seconds() -> None:
    clock = FakeClock()
    backoff = Backoff(clock)
    for _ in range(4):
        backoff.next("uid/c", clock.now())
    assert backoff.delay("uid/c") == 80
    await clock.step(601)  # it ran for more than 2 x 5 min before exiting again
    assert not backoff.in_backoff_since("uid/c", clock.now())
    backoff.next("uid/c", clock.now())
    assert backoff.delay("uid/c") == 10


def test_forget_drops_a_pods_keys() -> None:
    backoff = Backoff(FakeClock())
    backoff.next("uid/a", 0.0)
    backoff.next("other/a", 0.0)
    backoff.forget("uid/")
    assert (backoff.delay("uid/a"), backoff.delay("other/a")) == (0.0, 10.0)

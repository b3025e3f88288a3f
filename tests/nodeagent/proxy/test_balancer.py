"""Backend choice on a fake clock: random and round-robin orders, ClientIP affinity and its
timeout."""

from __future__ import annotations

import random

import pytest

from minikube_py.clock import FakeClock
from nodeagent.proxy.balancer import RANDOM, ROUND_ROBIN, Balancer
from nodeagent.proxy.endpoints import Backend

A, B, C = (Backend(f"127.1.0.{i}", 80) for i in (2, 3, 4))


def test_round_robin_rotates_the_first_choice_and_keeps_the_rest_as_fallbacks() -> None:
    balancer = Balancer(FakeClock(), ROUND_ROBIN)
    orders = [balancer.candidates("127.0.0.1", [A, B, C]) for _ in range(4)]
    assert orders == [[A, B, C], [B, C, A], [C, A, B], [A, B, C]]


def test_random_choice_reaches_every_backend_and_lists_each_once() -> None:
    balancer = Balancer(FakeClock(), RANDOM, rng=random.Random(7))
    orders = [balancer.candidates("127.0.0.1", [A, B, C]) for _ in range(60)]
    assert all(sorted(o, key=lambda b: b.ip) == [A, B, C] for o in orders)
    assert {o[0] for o in orders} == {A, B, C}


def test_no_backends_gives_no_candidates() -> None:
    assert Balancer(FakeClock()).candidates("127.0.0.1", []) == []


async def test_client_ip_affinity_sticks_until_the_timeout_passes_idle() -> None:
    clock = FakeClock()
    balancer = Balancer(clock, ROUND_ROBIN, affinity_timeout=10)
    first = balancer.candidates("127.0.0.9", [A, B, C])[0]
    balancer.chosen("127.0.0.9", first)
    for _ in range(3):
        await clock.step(9)  # each use renews the affinity
        choice = balancer.candidates("127.0.0.9", [A, B, C])[0]
        assert choice == first
        balancer.chosen("127.0.0.9", choice)
    assert balancer.candidates("127.0.0.8", [A, B, C])[0] != first  # another client rotates on
    await clock.step(11)
    balancer.candidates("127.0.0.9", [A, B, C])
    assert "127.0.0.9" not in balancer._affinity  # expired: the order is the rotation again


def test_affinity_to_a_backend_that_left_picks_anew() -> None:
    balancer = Balancer(FakeClock(), ROUND_ROBIN, affinity_timeout=100)
    balancer.chosen("127.0.0.9", B)
    assert balancer.candidates("127.0.0.9", [A, B, C])[0] == B
    assert balancer.candidates("127.0.0.9", [A, C])[0] in (A, C)
    assert "127.0.0.9" not in balancer._affinity


def test_without_affinity_nothing_is_remembered() -> None:
    balancer = Balancer(FakeClock(), ROUND_ROBIN)
    balancer.chosen("127.0.0.9", C)
    assert balancer.candidates("127.0.0.9", [A, B, C])[0] == A


def test_an_unknown_selection_is_refused() -> None:
    with pytest.raises(ValueError, match="round-robin"):
        Balancer(FakeClock(), "least-conn")

"""Hard eviction thresholds: parsing, observations from a Summary, which are met, and
upstream's eviction message."""

from __future__ import annotations

from typing import Any

import pytest

from nodeagent.eviction.ranking import eviction_message
from nodeagent.eviction.thresholds import (
    DEFAULT_EVICTION_HARD,
    MEMORY_AVAILABLE,
    NODEFS_AVAILABLE,
    Observation,
    Threshold,
    observe,
    parse_thresholds,
    thresholds_met,
)
from nodeagent.stats.usage import ContainerUsage, NodeUsage, PodUsage, Summary

MI = 1024**2
GI = 1024**3


def test_the_defaults_are_upstreams() -> None:
    assert parse_thresholds(DEFAULT_EVICTION_HARD) == [
        Threshold(MEMORY_AVAILABLE, quantity=100 * MI),
        Threshold(NODEFS_AVAILABLE, percentage=0.10),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("memory.available<1Gi", [Threshold(MEMORY_AVAILABLE, quantity=GI)]),
        (" nodefs.available<15% ", [Threshold(NODEFS_AVAILABLE, percentage=0.15)]),
        ("", []),
    ],
)
def test_parse(text: str, expected: list[Threshold]) -> None:
    assert parse_thresholds(text) == expected


@pytest.mark.parametrize(
    "text",
    ["memory.available>1Gi", "pid.available<10", "memory.available<lots", "nodefs.available<150%",
     "memory.available<1Gi,memory.available<2Gi"],
)  # fmt: skip
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_thresholds(text)


@pytest.mark.parametrize(
    ("threshold", "available", "capacity", "met"),
    [
        (Threshold(MEMORY_AVAILABLE, quantity=100 * MI), 99 * MI, 8 * GI, True),
        (Threshold(MEMORY_AVAILABLE, quantity=100 * MI), 100 * MI, 8 * GI, False),
        (Threshold(NODEFS_AVAILABLE, percentage=0.1), 9 * GI, 100 * GI, True),
        (Threshold(NODEFS_AVAILABLE, percentage=0.1), 11 * GI, 100 * GI, False),
    ],
)
def test_met(threshold: Threshold, available: int, capacity: int, met: bool) -> None:
    assert threshold.met(Observation(available, capacity)) is met


def summary(available: int, working_set: int, fs_available: int = 50 * GI) -> Summary:
    node = NodeUsage("n", 0.0, 0, 0, working_set, available, 100 * GI, fs_available)
    return Summary(0.0, node, ())


def test_observations_and_the_met_thresholds_memory_first() -> None:
    observed = observe(summary(50 * MI, 8 * GI - 50 * MI, fs_available=5 * GI))
    assert observed[MEMORY_AVAILABLE] == Observation(50 * MI, 8 * GI)
    assert observed[NODEFS_AVAILABLE] == Observation(5 * GI, 100 * GI)
    met = thresholds_met(reversed(parse_thresholds(DEFAULT_EVICTION_HARD)), observed)
    assert [t.signal for t in met] == [MEMORY_AVAILABLE, NODEFS_AVAILABLE]
    assert thresholds_met(parse_thresholds(DEFAULT_EVICTION_HARD), observe(summary(GI, GI))) == []


def pod(requests: dict[str, str] | None = None) -> dict[str, Any]:
    resources = {"requests": requests} if requests else {}
    return {"metadata": {"uid": "u"}, "spec": {"containers": [{"name": "big", "resources": resources}]}}


def test_the_message_is_upstreams() -> None:
    usage = PodUsage("p", "default", "u", 0.0, (ContainerUsage("big", 0.0, 0, 0, 2 * GI),))
    threshold = Threshold(MEMORY_AVAILABLE, quantity=100 * MI)
    message = eviction_message(pod(), usage, threshold, Observation(51201 * 1024, 32 * GI))
    assert message == (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51201Ki. "
        "Container big was using 2Gi, request is 0, has larger consumption of memory. "
    )
    within = eviction_message(pod({"memory": "4Gi"}), usage, threshold, Observation(0, 32 * GI))
    assert within == "The node was low on resource: memory. Threshold quantity: 100Mi, available: 0. "


def test_a_percentage_threshold_is_reported_as_a_quantity() -> None:
    threshold = Threshold(NODEFS_AVAILABLE, percentage=0.1)
    message = eviction_message(pod(), None, threshold, Observation(GI, 100 * GI))
    assert (
        message
        == "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 1Gi. "
    )

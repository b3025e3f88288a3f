"""Upstream's eviction order (``rankMemoryPressure``, ``rankDiskPressureFunc``), table-driven."""

from __future__ import annotations

from typing import Any

import pytest

from nodeagent.eviction.ranking import is_critical, pod_request, rank_pods
from nodeagent.stats.usage import ContainerUsage, PodUsage

MI = 1024**2


def pod(name: str, request: str = "", priority: int = 0, **annotations: str) -> dict[str, Any]:
    resources = {"requests": {"memory": request, "ephemeral-storage": request}} if request else {}
    return {
        "metadata": {"name": name, "uid": name, "annotations": annotations},
        "spec": {"priority": priority, "containers": [{"name": "c", "resources": resources}]},
    }


def stats(name: str, memory_mi: int, disk_mi: int = 0) -> PodUsage:
    container = ContainerUsage("c", 0.0, 0, 0, memory_mi * MI)
    return PodUsage(name, "default", name, 0.0, (container,), ephemeral_storage_bytes=disk_mi * MI)


CASES = [
    # (pods, usage in Mi (None: no stats), expected order)
    ("usage above requests goes first",
     [pod("within", "500Mi"), pod("above", "10Mi")], {"within": 400, "above": 20}, ["above", "within"]),
    ("then the lower priority",
     [pod("high", priority=100), pod("low", priority=-5)], {"high": 50, "low": 10}, ["low", "high"]),
    ("then the larger usage above requests",
     [pod("small"), pod("large"), pod("mid", "100Mi")], {"small": 10, "large": 300, "mid": 350},
     ["large", "mid", "small"]),
    ("priority beats usage among pods above requests",
     [pod("hog", priority=10), pod("tiny")], {"hog": 900, "tiny": 1}, ["tiny", "hog"]),
    ("a pod without stats goes first",
     [pod("measured"), pod("unknown")], {"measured": 100, "unknown": None}, ["unknown", "measured"]),
]  # fmt: skip


@pytest.mark.parametrize(("what", "pods", "usage", "order"), CASES, ids=[c[0] for c in CASES])
def test_memory_pressure_ranking(
    what: str, pods: list[dict[str, Any]], usage: dict[str, int | None], order: list[str]
) -> None:
    known = {name: stats(name, mi) for name, mi in usage.items() if mi is not None}
    assert [p["metadata"]["name"] for p in rank_pods(pods, known, "memory")] == order


def test_disk_pressure_ranks_by_ephemeral_storage() -> None:
    pods = [pod("quiet"), pod("chatty"), pod("allowed", "1Gi")]
    known = {
        "quiet": stats("quiet", 500, 1),
        "chatty": stats("chatty", 1, 200),
        "allowed": stats("allowed", 1, 300),
    }
    ranked = rank_pods(pods, known, "ephemeral-storage")
    assert [p["metadata"]["name"] for p in ranked] == ["chatty", "quiet", "allowed"]


@pytest.mark.parametrize(
    ("candidate", "critical"),
    [
        (pod("plain"), False),
        (pod("system", priority=2_000_000_000), True),
        (pod("static", **{"kubernetes.io/config.source": "file"}), True),
        (pod("mirror", **{"kubernetes.io/config.mirror": "abc"}), True),
    ],
)
def test_critical_pods(candidate: dict[str, Any], critical: bool) -> None:
    assert is_critical(candidate) is critical


def test_pod_request_takes_the_larger_of_containers_and_init_containers() -> None:
    spec = {
        "containers": [
            {"resources": {"requests": {"memory": "64Mi"}}},
            {"resources": {"requests": {"memory": "64Mi"}}},
        ],
        "initContainers": [{"resources": {"requests": {"memory": "200Mi"}}}],
    }
    assert pod_request({"spec": spec}, "memory") == 200 * MI
    assert pod_request({"spec": {"containers": [{}]}}, "memory") == 0

"""The eviction manager on a fake runtime and a fake clock: pressure signals with upstream's
transition period, one pod evicted per pass by rank, critical pods spared, disk reclaimed
first; and the Evicted status the pod manager writes."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from nodeagent.eviction.manager import EvictionManager
from nodeagent.eviction.thresholds import parse_thresholds
from nodeagent.pod.evicted import EvictedPods, evicted_status
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.stats.host import SimulatedHost
from nodeagent.stats.summary import SummaryProvider
from tests.nodeagent.stats.fakepods import start_pod

GI = 1024**3
MI = 1024**2


def api_pod(name: str, priority: int = 0, **annotations: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": annotations},
        "spec": {"priority": priority, "containers": [{"name": "c"}]},
        "status": {"phase": "Running"},
    }


class Node:
    """A simulated node with 1Gi of memory and an eviction manager whose kills are recorded."""

    def __init__(self, clock: FakeClock, thresholds: str = "memory.available<100Mi") -> None:
        self.clock = clock
        self.runtime = FakeRuntime(clock, start_delay=0, start_jitter=0)
        self.host = SimulatedHost(GI, 100 * GI, clock.now())
        self.pods: dict[str, dict[str, Any]] = {}
        self.killed: list[tuple[str, str]] = []
        self.reclaimed = 0
        self.recorder = FakeRecorder()
        self.manager = EvictionManager(
            SummaryProvider("fake-1", self.runtime, self.host, clock),
            lambda: list(self.pods.values()),
            self.kill,
            self.recorder,
            clock,
            parse_thresholds(thresholds),
            reclaim=self.reclaim,
        )

    async def run(self, name: str, memory: int, **api: Any) -> None:
        await start_pod(self.runtime, name, {"c": {"FAKE_MEMORY_BYTES": str(memory)}})
        self.pods[name] = api_pod(name, **api)

    async def kill(self, pod: dict[str, Any], message: str) -> None:
        self.killed.append((pod["metadata"]["name"], message))
        for c in await self.runtime.list_containers():
            if c.labels.get("io.kubernetes.pod.uid") == pod["metadata"]["uid"]:
                await self.runtime.stop_container(c.id, 0)
        del self.pods[pod["metadata"]["name"]]

    async def reclaim(self) -> None:
        self.reclaimed += 1


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def test_no_pressure_no_eviction(clock: FakeClock) -> None:
    node = Node(clock)
    await node.run("small", 100 * MI)
    assert await node.manager.synchronize() is None
    assert node.manager.signals().memory_pressure is False
    assert node.killed == []


async def test_memory_pressure_evicts_the_top_ranked_pod_once_per_pass(clock: FakeClock) -> None:
    node = Node(clock)
    await node.run("hog", 700 * MI)
    await node.run("other", 250 * MI)
    evicted = await node.manager.synchronize()
    assert evicted is not None and evicted["metadata"]["name"] == "hog"
    assert node.manager.signals().memory_pressure is True
    [(name, message)] = node.killed
    assert name == "hog"
    assert message.startswith(
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 74Mi. "
    )
    assert "Container c was using 700Mi, request is 0" in message
    assert node.recorder.events == [f"Warning Evicted {message}"]
    assert await node.manager.synchronize() is None  # 750Mi left free: enough
    assert len(node.killed) == 1


async def test_pressure_stays_for_the_transition_period(clock: FakeClock) -> None:
    node = Node(clock)
    await node.run("hog", 1000 * MI)
    await node.manager.synchronize()
    assert node.manager.signals().memory_pressure is True
    await clock.step(299)
    assert node.manager.signals().memory_pressure is True
    await clock.step(2)
    assert node.manager.signals().memory_pressure is False


async def test_critical_pods_are_spared(clock: FakeClock) -> None:
    node = Node(clock)
    await node.run("system", 900 * MI, priority=2_000_000_000)
    await node.run("static", 60 * MI, **{"kubernetes.io/config.source": "file"})
    await node.run("user", 10 * MI)
    evicted = await node.manager.synchronize()
    assert evicted is not None and evicted["metadata"]["name"] == "user"
    assert await node.manager.synchronize() is None  # only critical pods left: pressure remains
    assert node.manager.signals().memory_pressure is True


async def test_disk_pressure_reclaims_before_evicting(clock: FakeClock) -> None:
    node = Node(clock, thresholds="nodefs.available<10%")
    node.host.fs_bytes = 100 * GI
    node.host.sample = lambda pods, now: _full_disk(node, pods, now)  # type: ignore[method-assign]
    await node.run("writer", 10 * MI)
    await node.manager.synchronize()
    assert node.reclaimed == 1
    assert node.manager.signals().disk_pressure is True
    assert node.killed[0][1].startswith(
        "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi"
    )


def _full_disk(node: Node, pods: Any, now: float) -> Any:
    sample = SimulatedHost.sample(node.host, pods, now)
    return type(sample)(**{**sample.__dict__, "fs_available_bytes": GI})


async def test_evicted_pods_fail_with_reason_evicted(clock: FakeClock) -> None:
    evicted = EvictedPods(clock)
    pod = api_pod("hog")
    failed = evicted.add(pod, "The node was low on resource: memory. ")
    assert failed["status"]["phase"] == "Failed" and pod["status"]["phase"] == "Running"
    assert evicted.apply(api_pod("other")) == api_pod("other")
    status = evicted.status(pod, {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]})
    assert (status["phase"], status["reason"], status["message"]) == (
        "Failed", "Evicted", "The node was low on resource: memory. ")  # fmt: skip
    assert [c["type"] for c in status["conditions"]] == ["DisruptionTarget", "Ready"]
    assert status["conditions"][0]["reason"] == "TerminationByKubelet"
    assert evicted.grace(pod, 30.0) == 1.0
    evicted.forget("uid-hog")
    assert evicted.grace(pod, 30.0) == 30.0


def test_the_disruption_condition_keeps_its_transition_time() -> None:
    first = evicted_status({}, "m", "2026-01-01T00:00:00Z")
    again = evicted_status({"conditions": []}, "m", "2026-01-01T00:05:00Z", first)
    assert again["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:00:00Z"

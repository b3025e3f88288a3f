"""``NodeHeartbeats``: many nodes served by one task, on a FakeClock against the FakeClient."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from minikube_py.api import errors
from minikube_py.client.resourcetypes import LEASES, NODES
from minikube_py.clock import FakeClock
from minikube_py.metrics import Registry
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.node.conditions import NodeSignals
from nodeagent.node.heartbeats import NodeHeartbeats
from nodeagent.node.lease import NODE_LEASE_NAMESPACE
from nodeagent.node.nodeinfo import fake_node_config


class Harness:
    def __init__(self) -> None:
        self.fake = FakeClient()
        self.clock = FakeClock()
        self.heartbeats = NodeHeartbeats(clock=self.clock, registry=Registry())

    def add(self, count: int, **kwargs: object) -> None:
        for i in range(1, count + 1):
            config = fake_node_config(f"fake-{i}", port=10250, runtime_version="fake://0.1.0")
            self.heartbeats.add(self.fake, config, **kwargs)  # type: ignore[arg-type]

    async def advance(self, seconds: float, step: float = 0.1) -> None:
        for _ in range(round(seconds / step)):
            await self.clock.step(step)
            for _ in range(10):
                await asyncio.sleep(0)

    def count(self, verb: str, resource: str) -> int:
        return len(self.fake.filter_actions(verb, resource))


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    harness = Harness()
    task = asyncio.create_task(harness.heartbeats.run())
    yield harness
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_thousand_nodes_spread_renewals_over_the_interval(harness: Harness) -> None:
    tasks_before = len(asyncio.all_tasks())
    harness.add(1000)
    await harness.advance(12)
    assert len(harness.fake.all(NODES)) == 1000
    assert len(harness.fake.all(LEASES)) == 1000
    per_second = []
    for _ in range(20):
        before = harness.count("update", "leases")
        await harness.advance(1)
        per_second.append(harness.count("update", "leases") - before)
        assert len(asyncio.all_tasks()) <= tasks_before + 3  # the loop (and its sleeper), no task per node
    assert sum(per_second) == pytest.approx(2000, abs=20)  # every node renews every 10 s
    assert min(per_second) >= 85 and max(per_second) <= 115, per_second


async def test_lease_failure_retried_with_backoff(harness: Harness) -> None:
    harness.add(1)
    await harness.advance(1)
    assert harness.count("create", "leases") == 1
    harness.fake.fail("update", "leases", errors.internal("boom"), times=3)
    harness.fake.clear_actions()
    await harness.advance(11)  # the renewal due at +10 s fails, then retries at +0.2 s, +0.4 s, +0.8 s
    updates = harness.count("update", "leases")
    assert updates == 4
    lease = harness.fake.stored(LEASES, NODE_LEASE_NAMESPACE, "fake-1")
    assert lease is not None and lease["spec"]["holderIdentity"] == "fake-1"


async def test_deleted_lease_is_recreated(harness: Harness) -> None:
    harness.add(1)
    await harness.advance(1)
    await harness.fake.resource(LEASES, NODE_LEASE_NAMESPACE).delete("fake-1")
    await harness.advance(11)
    assert harness.fake.stored(LEASES, NODE_LEASE_NAMESPACE, "fake-1") is not None


async def test_status_reported_on_change_and_every_five_minutes(harness: Harness) -> None:
    signals = [NodeSignals()]
    harness.add(1, signals=lambda: signals[0])
    await harness.advance(1)

    def status_patches() -> int:
        return len([a for a in harness.fake.filter_actions("patch", "nodes") if a.subresource == "status"])

    await harness.advance(120)
    assert status_patches() == 0  # checked every 10 s, nothing changed
    signals[0] = NodeSignals(disk_pressure=True)
    await harness.advance(10)
    assert status_patches() == 1
    node = harness.fake.stored(NODES, "", "fake-1")
    assert node is not None
    disk = next(c for c in node["status"]["conditions"] if c["type"] == "DiskPressure")
    assert disk["status"] == "True"
    await harness.advance(290)
    assert status_patches() == 1
    await harness.advance(11)
    assert status_patches() == 2


async def test_deleted_node_registers_again(harness: Harness) -> None:
    harness.add(1)
    await harness.advance(1)
    first = harness.fake.stored(NODES, "", "fake-1")
    assert first is not None
    await harness.fake.resource(NODES).delete("fake-1")
    await harness.advance(311)  # the first report due after 5 minutes finds it gone
    again = harness.fake.stored(NODES, "", "fake-1")
    assert again is not None and again["metadata"]["uid"] != first["metadata"]["uid"]
    await harness.advance(10)
    lease = harness.fake.stored(LEASES, NODE_LEASE_NAMESPACE, "fake-1")
    assert lease is not None and lease["metadata"]["ownerReferences"][0]["uid"] == again["metadata"]["uid"]


async def test_registration_retried(harness: Harness) -> None:
    harness.fake.fail("create", "nodes", errors.internal("apiserver starting"), times=2)
    harness.add(1)
    await harness.advance(1)
    assert harness.fake.stored(NODES, "", "fake-1") is not None
    assert harness.count("create", "nodes") == 3

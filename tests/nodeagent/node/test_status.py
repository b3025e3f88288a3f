"""Registration and node status against the FakeClient with a FakeClock."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.client.resourcetypes import NODES
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.node.conditions import NodeSignals, node_conditions
from nodeagent.node.nodeinfo import (
    FAKE_INSTANCE_TYPE,
    KUBELET_VERSION,
    NodeConfig,
    fake_node_config,
    host_memory_bytes,
    process_node_config,
)
from nodeagent.node.status import NodeStatusReporter

SUFFICIENT = "kubelet has sufficient memory available"
INSUFFICIENT = "kubelet has insufficient memory available"
NO_PID = "kubelet has insufficient PID available"


def config(name: str = "fake-1") -> NodeConfig:
    return fake_node_config(name, port=10250, runtime_version="fake://0.1.0")


def by_type(conditions: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {c["type"]: c for c in conditions}


@pytest.mark.parametrize(
    ("signals", "expected"),
    [
        (
            NodeSignals(),
            {
                "MemoryPressure": (
                    "False",
                    "KubeletHasSufficientMemory",
                    SUFFICIENT,
                ),
                "DiskPressure": ("False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                "PIDPressure": ("False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                "Ready": ("True", "KubeletReady", "kubelet is posting ready status"),
            },
        ),
        (
            NodeSignals(memory_pressure=True, disk_pressure=True, pid_pressure=True),
            {
                "MemoryPressure": (
                    "True",
                    "KubeletHasInsufficientMemory",
                    INSUFFICIENT,
                ),
                "DiskPressure": ("True", "KubeletHasDiskPressure", "kubelet has disk pressure"),
                "PIDPressure": (
                    "True",
                    "KubeletHasInsufficientPID",
                    NO_PID,
                ),
                "Ready": ("True", "KubeletReady", "kubelet is posting ready status"),
            },
        ),
        (
            NodeSignals(not_ready=("container runtime is down",)),
            {"Ready": ("False", "KubeletNotReady", "container runtime is down")},
        ),
        (
            NodeSignals(not_ready=("a", "b")),
            {"Ready": ("False", "KubeletNotReady", "[a, b]")},
        ),
    ],
)
def test_conditions(signals: NodeSignals, expected: dict[str, tuple[str, str, str]]) -> None:
    conditions = node_conditions(signals, [], 1000.0)
    assert [c["type"] for c in conditions] == ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
    got = by_type(conditions)
    for kind, (status, reason, message) in expected.items():
        assert (got[kind]["status"], got[kind]["reason"], got[kind]["message"]) == (status, reason, message)


def test_transition_time_kept_while_status_unchanged() -> None:
    first = node_conditions(NodeSignals(), [], 1000.0)
    second = by_type(node_conditions(NodeSignals(disk_pressure=True), first, 2000.0))
    assert second["Ready"]["lastTransitionTime"] == format_rfc3339(1000.0)
    assert second["Ready"]["lastHeartbeatTime"] == format_rfc3339(2000.0)
    assert second["DiskPressure"]["lastTransitionTime"] == format_rfc3339(2000.0)


async def test_register_creates_the_node() -> None:
    fake, clock = FakeClient(), FakeClock()
    reporter = NodeStatusReporter(fake, config(), clock=clock)
    await reporter.register()
    node = fake.stored(NODES, "", "fake-1")
    assert node is not None and reporter.uid == node["metadata"]["uid"]
    labels = node["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == "fake-1"
    assert labels["kubernetes.io/os"] == "linux"
    assert labels["node.kubernetes.io/instance-type"] == FAKE_INSTANCE_TYPE
    status = node["status"]
    assert status["capacity"] == {"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    assert status["allocatable"] == status["capacity"]
    assert status["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 10250}}
    assert status["addresses"] == [
        {"type": "InternalIP", "address": "127.0.0.1"},
        {"type": "Hostname", "address": "fake-1"},
    ]
    info = status["nodeInfo"]
    assert info["kubeletVersion"] == KUBELET_VERSION
    assert info["containerRuntimeVersion"] == "fake://0.1.0"
    assert info["operatingSystem"] == "linux"
    assert by_type(status["conditions"])["Ready"]["status"] == "True"


def test_stable_ids_differ_per_node() -> None:
    one, again, other = config("a").node_info(), config("a").node_info(), config("b").node_info()
    assert one == again
    assert {one[k] for k in ("machineID", "systemUUID", "bootID")}.isdisjoint(
        {other[k] for k in ("machineID", "systemUUID", "bootID")}
    )


async def test_restart_keeps_spec_and_transition_times() -> None:
    fake, clock = FakeClient(), FakeClock()
    await NodeStatusReporter(fake, config(), clock=clock).register()
    before = fake.stored(NODES, "", "fake-1")
    assert before is not None
    spec = {"unschedulable": True, "taints": [{"key": "k", "effect": "NoSchedule"}]}
    await fake.resource(NODES).patch(
        "fake-1", {"spec": spec, "metadata": {"labels": {"kubernetes.io/os": "x"}}}
    )
    await clock.step(60)
    fake.clear_actions()
    restarted = NodeStatusReporter(fake, config(), clock=clock)
    await restarted.register()
    after = fake.stored(NODES, "", "fake-1")
    assert after is not None
    assert after["spec"] == spec
    assert after["metadata"]["uid"] == before["metadata"]["uid"] == restarted.uid
    assert after["metadata"]["labels"]["kubernetes.io/os"] == "linux"
    ready = by_type(after["status"]["conditions"])["Ready"]
    assert (
        ready["lastTransitionTime"] == by_type(before["status"]["conditions"])["Ready"]["lastTransitionTime"]
    )
    assert ready["lastHeartbeatTime"] == format_rfc3339(clock.now())
    status_patches = [a for a in fake.filter_actions("patch", "nodes") if a.subresource == "status"]
    assert len(status_patches) == 1


@pytest.mark.parametrize(
    ("elapsed", "change", "patched"),
    [
        (10, False, False),  # nothing changed, report not due
        (290, False, False),
        (300, False, True),  # nodeStatusReportFrequency
        (10, True, True),  # a change is reported at once
    ],
)
async def test_report_frequency(elapsed: float, change: bool, patched: bool) -> None:
    fake, clock = FakeClient(), FakeClock()
    signals = NodeSignals()
    reporter = NodeStatusReporter(fake, config(), clock=clock, signals=lambda: signals)
    await reporter.register()
    await clock.step(elapsed)
    if change:
        signals = NodeSignals(memory_pressure=True)
    assert await reporter.sync_node_status() is patched
    patches = fake.filter_actions("patch", "nodes")
    assert len(patches) == int(patched)
    assert all(p.subresource == "status" for p in patches)
    if patched:
        node = fake.stored(NODES, "", "fake-1")
        assert node is not None
        memory = by_type(node["status"]["conditions"])["MemoryPressure"]
        assert memory["status"] == ("True" if change else "False")
        assert memory["lastHeartbeatTime"] == format_rfc3339(clock.now())


async def test_deleted_node_is_forgotten() -> None:
    fake, clock = FakeClient(), FakeClock()
    reporter = NodeStatusReporter(fake, config(), clock=clock, report_frequency=0)
    await reporter.register()
    await fake.resource(NODES).delete("fake-1")
    with pytest.raises(ApiError):
        await reporter.sync_node_status()
    assert not reporter.registered


def test_process_node_capacity(tmp_path: Path) -> None:
    node = process_node_config("node-1", data_dir=tmp_path, port=1, runtime_version="process://0.1.0")
    assert node.capacity["pods"] == "110"
    assert node.capacity["memory"] == f"{host_memory_bytes() // 1024}Ki"
    cpus = int(node.capacity["cpu"])
    assert node.allocatable["cpu"] == f"{cpus * 1000 - 100}m"
    allocatable_memory = int(node.allocatable["memory"].removesuffix("Ki"))
    assert allocatable_memory == (host_memory_bytes() - 356 * 1024 * 1024) // 1024
    assert node.default_labels()["node.kubernetes.io/instance-type"] == "minikube-py-process"


async def test_register_writes_the_nodes_pod_range_and_address() -> None:
    fake = FakeClient()
    node = dataclasses.replace(config("node-1"), address="127.128.0.1", pod_cidr="127.128.0.0/24")
    await NodeStatusReporter(fake, node, clock=FakeClock()).register()
    stored = fake.stored(NODES, "", "node-1")
    assert stored is not None
    assert stored["spec"] == {"podCIDR": "127.128.0.0/24", "podCIDRs": ["127.128.0.0/24"]}
    assert stored["status"]["addresses"] == [
        {"type": "InternalIP", "address": "127.128.0.1"},
        {"type": "Hostname", "address": "node-1"},
    ]


@pytest.mark.parametrize("before", [{}, {"podCIDR": "127.1.0.0/16", "podCIDRs": ["127.1.0.0/16"]}])
async def test_a_restart_with_another_pod_range_updates_the_node(before: dict[str, Any]) -> None:
    """A Node of an older version (no range, or 127.N.0.0/16) says the range its pods now use;
    the rest of its spec stays."""
    fake, clock = FakeClient(), FakeClock()
    await NodeStatusReporter(fake, config("node-1"), clock=clock).register()
    await fake.resource(NODES).patch("node-1", {"spec": {**before, "unschedulable": True}})
    node = dataclasses.replace(config("node-1"), address="127.128.0.1", pod_cidr="127.128.0.0/24")
    await NodeStatusReporter(fake, node, clock=clock).register()
    stored = fake.stored(NODES, "", "node-1")
    assert stored is not None
    assert stored["spec"] == {
        "podCIDR": "127.128.0.0/24",
        "podCIDRs": ["127.128.0.0/24"],
        "unschedulable": True,
    }

from __future__ import annotations

import asyncio
from typing import Any

from controllers.nodelifecycle import NodeLifecycleController, TaintEvictionController
from controllers.nodelifecycle.taints import format_time
from minikube_py.client.resourcetypes import LEASES, NODES, PODS
from minikube_py.controller import run_workers
from tests.controllers.lifecycle.fixtures import World, meta

LEASE_NS = "kube-node-lease"
UNREACHABLE = "node.kubernetes.io/unreachable"
TOLERATE_5M = {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}


def ready_node(world: World, name: str = "n1") -> dict[str, Any]:
    now = format_time(world.clock.now())
    conditions = [
        {
            "type": kind,
            "status": status,
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
            "reason": "Kubelet",
        }
        for kind, status in (
            ("Ready", "True"),
            ("MemoryPressure", "False"),
            ("DiskPressure", "False"),
            ("PIDPressure", "False"),
        )
    ]
    return {"metadata": meta(name), "spec": {}, "status": {"conditions": conditions}}


def lease(world: World, name: str = "n1") -> dict[str, Any]:
    return {
        "metadata": meta(name, LEASE_NS),
        "spec": {"holderIdentity": name, "renewTime": format_time(world.clock.now())},
    }


def bound_pod(name: str, node: str = "n1", tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    ready = {"type": "Ready", "status": "True", "lastTransitionTime": "2027-01-01T00:00:00Z"}
    spec: dict[str, Any] = {"nodeName": node, "tolerations": tolerations or []}
    return {
        "metadata": meta(name, "default"),
        "spec": spec,
        "status": {"phase": "Running", "conditions": [ready]},
    }


def setup() -> tuple[World, NodeLifecycleController, TaintEvictionController]:
    world = World()
    world.seed(NODES, ready_node(world))
    world.seed(LEASES, lease(world), namespace=LEASE_NS)
    world.seed(PODS, bound_pod("p1"), bound_pod("p2", tolerations=[TOLERATE_5M]), bound_pod("other", "n2"))
    nodes = NodeLifecycleController(world.fake, world.factory, world.recorder, clock=world.clock)
    taints = TaintEvictionController(world.fake, world.factory, world.recorder, clock=world.clock)
    return world, nodes, taints


def refresh(world: World) -> None:
    world.refresh(NODES)
    world.refresh(PODS)
    world.refresh(LEASES, LEASE_NS)


def node_state(world: World) -> tuple[dict[str, str], list[dict[str, Any]]]:
    node = world.fake.stored(NODES, "", "n1")
    assert node is not None
    return {c["type"]: c["status"] for c in node["status"]["conditions"]}, node["spec"].get("taints") or []


def pod_ready(world: World, name: str) -> str:
    pod = world.fake.stored(PODS, "default", name)
    assert pod is not None
    return next(c["status"] for c in pod["status"]["conditions"] if c["type"] == "Ready")


async def go_unreachable(world: World, nodes: NodeLifecycleController) -> None:
    """40 s and more of silence, then the passes that follow (the informer is simulated)."""
    await nodes.monitor_node_health()
    await world.clock.step(41)
    await nodes.monitor_node_health()
    refresh(world)
    await world.clock.step(5)
    await nodes.monitor_node_health()
    await nodes.sync("n1")  # the node update event: NoSchedule taints follow the conditions
    refresh(world)


async def test_renewed_lease_keeps_the_node_ready() -> None:
    world, nodes, _ = setup()
    await nodes.monitor_node_health()
    assert "Normal RegisteredNode Registered Node n1 in Controller" in world.recorder.events
    for _ in range(3):  # 90 s with a lease renewal every 30 s, no Ready heartbeat at all
        await world.clock.step(30)
        renewed = world.fake.stored(LEASES, LEASE_NS, "n1")
        assert renewed is not None
        renewed["spec"]["renewTime"] = format_time(world.clock.now())
        await world.fake.resource(LEASES, LEASE_NS).update(renewed)
        refresh(world)
        await nodes.monitor_node_health()
    assert not world.fake.filter_actions("update", "nodes")
    assert node_state(world)[0]["Ready"] == "True"

    await world.clock.step(40)
    await nodes.monitor_node_health()
    assert node_state(world)[0]["Ready"] == "True"  # exactly the grace period: not yet
    await world.clock.step(1)
    await nodes.monitor_node_health()
    assert node_state(world)[0]["Ready"] == "Unknown"


async def test_silent_node_goes_unknown_tainted_and_its_pods_not_ready() -> None:
    world, nodes, _ = setup()
    await nodes.monitor_node_health()
    await world.clock.step(41)
    await nodes.monitor_node_health()

    conditions, taints = node_state(world)
    assert conditions == {
        "Ready": "Unknown",
        "MemoryPressure": "Unknown",
        "DiskPressure": "Unknown",
        "PIDPressure": "Unknown",
    }
    node = world.fake.stored(NODES, "", "n1")
    assert node is not None
    ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["reason"], ready["message"]) == (
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
    )
    assert taints == []  # NoExecute follows on the next pass, on the Ready status it observed
    assert "Normal NodeNotReady Node n1 status is now: NodeNotReady" in world.recorder.events
    assert pod_ready(world, "p1") == "False" and pod_ready(world, "p2") == "False"
    assert pod_ready(world, "other") == "True"
    assert world.recorder.events.count("Warning NodeNotReady Node is not ready") == 2

    refresh(world)
    await world.clock.step(5)
    await nodes.monitor_node_health()
    await nodes.sync("n1")
    _, taints = node_state(world)
    assert {(t["key"], t["effect"]) for t in taints} == {
        (UNREACHABLE, "NoSchedule"),
        (UNREACHABLE, "NoExecute"),
    }
    no_execute = next(t for t in taints if t["effect"] == "NoExecute")
    assert no_execute["timeAdded"] == format_time(world.clock.now())

    refresh(world)
    await nodes.monitor_node_health()  # nothing more to do: no new writes
    await nodes.sync("n1")
    assert len(world.fake.filter_actions("patch", "nodes")) == 2


async def test_ready_false_gets_not_ready_taints() -> None:
    world, nodes, _ = setup()
    node = world.fake.stored(NODES, "", "n1")
    assert node is not None
    node["status"]["conditions"][0].update(status="False", reason="KubeletNotReady")
    await world.fake.resource(NODES).update_status(node)
    refresh(world)
    await nodes.monitor_node_health()
    await nodes.sync("n1")
    _, taints = node_state(world)
    keys = {(t["key"], t["effect"]) for t in taints}
    assert keys == {
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/not-ready", "NoSchedule"),
    }


async def test_untolerated_pod_is_evicted_at_once_and_tolerating_pod_after_300s() -> None:
    world, nodes, evictor = setup()
    await go_unreachable(world, nodes)

    await evictor.sync("n1")
    assert world.fake.stored(PODS, "default", "p1") is None
    assert "Normal TaintManagerEviction Marking for deletion Pod default/p1" in world.recorder.events
    status = [a for a in world.fake.filter_actions("update", "pods") if a.name == "p1" and a.subresource][-1]
    assert any(c["type"] == "DisruptionTarget" for c in status.body["status"]["conditions"])
    assert world.fake.stored(PODS, "default", "p2") is not None
    assert evictor.scheduled_at("default/p2") == world.clock.now() + 300

    async with asyncio.TaskGroup() as tg:
        workers = tg.create_task(
            run_workers("evictions", evictor.eviction_queue, evictor.evict, 1, clock=world.clock)
        )
        await world.clock.step(299)
        assert world.fake.stored(PODS, "default", "p2") is not None
        await world.clock.step(1)
        assert world.fake.stored(PODS, "default", "p2") is None
        workers.cancel()
    assert "Normal TaintManagerEviction Marking for deletion Pod default/p2" in world.recorder.events
    assert world.fake.stored(PODS, "default", "other") is not None


async def test_recovery_removes_taints_and_cancels_pending_evictions() -> None:
    world, nodes, evictor = setup()
    await go_unreachable(world, nodes)
    await evictor.sync("default/p2")  # the pod key path schedules it too
    assert evictor.scheduled_at("default/p2") is not None

    node = world.fake.stored(NODES, "", "n1")  # the kubelet is back
    assert node is not None
    now = format_time(world.clock.now())
    for condition in node["status"]["conditions"]:
        condition.update(status="False" if condition["type"] != "Ready" else "True", lastHeartbeatTime=now)
    await world.fake.resource(NODES).update_status(node)
    refresh(world)
    await nodes.monitor_node_health()
    refresh(world)
    await nodes.sync("n1")
    assert node_state(world) == (
        {"Ready": "True", "MemoryPressure": "False", "DiskPressure": "False", "PIDPressure": "False"},
        [],
    )

    refresh(world)
    await evictor.sync("n1")
    assert evictor.scheduled_at("default/p2") is None
    assert "Normal TaintManagerEviction Cancelling deletion of Pod default/p2" in world.recorder.events
    await evictor.evict("default/p2")  # the queued key fires later: nothing happens
    assert world.fake.stored(PODS, "default", "p2") is not None


async def test_pod_bound_to_unready_node_is_marked_not_ready() -> None:
    world, nodes, _ = setup()
    await go_unreachable(world, nodes)
    world.seed(PODS, bound_pod("late"))
    nodes._pod_updated(None, bound_pod("late"))
    assert len(nodes.queue) == 1
    await nodes.sync("default/late")
    assert pod_ready(world, "late") == "False"

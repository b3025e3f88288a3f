"""Small builders for scheduler tests: pods, nodes, NodeInfos, a snapshot and a Handle.

``make_pod("p", cpu="500m", labels={"app": "web"})`` gives a pod JSON dict with one container;
``make_node("n1", cpu="4", labels={...})`` a node with allocatable resources and the
``kubernetes.io/hostname`` label; ``node_info(node, *pods)`` the NodeInfo holding them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from scheduler.framework.interface import Handle
from scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo

Port = int | tuple[int, str] | tuple[int, str, str]  # hostPort, (hostPort, protocol[, hostIP])


def make_pod(
    name: str = "p",
    *,
    namespace: str = "default",
    uid: str | None = None,
    cpu: str | None = None,
    memory: str | None = None,
    ephemeral_storage: str | None = None,
    extended: Mapping[str, str] | None = None,
    init_cpu: str | None = None,
    overhead: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    node_name: str = "",
    node_selector: Mapping[str, str] | None = None,
    tolerations: Sequence[Mapping[str, Any]] | None = None,
    affinity: Mapping[str, Any] | None = None,
    topology_spread: Sequence[Mapping[str, Any]] | None = None,
    ports: Sequence[Port] = (),
    priority: int | None = None,
    scheduling_gates: Sequence[str] = (),
    images: Sequence[str] = ("busybox",),
    init_images: Sequence[str] = (),
    pvcs: Sequence[str] = (),
    owner_kind: str | None = None,
    deleting: bool = False,
) -> Object:
    requests: dict[str, str] = {}
    for key, value in (("cpu", cpu), ("memory", memory), ("ephemeral-storage", ephemeral_storage)):
        if value is not None:
            requests[key] = value
    requests.update(extended or {})
    containers: list[Object] = [
        {"name": f"c{i}", "image": image, "resources": {"requests": requests} if i == 0 and requests else {}}
        for i, image in enumerate(images)
    ]
    if ports:
        containers[0]["ports"] = [_port(p) for p in ports]
    spec: Object = {"containers": containers}
    init: list[Object] = [{"name": f"init{i}", "image": image} for i, image in enumerate(init_images)]
    if init_cpu is not None:
        init = init or [{"name": "init0", "image": "busybox"}]
        init[0]["resources"] = {"requests": {"cpu": init_cpu}}
    if init:
        spec["initContainers"] = init
    optional: dict[str, Any] = {
        "overhead": dict(overhead) if overhead else None,
        "nodeName": node_name or None,
        "nodeSelector": dict(node_selector) if node_selector else None,
        "tolerations": [dict(t) for t in tolerations] if tolerations else None,
        "affinity": dict(affinity) if affinity else None,
        "topologySpreadConstraints": [dict(c) for c in topology_spread] if topology_spread else None,
        "priority": priority,
        "schedulingGates": [{"name": g} for g in scheduling_gates] or None,
        "volumes": [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in pvcs] or None,
    }
    spec.update({k: v for k, v in optional.items() if v is not None})
    meta: Object = {"name": name, "namespace": namespace, "uid": uid or f"uid-{namespace}-{name}"}
    if labels:
        meta["labels"] = dict(labels)
    if owner_kind:
        meta["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": owner_kind, "name": "owner", "uid": "owner", "controller": True}
        ]
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _port(port: Port) -> Object:
    if isinstance(port, int):
        return {"containerPort": port, "hostPort": port, "protocol": "TCP"}
    out: Object = {"containerPort": port[0], "hostPort": port[0], "protocol": port[1]}
    if len(port) == 3:
        out["hostIP"] = port[2]
    return out


def make_node(
    name: str = "n1",
    *,
    cpu: str = "4",
    memory: str = "32Gi",
    pods: int = 110,
    ephemeral_storage: str | None = None,
    extended: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[Mapping[str, Any]] = (),
    unschedulable: bool = False,
    images: Mapping[str, int] | None = None,
) -> Object:
    allocatable: dict[str, str] = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    if ephemeral_storage is not None:
        allocatable["ephemeral-storage"] = ephemeral_storage
    allocatable.update(extended or {})
    spec: Object = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    status: Object = {"allocatable": allocatable, "capacity": dict(allocatable)}
    if images:
        status["images"] = [{"names": [image], "sizeBytes": size} for image, size in images.items()]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": status,
    }


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> Object:
    out: Object = {"key": key, "effect": effect}
    if value:
        out["value"] = value
    return out


def toleration(key: str = "", value: str = "", *, operator: str = "Equal", effect: str = "") -> Object:
    out: Object = {"operator": operator}
    for field, text in (("key", key), ("value", value), ("effect", effect)):
        if text:
            out[field] = text
    return out


def node_info(node: Object, *pods: Object) -> NodeInfo:
    """A NodeInfo for ``node`` holding ``pods`` (their spec.nodeName set to the node)."""
    info = NodeInfo()
    info.set_node(node)
    for pod in pods:
        placed = {**pod, "spec": {**pod["spec"], "nodeName": info.name}}
        info.add_pod(PodInfo.of(placed))
    return info


def queued(pod: Object, timestamp: float = 0.0) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo.of(pod), timestamp=timestamp)


class FakeSnapshot:
    """A SnapshotLister over a fixed list of NodeInfos."""

    def __init__(self, nodes: Sequence[NodeInfo] = ()) -> None:
        self.nodes = list(nodes)

    def list(self) -> list[NodeInfo]:
        return self.nodes

    def get(self, node_name: str) -> NodeInfo | None:
        return next((n for n in self.nodes if n.name == node_name), None)

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        return [n for n in self.nodes if n.pods_with_affinity]

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        return [n for n in self.nodes if n.pods_with_required_anti_affinity]

    def num_nodes_with_image(self, image: str) -> int:
        return sum(1 for n in self.nodes if image in n.image_sizes)


class FakeRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def event(self, obj: Object, event_type: str, reason: str, message: str) -> None:
        self.events.append((event_type, reason, message))


def make_handle(nodes: Sequence[NodeInfo] = (), client: FakeClient | None = None) -> Handle:
    """A Handle over a FakeSnapshot of ``nodes``, a FakeClient and a FakeClock."""
    return Handle(client or FakeClient(), FakeSnapshot(nodes), FakeRecorder(), FakeClock())

"""The scheduler's view of pods and nodes (upstream ``framework/types.go``).

``NodeInfo`` aggregates what is placed on a node: its pods, the resources they request, the
host ports they use and the images present, so that Filter and Score plugins answer in
O(1) per node. Objects inside are the informers' JSON dicts: never mutate them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from enum import IntFlag
from typing import Any, NamedTuple

from minikube_py.api.quantity import Quantity, QuantityError
from minikube_py.api.unstructured import Object as Object  # re-exported for callers

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
# what a container without requests counts as when spreading (upstream's non-zero defaults)
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


@dataclass
class Resource:
    """Requested or allocatable amounts: CPU in millicores, memory and ephemeral storage in
    bytes, pods as a count, extended resources (``example.com/gpu``) by name."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, resources: dict[str, Any] | None) -> Resource:
        """From a ResourceList (``{"cpu": "500m", "memory": "1Gi"}``); bad quantities count 0."""
        out = cls()
        for name, value in (resources or {}).items():
            quantity = _quantity(str(value))
            if name == CPU:
                out.milli_cpu = quantity.milli_value()
            elif name == MEMORY:
                out.memory = quantity.value()
            elif name == EPHEMERAL_STORAGE:
                out.ephemeral_storage = quantity.value()
            elif name == PODS:
                out.allowed_pod_number = quantity.value()
            else:
                out.scalar[name] = quantity.value()
        return out

    def add(self, other: Resource) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.ephemeral_storage += other.ephemeral_storage
        self.allowed_pod_number += other.allowed_pod_number
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + value

    def sub(self, other: Resource) -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.ephemeral_storage -= other.ephemeral_storage
        self.allowed_pod_number -= other.allowed_pod_number
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) - value

    def set_max(self, other: Resource) -> None:
        self.milli_cpu = max(self.milli_cpu, other.milli_cpu)
        self.memory = max(self.memory, other.memory)
        self.ephemeral_storage = max(self.ephemeral_storage, other.ephemeral_storage)
        for name, value in other.scalar.items():
            self.scalar[name] = max(self.scalar.get(name, 0), value)

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number, dict(self.scalar)
        )


@functools.lru_cache(maxsize=4096)
def _quantity(text: str) -> Quantity:
    try:
        return Quantity.parse(text)
    except QuantityError:
        return Quantity.from_int(0)


def compute_pod_resource_request(pod: Object, *, non_zero: bool = False) -> Resource:
    """What the pod asks for: the larger of the sum of its containers' requests and each init
    container's, plus ``spec.overhead`` (upstream ``resource.PodRequests``). ``non_zero``
    counts containers without a cpu/memory request as the upstream defaults (for scoring)."""
    spec = pod.get("spec") or {}
    total = Resource()
    for container in spec.get("containers") or []:
        total.add(_container_requests(container, non_zero))
    for container in spec.get("initContainers") or []:
        total.set_max(_container_requests(container, non_zero))
    if spec.get("overhead"):
        total.add(Resource.from_list(spec["overhead"]))
    return total


def _container_requests(container: Object, non_zero: bool) -> Resource:
    requests = (container.get("resources") or {}).get("requests") or {}
    out = Resource.from_list(requests)
    if non_zero:
        if CPU not in requests:
            out.milli_cpu = DEFAULT_MILLI_CPU_REQUEST
        if MEMORY not in requests:
            out.memory = DEFAULT_MEMORY_REQUEST
    return out


def pod_key(pod: Object) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def host_ports(pod: Object) -> list[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of every container port with a hostPort."""
    out = []
    for container in (pod.get("spec") or {}).get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("hostPort"):
                out.append(
                    (port.get("hostIP") or "0.0.0.0", port.get("protocol") or "TCP", int(port["hostPort"]))
                )
    return out


@dataclass
class PodInfo:
    """A pod plus what plugins keep recomputing from it (requests, affinity terms)."""

    pod: Object
    requests: Resource = field(default_factory=Resource)
    non_zero_requests: Resource = field(default_factory=Resource)

    @classmethod
    def of(cls, pod: Object) -> PodInfo:
        return cls(pod, compute_pod_resource_request(pod), compute_pod_resource_request(pod, non_zero=True))

    @property
    def key(self) -> str:
        return pod_key(self.pod)

    @property
    def affinity(self) -> Object:
        return ((self.pod.get("spec") or {}).get("affinity")) or {}


@dataclass
class NodeInfo:
    """One node and what is placed on it (assumed pods included)."""

    node: Object | None = None
    pods: list[PodInfo] = field(default_factory=list)
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    allocatable: Resource = field(default_factory=Resource)
    used_ports: set[tuple[str, str, int]] = field(default_factory=set)
    image_sizes: dict[str, int] = field(default_factory=dict)  # image name -> size in bytes
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    generation: int = 0
    taints: list[Object] = field(default_factory=list)  # the node's spec.taints
    unschedulable: bool = False  # the node's spec.unschedulable (cordoned)
    name: str = ""  # the node's name, set with it

    def set_node(self, node: Object) -> None:
        self.node = node
        self.name = str((node.get("metadata") or {}).get("name", ""))
        spec = node.get("spec") or {}
        self.taints = spec.get("taints") or []
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = Resource.from_list((node.get("status") or {}).get("allocatable"))
        self.image_sizes = {
            name: int(image.get("sizeBytes") or 0)
            for image in (node.get("status") or {}).get("images") or []
            for name in image.get("names") or []
        }

    def add_pod(self, pod: PodInfo) -> None:
        self.pods.append(pod)
        self.requested.add(pod.requests)
        self.non_zero_requested.add(pod.non_zero_requests)
        self.used_ports.update(host_ports(pod.pod))
        affinity = pod.affinity
        if affinity.get("podAffinity") or affinity.get("podAntiAffinity"):
            self.pods_with_affinity.append(pod)
        anti = affinity.get("podAntiAffinity") or {}
        if anti.get("requiredDuringSchedulingIgnoredDuringExecution"):
            self.pods_with_required_anti_affinity.append(pod)

    def remove_pod(self, key: str) -> PodInfo | None:
        """Remove the pod ``ns/name``; returns it, or None when it was not here."""
        for i, pod in enumerate(self.pods):
            if pod.key == key:
                del self.pods[i]
                self.requested.sub(pod.requests)
                self.non_zero_requested.sub(pod.non_zero_requests)
                self.used_ports = {p for other in self.pods for p in host_ports(other.pod)}
                self.pods_with_affinity = [p for p in self.pods_with_affinity if p.key != key]
                self.pods_with_required_anti_affinity = [
                    p for p in self.pods_with_required_anti_affinity if p.key != key
                ]
                return pod
        return None

    def clone(self) -> NodeInfo:
        return NodeInfo(
            self.node,
            list(self.pods),
            self.requested.clone(),
            self.non_zero_requested.clone(),
            self.allocatable.clone(),
            set(self.used_ports),
            dict(self.image_sizes),
            list(self.pods_with_affinity),
            list(self.pods_with_required_anti_affinity),
            self.generation,
            self.taints,
            self.unschedulable,
            self.name,
        )


@dataclass
class QueuedPodInfo:
    """A pod in the scheduling queue: when it was (first) queued, how often it was tried, and
    which plugins rejected it last (only events those plugins registered can move it back)."""

    pod_info: PodInfo
    timestamp: float = 0.0
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)

    @property
    def pod(self) -> Object:
        return self.pod_info.pod

    @property
    def key(self) -> str:
        return self.pod_info.key


class ActionType(IntFlag):
    ADD = 1
    DELETE = 2
    UPDATE_NODE_ALLOCATABLE = 4
    UPDATE_NODE_LABEL = 8
    UPDATE_NODE_TAINT = 16
    UPDATE_NODE_CONDITION = 32
    UPDATE_POD_LABEL = 64
    UPDATE_POD_SCALE_DOWN = 128
    UPDATE = 4 | 8 | 16 | 32 | 64 | 128 | 256
    ALL = 1 | 2 | UPDATE


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """A change in the cluster that may make rejected pods schedulable: ``resource`` is
    ``Node``, ``Pod`` (assigned pods), ``PersistentVolumeClaim``..., ``action`` what happened.
    ``label`` names it in logs (``NodeAdd``, ``AssignedPodDelete``)."""

    resource: str
    action: ActionType
    label: str = ""

    def matches(self, other: ClusterEvent) -> bool:
        """Whether this registered interest covers the ``other`` event that happened."""
        return (self.resource in ("*", other.resource)) and bool(self.action & other.action)


class NodeScore(NamedTuple):
    """A node's score from one plugin (a tuple: built hundreds of times per cycle)."""

    name: str
    score: int


MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0

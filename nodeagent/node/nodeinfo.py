"""What a node says about itself when it registers (upstream ``kubelet_node_status.go``'s
``initialNode`` and the ``nodestatus`` setters for capacity, addresses and nodeInfo).

``NodeConfig`` is everything registration and status reporting need, fixed for the agent's life.
Two builders:

- ``process_node_config``: the host. Capacity is the host's CPUs (``sched_getaffinity``), memory
  (``/proc/meminfo`` MemTotal), 110 pods and the data dir's filesystem size. Allocatable is
  capacity minus the reservations minikube-py picks (upstream's defaults are zero, but a learner's
  laptop also runs the control plane): ``SYSTEM_RESERVED`` (100m CPU, 256Mi memory) plus
  upstream's default hard eviction thresholds (``memory.available<100Mi``,
  ``nodefs.available<10%``), exactly as upstream computes allocatable.
- ``fake_node_config``: simulated nodes (kwok-style): configured capacity, default 8 CPU, 32Gi,
  110 pods, 100Gi ephemeral storage; allocatable equals capacity.

``nodeInfo.kubeletVersion`` is ``KUBELET_VERSION`` (``v1.32.0-minikube-py``: the Kubernetes
version the apiserver reports, marked as not being upstream's kubelet). ``machineID``,
``systemUUID`` and ``bootID`` are derived from the node name (UUIDv5), stable across restarts,
different for every node. ``kubeProxyVersion`` is empty, as recent kubelets send it. The caller
passes ``runtime_version`` (``await runtime.version()``).
"""

from __future__ import annotations

import os
import platform
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from minikube_py.volumes import LOCAL_PATH_DIR_ANNOTATION

KUBELET_VERSION = "v1.32.0-minikube-py"
MAX_PODS = 110
PROCESS_INSTANCE_TYPE = "minikube-py-process"
FAKE_INSTANCE_TYPE = "minikube-py-fake"
SYSTEM_RESERVED_CPU_MILLIS = 100
SYSTEM_RESERVED_MEMORY = 256 * 1024 * 1024
EVICTION_HARD_MEMORY = 100 * 1024 * 1024  # upstream's memory.available<100Mi
EVICTION_HARD_NODEFS_FRACTION = 0.10  # upstream's nodefs.available<10%
AGENT_ADDRESS = "127.0.0.1"
_GOARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
_ID_NAMESPACE = uuid.UUID("6f1c1f2e-6b1e-4a51-9a40-6d696e696b65")


@dataclass(frozen=True)
class NodeConfig:
    """One node's fixed facts. ``port`` is the agent's HTTPS port
    (``status.daemonEndpoints.kubeletEndpoint.Port``); ``labels`` are added to the defaults."""

    name: str
    port: int
    instance_type: str
    capacity: Mapping[str, str]
    allocatable: Mapping[str, str]
    runtime_version: str
    address: str = AGENT_ADDRESS  # the InternalIP: where the agent's API listens
    labels: Mapping[str, str] = field(default_factory=dict)
    pod_cidr: str = ""  # spec.podCIDR, the node's range of pod IPs ("": none)
    annotations: Mapping[str, str] = field(default_factory=dict)  # added to the Node's

    def default_labels(self) -> dict[str, str]:
        """Upstream's well-known node labels (including the deprecated beta ones it still sets)."""
        arch = go_arch()
        return {
            "beta.kubernetes.io/arch": arch,
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": arch,
            "kubernetes.io/hostname": self.name,
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": self.instance_type,
            **self.labels,
        }

    def node_info(self) -> dict[str, str]:
        return {
            "machineID": _stable_id(self.name, "machine").hex,
            "systemUUID": str(_stable_id(self.name, "system")),
            "bootID": str(_stable_id(self.name, "boot")),
            "kernelVersion": platform.release(),
            "osImage": os_image(),
            "containerRuntimeVersion": self.runtime_version,
            "kubeletVersion": KUBELET_VERSION,
            # Deprecated; kubelets from 1.31 (DisableNodeKubeProxyVersion) leave it empty, and
            # upstream always sends it (no omitempty): typed clients require the key.
            "kubeProxyVersion": "",
            "operatingSystem": "linux",
            "architecture": go_arch(),
        }

    def addresses(self) -> list[dict[str, str]]:
        """``InternalIP`` (the node's own loopback address) and ``Hostname`` (its name)."""
        return [{"type": "InternalIP", "address": self.address}, {"type": "Hostname", "address": self.name}]

    def spec(self) -> dict[str, object]:
        """What registration writes to ``spec``: the node's pod range (upstream's node IPAM
        controller sets it; here the agent does, with the range it was given)."""
        return {"podCIDR": self.pod_cidr, "podCIDRs": [self.pod_cidr]} if self.pod_cidr else {}


def process_node_config(name: str, *, data_dir: Path, port: int, runtime_version: str) -> NodeConfig:
    """The host's resources minus the reservations (see the module docstring)."""
    cpus = len(os.sched_getaffinity(0))
    memory = host_memory_bytes()
    fs = os.statvfs(data_dir)
    storage = fs.f_blocks * fs.f_frsize
    capacity = {
        "cpu": str(cpus),
        "memory": f"{memory // 1024}Ki",
        "pods": str(MAX_PODS),
        "ephemeral-storage": f"{storage // 1024}Ki",
    }
    allocatable_memory = max(0, memory - SYSTEM_RESERVED_MEMORY - EVICTION_HARD_MEMORY)
    allocatable = {
        "cpu": f"{max(0, cpus * 1000 - SYSTEM_RESERVED_CPU_MILLIS)}m",
        "memory": f"{allocatable_memory // 1024}Ki",
        "pods": str(MAX_PODS),
        "ephemeral-storage": str(int(storage * (1 - EVICTION_HARD_NODEFS_FRACTION))),
    }
    # the local-path provisioner places this node's volumes where the agent says (its disk)
    annotations = {LOCAL_PATH_DIR_ANNOTATION: str(data_dir.absolute() / "local-path")}
    return NodeConfig(
        name, port, PROCESS_INSTANCE_TYPE, capacity, allocatable, runtime_version, annotations=annotations
    )


def fake_node_config(
    name: str,
    *,
    port: int,
    runtime_version: str,
    cpu: str = "8",
    memory: str = "32Gi",
    pods: int = MAX_PODS,
    ephemeral_storage: str = "100Gi",
) -> NodeConfig:
    """A simulated node: capacity as configured, allocatable the same."""
    capacity = {"cpu": cpu, "memory": memory, "pods": str(pods), "ephemeral-storage": ephemeral_storage}
    return NodeConfig(name, port, FAKE_INSTANCE_TYPE, capacity, dict(capacity), runtime_version)


def host_memory_bytes() -> int:
    """MemTotal from ``/proc/meminfo``."""
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no MemTotal in /proc/meminfo")


def go_arch() -> str:
    """The architecture as Go names it (``amd64``, ``arm64``)."""
    machine = platform.machine().lower()
    return _GOARCH.get(machine, machine)


@cache
def os_image() -> str:
    """``PRETTY_NAME`` from ``/etc/os-release`` (upstream's osImage), ``Linux`` without one."""
    try:
        with open("/etc/os-release") as release:
            for line in release:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "Linux"


def _stable_id(node_name: str, kind: str) -> uuid.UUID:
    return uuid.uuid5(_ID_NAMESPACE, f"{kind}/{node_name}")

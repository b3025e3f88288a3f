"""core/v1 Node: a worker machine, its taints, capacity, addresses and conditions."""

from __future__ import annotations

from pydantic import Field

from minikube_py.api.models.base import Int32, Int64, K8sModel, ResourceList, Time
from minikube_py.api.models.core_scheduling import TaintEffect
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import PROXY_VERBS, STATUS, Served, Subresource

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class Taint(K8sModel):
    """Marks a node so that pods not tolerating the taint are kept off it (or evicted)."""

    required_fields = ("key", "effect")

    key: str | None = None
    """The taint key to apply to the node."""
    value: str | None = None
    """The taint value matching the key."""
    effect: TaintEffect | None = None
    """What happens to pods that do not tolerate the taint."""
    time_added: Time | None = None
    """When a ``NoExecute`` taint was added."""


class ConfigMapNodeConfigSource(K8sModel):
    """A ConfigMap holding a node's configuration (a deprecated feature)."""

    required_fields = ("namespace", "name", "kubeletConfigKey")

    namespace: str | None = None
    """Namespace of the ConfigMap."""
    name: str | None = None
    """Name of the ConfigMap."""
    uid: str | None = None
    """UID of the ConfigMap."""
    resource_version: str | None = None
    """Resource version of the ConfigMap."""
    kubelet_config_key: str | None = None
    """The key holding the KubeletConfiguration."""


class NodeConfigSource(K8sModel):
    """Where a node's configuration comes from (a deprecated feature)."""

    config_map: ConfigMapNodeConfigSource | None = None
    """A ConfigMap as the source."""


class NodeSpec(K8sModel):
    """The attributes a node is created with."""

    pod_cidr: str | None = None
    """The pod IP range assigned to the node."""
    pod_cidrs: list[str] | None = tag(patch="merge")
    """The pod IP ranges assigned to the node, at most one per IP family."""
    provider_id: str | None = None
    """The node's ID assigned by the cloud provider, as ``<provider>://<id>``."""
    unschedulable: bool | None = None
    """Keeps new pods off the node. Defaults to false."""
    taints: list[Taint] | None = None
    """The node's taints."""
    config_source: NodeConfigSource | None = None
    """Deprecated dynamic kubelet configuration source."""
    external_id: str | None = None
    """Deprecated; not all kubelets set it."""


class NodeCondition(K8sModel):
    """The state of one aspect of a node."""

    required_fields = ("type", "status")

    type: str | None = None
    """Type of the condition, such as ``Ready``, ``MemoryPressure`` or ``DiskPressure``."""
    status: str | None = None
    """``True``, ``False`` or ``Unknown``."""
    last_heartbeat_time: Time | None = None
    """Last time the condition was reported."""
    last_transition_time: Time | None = None
    """Last time the condition changed from one status to another."""
    reason: str | None = None
    """Brief reason for the last transition."""
    message: str | None = None
    """Human-readable details of the last transition."""


class NodeAddress(K8sModel):
    """One address of a node."""

    required_fields = ("type", "address")

    type: str | None = None
    """``Hostname``, ``ExternalIP``, ``InternalIP``, ``ExternalDNS`` or ``InternalDNS``."""
    address: str | None = None
    """The address."""


class DaemonEndpoint(K8sModel):
    """A port a daemon of the node listens on."""

    required_fields = ("Port",)

    port: Int32 | None = Field(None, alias="Port")
    """Port number of the endpoint (upstream spells this JSON name with a capital P)."""


class NodeConfigStatus(K8sModel):
    """Status of the deprecated dynamic kubelet configuration."""

    assigned: NodeConfigSource | None = None
    """The configuration the node will try to use."""
    active: NodeConfigSource | None = None
    """The configuration the node is using."""
    last_known_good: NodeConfigSource | None = None
    """The configuration the node falls back to."""
    error: str | None = None
    """Problems reconciling the configuration."""


class NodeDaemonEndpoints(K8sModel):
    """Ports of the daemons running on the node."""

    kubelet_endpoint: DaemonEndpoint | None = None
    """Endpoint of the kubelet."""


class NodeSwapStatus(K8sModel):
    """Swap memory of a node."""

    capacity: Int64 | None = None
    """Total swap memory, in bytes."""


class NodeSystemInfo(K8sModel):
    """Identifiers and versions describing a node."""

    required_fields = (
        "machineID",
        "systemUUID",
        "bootID",
        "kernelVersion",
        "osImage",
        "containerRuntimeVersion",
        "kubeletVersion",
        "kubeProxyVersion",
        "operatingSystem",
        "architecture",
    )

    machine_id: str | None = None
    """The machine ID the node reports."""
    system_uuid: str | None = None
    """The system UUID the node reports."""
    boot_id: str | None = None
    """The boot ID the node reports."""
    kernel_version: str | None = None
    """Kernel version (``uname -r``)."""
    os_image: str | None = None
    """OS image (from /etc/os-release)."""
    container_runtime_version: str | None = None
    """Container runtime version, as ``<runtime>://<version>``."""
    kubelet_version: str | None = None
    """Kubelet version."""
    kube_proxy_version: str | None = None
    """Deprecated kube-proxy version."""
    operating_system: str | None = None
    """The operating system the node runs."""
    architecture: str | None = None
    """The node's architecture."""
    swap: NodeSwapStatus | None = None
    """Swap memory of the node."""


class ContainerImage(K8sModel):
    """A container image present on the node."""

    names: list[str] | None = None
    """Names the image is known by."""
    size_bytes: Int64 | None = None
    """Size of the image in bytes."""


class AttachedVolume(K8sModel):
    """A volume attached to the node."""

    required_fields = ("name", "devicePath")

    name: str | None = None
    """Name of the attached volume."""
    device_path: str | None = None
    """Where the volume should be available."""


class NodeRuntimeHandlerFeatures(K8sModel):
    """Features of a runtime handler."""

    recursive_read_only_mounts: bool | None = None
    """Whether recursive read-only mounts are supported."""
    user_namespaces: bool | None = None
    """Whether user namespaces are supported."""


class NodeRuntimeHandler(K8sModel):
    """A runtime handler of the node."""

    name: str | None = None
    """Handler name; empty for the default handler."""
    features: NodeRuntimeHandlerFeatures | None = None
    """Features the handler supports."""


class NodeFeatures(K8sModel):
    """Features the node implements."""

    supplemental_groups_policy: bool | None = None
    """Whether the node honours ``supplementalGroupsPolicy``."""


class NodeStatus(K8sModel):
    """Information about the current status of a node."""

    capacity: ResourceList | None = None
    """Total resources of the node."""
    allocatable: ResourceList | None = None
    """Resources available for scheduling; defaults to the capacity."""
    phase: str | None = None
    """Deprecated lifecycle phase of the node."""
    conditions: list[NodeCondition] | None = tag(merge_key="type")
    """Current observed conditions of the node."""
    addresses: list[NodeAddress] | None = tag(merge_key="type")
    """Addresses reachable to the node."""
    daemon_endpoints: NodeDaemonEndpoints | None = None
    """Ports of the daemons on the node."""
    node_info: NodeSystemInfo | None = None
    """General information about the node."""
    images: list[ContainerImage] | None = None
    """Container images on the node."""
    volumes_in_use: list[str] | None = None
    """Volumes attached and mounted on the node."""
    volumes_attached: list[AttachedVolume] | None = None
    """Volumes attached to the node."""
    config: NodeConfigStatus | None = None
    """Status of the deprecated dynamic kubelet configuration."""
    runtime_handlers: list[NodeRuntimeHandler] | None = None
    """The available runtime handlers."""
    features: NodeFeatures | None = None
    """Features the node implements."""
    declared_features: list[str] | None = None
    """Features the node declares, for scheduling."""


class Node(TypeMeta):
    """A worker node. Each node has a unique identifier in the cache (etcd)."""

    kinds = (
        Served(
            "",
            "v1",
            "nodes",
            False,
            ("no",),
            subresources=(STATUS, Subresource("proxy", "NodeProxyOptions", PROXY_VERBS)),
        ),
    )

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: NodeSpec | None = None
    """The behaviour of the node."""
    status: NodeStatus | None = None
    """Most recently observed status of the node."""

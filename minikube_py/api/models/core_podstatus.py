"""core/v1 pod status: phase, conditions, addresses and the state of every container."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, K8sModel, OneOf, RawObject, ResourceList, Time
from minikube_py.api.models.core_container import ResourceRequirements
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class PodCondition(K8sModel):
    """The state of one aspect of a pod."""

    required_fields = ("type", "status")

    type: str | None = tag(1)
    """Type of the condition, such as ``PodScheduled``, ``Initialized``, ``ContainersReady`` or
    ``Ready``."""
    observed_generation: Int64 | None = tag(7, "omitempty")
    """The ``metadata.generation`` the condition was set from."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_probe_time: Time | None = tag(3, "omitempty")
    """Last time the condition was probed."""
    last_transition_time: Time | None = tag(4, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(5, "omitempty")
    """Unique, one-word, CamelCase reason for the last transition."""
    message: str | None = tag(6, "omitempty")
    """Human-readable details of the last transition."""


class ContainerStateWaiting(K8sModel):
    """A container that is not running yet."""

    reason: str | None = tag(1, "omitempty")
    """Why the container is not running yet, such as ``ContainerCreating``."""
    message: str | None = tag(2, "omitempty")
    """Details of why the container is not running yet."""


class ContainerStateRunning(K8sModel):
    """A running container."""

    started_at: Time | None = tag(1, "omitempty")
    """When the container was last (re)started."""


class ContainerStateTerminated(K8sModel):
    """A container that ran and exited."""

    required_fields = ("exitCode",)

    exit_code: Int32 | None = tag(1)
    """Exit status of the container's last termination."""
    signal: Int32 | None = tag(2, "omitempty")
    """Signal of the container's last termination."""
    reason: str | None = tag(3, "omitempty")
    """Brief reason for the termination."""
    message: str | None = tag(4, "omitempty")
    """Details of the termination."""
    started_at: Time | None = tag(5, "omitempty")
    """When the previous execution of the container started."""
    finished_at: Time | None = tag(6, "omitempty")
    """When the container last terminated."""
    container_id: str | None = tag(7, "omitempty")
    """The container's ID, as ``<type>://<container_id>``."""


class ContainerState(K8sModel):
    """The state of a container: at most one field is set; none means waiting."""

    waiting: ContainerStateWaiting | None = tag(1, "*", "omitempty")
    """Details about a waiting container."""
    running: ContainerStateRunning | None = tag(2, "*", "omitempty")
    """Details about a running container."""
    terminated: ContainerStateTerminated | None = tag(3, "*", "omitempty")
    """Details about a terminated container."""


class VolumeMountStatus(K8sModel):
    """The status of a volume mount."""

    required_fields = ("name", "mountPath")

    name: str | None = tag(1)
    """Matches the name of the volume mount."""
    mount_path: str | None = tag(2)
    """Matches the mount path of the volume mount."""
    read_only: bool | None = tag(3, "omitempty")
    """Matches the read-only flag of the volume mount."""
    recursive_read_only: str | None = tag(4, "*", "omitempty")
    """Whether the read-only mount is recursively read-only."""


class LinuxContainerUser(K8sModel):
    """The identity of a Linux container's first process."""

    required_fields = ("uid", "gid")

    uid: Int64 | None = tag(1)
    """The primary UID of the first process."""
    gid: Int64 | None = tag(2)
    """The primary GID of the first process."""
    supplemental_groups: list[Int64] | None = tag(3, "omitempty")
    """The supplemental groups of the first process."""


class ContainerUser(K8sModel):
    """The identity a container's first process runs as."""

    linux: LinuxContainerUser | None = tag(1, "*", "omitempty")
    """The identity on Linux."""


class ResourceHealth(K8sModel):
    """The health of one allocated device."""

    required_fields = ("resourceID",)

    resource_id: str | None = tag(1)
    """Unique identifier of the device."""
    health: str | None = tag(2, "omitempty")
    """``Healthy``, ``Unhealthy`` or ``Unknown``."""


class ResourceStatus(K8sModel):
    """The health of the devices allocated for one resource."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Name of the resource (a resource name or a claim reference)."""
    resources: list[ResourceHealth] | None = tag(2, "omitempty")
    """Health of each allocated device."""


class ContainerStatus(K8sModel):
    """The state of one container of a pod."""

    required_fields = ("name", "ready", "restartCount", "image", "imageID")

    name: str | None = tag(1)
    """The container's name from the pod spec."""
    state: ContainerState | None = tag(2, "omitempty")
    """Current state of the container."""
    last_state: ContainerState | None = tag(3, "omitempty")
    """The container's last termination, if any."""
    ready: bool | None = tag(4)
    """Whether the container passes its readiness check."""
    restart_count: Int32 | None = tag(5)
    """Number of times the container has been restarted."""
    image: str | None = tag(6)
    """The image the container runs."""
    image_id: str | None = tag(7)
    """The image's ID."""
    container_id: str | None = tag(8, "omitempty")
    """The container's ID, as ``<type>://<container_id>``."""
    started: bool | None = tag(9, "*", "omitempty")
    """Whether the container finished its postStart hook and passed its startup probe."""
    allocated_resources: ResourceList | None = tag(10, "omitempty")
    """Compute resources allocated to the container by the node."""
    resources: ResourceRequirements | None = tag(11, "*", "omitempty")
    """Compute resources actually configured for the running container."""
    volume_mounts: list[VolumeMountStatus] | None = tag(12, "omitempty")
    """Status of the volume mounts."""
    user: ContainerUser | None = tag(13, "*", "omitempty")
    """The identity the container's first process runs as."""
    allocated_resources_status: list[ResourceStatus] | None = tag(14, "omitempty")
    """Health of the devices allocated to the container."""
    stop_signal: str | None = tag(15, "*", "omitempty")
    """The signal sent to stop the container."""


class PodIP(K8sModel):
    """An IP address allocated to the pod."""

    required_fields = ("ip",)

    ip: str | None = tag(1)
    """The IP address."""


class HostIP(K8sModel):
    """An IP address of the pod's host."""

    required_fields = ("ip",)

    ip: str | None = tag(1)
    """The IP address."""


class PodResourceClaimStatus(K8sModel):
    """The ResourceClaim generated for a pod's claim template."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Matches the name of an entry in ``spec.resourceClaims``."""
    resource_claim_name: str | None = tag(2, "*", "omitempty")
    """Name of the generated ResourceClaim."""


class ContainerExtendedResourceRequest(K8sModel):
    """Which request of a claim serves one extended resource of one container."""

    container_name: str | None = tag(1)
    """Name of the container asking for the resource."""
    resource_name: str | None = tag(2)
    """Name of the extended resource."""
    request_name: str | None = tag(3)
    """Name of the claim's request that provides it."""


class PodExtendedResourceClaimStatus(K8sModel):
    """The claim the scheduler generated for a pod's extended resources (message only: the
    model's ``extendedResourceClaimStatus`` stays free-form JSON)."""

    request_mappings: list[ContainerExtendedResourceRequest] | None = tag(1)
    """The container requests the claim serves."""
    resource_claim_name: str | None = tag(2)
    """Name of the generated claim."""


class PodStatus(K8sModel):
    """Information about the status of a pod; it may lag behind the actual state."""

    observed_generation: Int64 | None = tag(17, "omitempty")
    """The ``metadata.generation`` the status was computed from."""
    phase: Annotated[str, OneOf("Failed", "Pending", "Running", "Succeeded", "Unknown")] | None = tag(
        1, "omitempty"
    )
    """A simple, high-level summary of where the pod is in its lifecycle."""
    conditions: list[PodCondition] | None = tag(2, "omitempty", merge_key="type")
    """Current service state of the pod."""
    message: str | None = tag(3, "omitempty")
    """Human-readable message about why the pod is in this condition."""
    reason: str | None = tag(4, "omitempty")
    """Brief CamelCase reason for the pod's state, such as ``Evicted``."""
    nominated_node_name: str | None = tag(11, "omitempty")
    """Node the scheduler expects to place a preempting pod on."""
    host_ip: str | None = tag(5, "omitempty")
    """Primary IP address of the pod's host."""
    host_ips: list[HostIP] | None = tag(16, "omitempty", merge_key="ip")
    """IP addresses of the pod's host; the first equals ``hostIP``."""
    pod_ip: str | None = tag(6, "omitempty")
    """Primary IP address of the pod."""
    pod_ips: list[PodIP] | None = tag(12, "omitempty", merge_key="ip")
    """IP addresses of the pod; the first equals ``podIP``."""
    start_time: Time | None = tag(7, "*", "omitempty")
    """When the kubelet acknowledged the pod, before its images were pulled."""
    init_container_statuses: list[ContainerStatus] | None = tag(10, "omitempty")
    """Statuses of the init containers."""
    container_statuses: list[ContainerStatus] | None = tag(8, "omitempty")
    """Statuses of the containers."""
    qos_class: Annotated[str, OneOf("BestEffort", "Burstable", "Guaranteed")] | None = tag(9, "omitempty")
    """Quality of Service class assigned from the resource requirements."""
    ephemeral_container_statuses: list[ContainerStatus] | None = tag(13, "omitempty")
    """Statuses of the ephemeral containers."""
    resize: str | None = tag(14, "omitempty")
    """Deprecated status of a pending resize."""
    resource_claim_statuses: list[PodResourceClaimStatus] | None = tag(
        15, "omitempty", patch="merge,retainKeys", merge_key="name"
    )
    """Claims generated for the pod's claim templates."""
    extended_resource_claim_status: RawObject | None = tag(
        18, "*", "omitempty", proto=PodExtendedResourceClaimStatus
    )
    """The claim generated for the pod's extended resource requests."""
    allocated_resources: ResourceList | None = tag(19, "omitempty")
    """Aggregate resources allocated to the pod's containers."""
    resources: ResourceRequirements | None = tag(20, "*", "omitempty")
    """Aggregate resources actually configured for the pod."""

"""core/v1 Pod: the spec of a pod, its template and the Pod and Binding kinds."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, K8sModel, OneOf, RawObject, ResourceList, StrMap
from minikube_py.api.models.core_container import Container, EphemeralContainer, ResourceRequirements
from minikube_py.api.models.core_podstatus import PodStatus
from minikube_py.api.models.core_refs import LocalObjectReference, ObjectReference
from minikube_py.api.models.core_scheduling import (
    Affinity,
    HostAlias,
    PodDNSConfig,
    PodOS,
    PodReadinessGate,
    PodResourceClaim,
    PodSchedulingGate,
    Toleration,
    TopologySpreadConstraint,
)
from minikube_py.api.models.core_security import PodSecurityContext
from minikube_py.api.models.core_volume import Volume
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, PROXY_VERBS, STATUS, Kind, Served, Subresource

OPENAPI_PACKAGE = "io.k8s.api.core.v1"
POD_SUBRESOURCES = (
    STATUS,
    Subresource("binding", "Binding", ("create",)),
    Subresource("eviction", "Eviction", ("create",), "policy", "v1"),
    Subresource("log", "Pod", ("get",)),
    Subresource("exec", "PodExecOptions", ("create", "get")),
    Subresource("attach", "PodAttachOptions", ("create", "get")),
    Subresource("portforward", "PodPortForwardOptions", ("create", "get")),
    Subresource("proxy", "PodProxyOptions", PROXY_VERBS),
    Subresource("ephemeralcontainers", "Pod", ("get", "patch", "update")),
)

RestartPolicy = Annotated[str, OneOf("Always", "Never", "OnFailure")]
DNSPolicy = Annotated[str, OneOf("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None")]


class PodSchedulingGroup(K8sModel):
    """The scheduling group a pod belongs to (gang scheduling, alpha)."""

    pod_group_name: str | None = tag(1, "*", "omitempty")
    """Name of the PodGroup the pod is scheduled with."""


class PodSpec(K8sModel):
    """The desired state of a pod."""

    required_fields = ("containers",)

    volumes: list[Volume] | None = tag(1, "omitempty", patch="merge,retainKeys", merge_key="name")
    """Volumes the pod's containers can mount."""
    init_containers: list[Container] | None = tag(20, "omitempty", merge_key="name")
    """Containers run in order, each to completion, before the app containers start. Those with
    ``restartPolicy: Always`` are sidecars and keep running."""
    containers: list[Container] | None = tag(2, merge_key="name")
    """The pod's containers; at least one. Cannot be updated."""
    ephemeral_containers: list[EphemeralContainer] | None = tag(34, "omitempty", merge_key="name")
    """Temporary containers added to a running pod for debugging."""
    restart_policy: RestartPolicy | None = tag(3, "omitempty")
    """Restart policy of all containers; defaults to ``Always``."""
    termination_grace_period_seconds: Int64 | None = tag(4, "*", "omitempty")
    """Seconds the pod has to terminate gracefully after it is asked to; defaults to 30."""
    active_deadline_seconds: Int64 | None = tag(5, "*", "omitempty")
    """Seconds the pod may be active on its node before the system marks it failed."""
    dns_policy: DNSPolicy | None = tag(6, "omitempty")
    """How the pod's DNS is configured; defaults to ``ClusterFirst``."""
    node_selector: StrMap | None = tag(7, "omitempty")
    """Labels a node must have for the pod to fit on it."""
    service_account_name: str | None = tag(8, "omitempty")
    """Name of the ServiceAccount the pod runs as."""
    service_account: str | None = tag(9, "omitempty")
    """Deprecated alias of ``serviceAccountName``."""
    automount_service_account_token: bool | None = tag(21, "*", "omitempty")
    """Whether a service account token is mounted automatically."""
    node_name: str | None = tag(10, "omitempty")
    """The node the pod is bound to. Set by the scheduler, or directly to bypass it."""
    host_network: bool | None = tag(11, "omitempty")
    """Use the host's network namespace. Defaults to false."""
    host_pid: bool | None = tag(12, "omitempty")
    """Use the host's PID namespace. Defaults to false."""
    host_ipc: bool | None = tag(13, "omitempty")
    """Use the host's IPC namespace. Defaults to false."""
    share_process_namespace: bool | None = tag(27, "*", "omitempty")
    """Share one process namespace between all containers. Defaults to false."""
    security_context: PodSecurityContext | None = tag(14, "*", "omitempty")
    """Pod-level security attributes and common container settings."""
    image_pull_secrets: list[LocalObjectReference] | None = tag(15, "omitempty", merge_key="name")
    """Secrets in the pod's namespace used to pull the images."""
    hostname: str | None = tag(16, "omitempty")
    """The pod's host name; defaults to a system-defined value."""
    subdomain: str | None = tag(17, "omitempty")
    """Makes the pod's FQDN ``<hostname>.<subdomain>.<namespace>.svc.<cluster domain>``."""
    affinity: Affinity | None = tag(18, "*", "omitempty")
    """The pod's scheduling constraints."""
    scheduler_name: str | None = tag(19, "omitempty")
    """The scheduler that dispatches the pod; defaults to ``default-scheduler``."""
    tolerations: list[Toleration] | None = tag(22, "omitempty")
    """The pod's tolerations."""
    host_aliases: list[HostAlias] | None = tag(23, "omitempty", merge_key="ip")
    """Entries added to the pod's hosts file."""
    priority_class_name: str | None = tag(24, "omitempty")
    """Name of the pod's PriorityClass."""
    priority: Int32 | None = tag(25, "*", "omitempty")
    """The priority value, filled in from the priority class by admission."""
    dns_config: PodDNSConfig | None = tag(26, "*", "omitempty")
    """DNS parameters merged with those of the DNS policy."""
    readiness_gates: list[PodReadinessGate] | None = tag(28, "omitempty")
    """Extra conditions that must be true for the pod to be ready."""
    runtime_class_name: str | None = tag(29, "*", "omitempty")
    """The RuntimeClass to run the pod with."""
    enable_service_links: bool | None = tag(30, "*", "omitempty")
    """Inject information about services into environment variables. Defaults to true."""
    preemption_policy: Annotated[str, OneOf("Never", "PreemptLowerPriority")] | None = tag(
        31, "*", "omitempty"
    )
    """Whether the pod may preempt lower-priority pods."""
    overhead: ResourceList | None = tag(32, "omitempty")
    """Resources the pod's sandbox uses on top of its containers, set by RuntimeClass admission."""
    topology_spread_constraints: list[TopologySpreadConstraint] | None = tag(
        33, "omitempty", merge_key="topologyKey"
    )
    """How the pod's group is spread across topology domains."""
    set_hostname_as_fqdn: bool | None = tag(35, "*", "omitempty")
    """Set the pod's host name to its FQDN. Defaults to false."""
    os: PodOS | None = tag(36, "*", "omitempty")
    """The operating system of the pod's containers."""
    host_users: bool | None = tag(37, "*", "omitempty")
    """Use the host's user namespace; false gives the pod its own. Defaults to true."""
    scheduling_gates: list[PodSchedulingGate] | None = tag(38, "omitempty", merge_key="name")
    """Gates that keep the pod from being scheduled while any remains."""
    resource_claims: list[PodResourceClaim] | None = tag(
        39, "omitempty", patch="merge,retainKeys", merge_key="name"
    )
    """Dynamic resource claims the containers may reference."""
    resources: ResourceRequirements | None = tag(40, "*", "omitempty")
    """Total resources of the pod, shared by its containers."""
    hostname_override: str | None = tag(41, "*", "omitempty")
    """Host name the pod's containers see, overriding the generated one."""
    workload_ref: RawObject | None = tag()
    """The Workload object this pod belongs to, for gang scheduling."""
    scheduling_group: PodSchedulingGroup | None = tag(43, "*", "omitempty")
    """The scheduling group the pod belongs to, for gang scheduling."""


class PodTemplateSpec(K8sModel):
    """The data a pod is created from."""

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata of the pods created from the template."""
    spec: PodSpec | None = tag(2, "omitempty")
    """Desired behaviour of the pods."""


class Pod(TypeMeta):
    """A collection of containers that run together on a host, created by clients and scheduled
    onto hosts."""

    kinds = (Served("", "v1", "pods", True, ("po",), ALL_CATEGORY, subresources=POD_SUBRESOURCES),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: PodSpec | None = tag(2, "omitempty")
    """Desired behaviour of the pod."""
    status: PodStatus | None = tag(3, "omitempty")
    """Most recently observed status of the pod. Read-only."""


class Binding(TypeMeta):
    """Binds one object to another, such as a pod to the node the scheduler picked."""

    kinds = (Kind("v1"),)

    required_fields = ("target",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    target: ObjectReference | None = tag(2)
    """The object to bind to."""


class PodTemplate(TypeMeta):
    """A pod template stored on its own, for other objects to copy pods from."""

    kinds = (Served("", "v1", "podtemplates", True),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    template: PodTemplateSpec | None = tag(2, "omitempty")
    """The pods this template describes."""

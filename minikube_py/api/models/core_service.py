"""core/v1 Service and Endpoints: a stable address in front of a set of pods."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, IntOrString, K8sModel, OneOf, StrMap
from minikube_py.api.models.core_container import Protocol
from minikube_py.api.models.core_refs import ObjectReference
from minikube_py.api.models.meta import Condition, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, PROXY_VERBS, STATUS, Served, Subresource

OPENAPI_PACKAGE = "io.k8s.api.core.v1"

ServiceType = Annotated[str, OneOf("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")]
TrafficPolicy = Annotated[str, OneOf("Cluster", "Local")]


class ServicePort(K8sModel):
    """A port the service exposes."""

    required_fields = ("port",)

    name: str | None = tag(1, "omitempty")
    """Name of the port, a DNS label unique within the service; required with several ports."""
    protocol: Protocol | None = tag(2, "omitempty")
    """IP protocol of the port; defaults to ``TCP``."""
    app_protocol: str | None = tag(6, "*", "omitempty")
    """Application protocol of the port, such as ``kubernetes.io/h2c``."""
    port: Int32 | None = tag(3)
    """Port the service exposes."""
    target_port: IntOrString | None = tag(4, "omitempty")
    """Number or name of the port to reach on the selected pods; defaults to ``port``."""
    node_port: Int32 | None = tag(5, "omitempty")
    """Port on every node (NodePort and LoadBalancer services); allocated when not given."""


class ClientIPConfig(K8sModel):
    """Session affinity by client IP."""

    timeout_seconds: Int32 | None = tag(1, "*", "omitempty")
    """Seconds a ``ClientIP`` session sticks (1-86400); defaults to 10800."""


class SessionAffinityConfig(K8sModel):
    """Session affinity settings."""

    client_ip: ClientIPConfig | None = tag(1, "*", "omitempty")
    """Settings of client-IP session affinity."""


class ServiceSpec(K8sModel):
    """The attributes a user creates on a service."""

    ports: list[ServicePort] | None = tag(1, "omitempty", merge_key="port")
    """Ports the service exposes."""
    selector: StrMap | None = tag(2, "omitempty")
    """Routes traffic to pods whose labels match; empty means endpoints are managed externally."""
    cluster_ip: str | None = tag(3, "omitempty")
    """IP address of the service, usually allocated at random; ``None`` makes a headless
    service."""
    cluster_ips: list[str] | None = tag(18, "omitempty")
    """IP addresses of the service, at most one per IP family; the first equals ``clusterIP``."""
    type: ServiceType | None = tag(4, "omitempty")
    """How the service is exposed; defaults to ``ClusterIP``."""
    external_ips: list[str] | None = tag(5, "omitempty")
    """IP addresses nodes accept traffic for the service on, not managed by Kubernetes."""
    session_affinity: Annotated[str, OneOf("ClientIP", "None")] | None = tag(7, "omitempty")
    """Whether a client's connections stick to one pod; defaults to ``None``."""
    load_balancer_ip: str | None = tag(8, "omitempty")
    """Deprecated: the IP a load balancer should use, if the provider supports it."""
    load_balancer_source_ranges: list[str] | None = tag(9, "omitempty")
    """Client IP ranges a cloud load balancer lets through."""
    external_name: str | None = tag(10, "omitempty")
    """The DNS name ``ExternalName`` services alias (a CNAME record)."""
    external_traffic_policy: TrafficPolicy | None = tag(11, "omitempty")
    """How external traffic is routed to node-local or cluster-wide endpoints."""
    health_check_node_port: Int32 | None = tag(12, "omitempty")
    """Health check node port of LoadBalancer services with a ``Local`` traffic policy."""
    publish_not_ready_addresses: bool | None = tag(13, "omitempty")
    """Publish the addresses of pods that are not ready."""
    session_affinity_config: SessionAffinityConfig | None = tag(14, "*", "omitempty")
    """Session affinity settings."""
    ip_families: list[Annotated[str, OneOf("IPv4", "IPv6")]] | None = tag(19, "omitempty")
    """IP families of the service, in order."""
    ip_family_policy: Annotated[str, OneOf("PreferDualStack", "RequireDualStack", "SingleStack")] | None = (
        tag(17, "*", "omitempty")
    )
    """Dual-stack choice of the service; defaults to ``SingleStack``."""
    allocate_load_balancer_node_ports: bool | None = tag(20, "*", "omitempty")
    """Whether LoadBalancer services get node ports. Defaults to true."""
    load_balancer_class: str | None = tag(21, "*", "omitempty")
    """The load balancer implementation this service belongs to."""
    internal_traffic_policy: TrafficPolicy | None = tag(22, "*", "omitempty")
    """How in-cluster traffic is routed to node-local or cluster-wide endpoints."""
    traffic_distribution: str | None = tag(23, "*", "omitempty")
    """Preference for distributing traffic, such as ``PreferClose``."""


class PortStatus(K8sModel):
    """The status of a load balancer port."""

    required_fields = ("port", "protocol")

    port: Int32 | None = tag(1)
    """Port number of the service port."""
    protocol: Protocol | None = tag(2)
    """Protocol of the service port."""
    error: str | None = tag(3, "*", "omitempty")
    """Error recorded for the port, in CamelCase."""


class LoadBalancerIngress(K8sModel):
    """An ingress point of a load balancer."""

    ip: str | None = tag(1, "omitempty")
    """IP-based ingress point."""
    hostname: str | None = tag(2, "omitempty")
    """DNS-based ingress point."""
    ip_mode: str | None = tag(3, "*", "omitempty")
    """How the ingress IP behaves: ``VIP`` or ``Proxy``."""
    ports: list[PortStatus] | None = tag(4, "omitempty")
    """Status of each service port."""


class LoadBalancerStatus(K8sModel):
    """The status of a load balancer."""

    ingress: list[LoadBalancerIngress] | None = tag(1, "omitempty")
    """Ingress points of the load balancer."""


class ServiceStatus(K8sModel):
    """The current status of a service."""

    load_balancer: LoadBalancerStatus | None = tag(1, "omitempty")
    """The load balancer, if any."""
    conditions: list[Condition] | None = tag(2, "omitempty", merge_key="type")
    """Current conditions of the service."""


class Service(TypeMeta):
    """A named abstraction of software service: a local port (such as 3306) a proxy listens on,
    and the selector of the pods that answer requests sent through it."""

    kinds = (
        Served(
            "",
            "v1",
            "services",
            True,
            ("svc",),
            ALL_CATEGORY,
            subresources=(STATUS, Subresource("proxy", "ServiceProxyOptions", PROXY_VERBS)),
        ),
    )

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: ServiceSpec | None = tag(2, "omitempty")
    """The behaviour of the service."""
    status: ServiceStatus | None = tag(3, "omitempty")
    """Most recently observed status of the service. Read-only."""


class EndpointAddress(K8sModel):
    """A single IP address of an endpoint."""

    required_fields = ("ip",)

    ip: str | None = None
    """The IP of the endpoint."""
    hostname: str | None = None
    """The host name of the endpoint."""
    node_name: str | None = None
    """The node hosting the endpoint."""
    target_ref: ObjectReference | None = None
    """The object providing the endpoint (usually a pod)."""


class EndpointPort(K8sModel):
    """A port of an endpoint."""

    required_fields = ("port",)

    name: str | None = None
    """Name of the port; matches a service port name."""
    port: Int32 | None = None
    """Port number."""
    protocol: Protocol | None = None
    """IP protocol; defaults to ``TCP``."""
    app_protocol: str | None = None
    """Application protocol of the port."""


class EndpointSubset(K8sModel):
    """A group of addresses with a common set of ports."""

    addresses: list[EndpointAddress] | None = None
    """Ready addresses."""
    not_ready_addresses: list[EndpointAddress] | None = None
    """Addresses that are not ready yet."""
    ports: list[EndpointPort] | None = None
    """Port numbers available on the addresses."""


class Endpoints(TypeMeta):
    """The endpoints that implement a service (superseded by EndpointSlice)."""

    kinds = (Served("", "v1", "endpoints", True, ("ep",), singular="endpoints"),)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    subsets: list[EndpointSubset] | None = None
    """Groups of addresses and the ports they share."""

"""discovery.k8s.io/v1 EndpointSlice: a scalable list of the endpoints behind a service."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, K8sModel, OneOf, StrMap
from minikube_py.api.models.core_container import Protocol
from minikube_py.api.models.core_refs import ObjectReference
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.discovery.v1"


class EndpointConditions(K8sModel):
    """The current condition of an endpoint."""

    ready: bool | None = None
    """Whether the endpoint is ready for traffic; null means unknown (treated as ready)."""
    serving: bool | None = None
    """Like ``ready``, but also true while the endpoint terminates."""
    terminating: bool | None = None
    """Whether the endpoint is terminating."""


class ForZone(K8sModel):
    """A zone that should consume an endpoint."""

    required_fields = ("name",)

    name: str | None = None
    """Name of the zone."""


class ForNode(K8sModel):
    """A node that should consume an endpoint."""

    required_fields = ("name",)

    name: str | None = None
    """Name of the node."""


class EndpointHints(K8sModel):
    """Information on how an endpoint should be consumed."""

    for_zones: list[ForZone] | None = None
    """Zones that should consume the endpoint (topology aware routing)."""
    for_nodes: list[ForNode] | None = None
    """Nodes that should consume the endpoint."""


class Endpoint(K8sModel):
    """A single logical backend of a service."""

    required_fields = ("addresses",)

    addresses: list[str] | None = None
    """Addresses of the endpoint, interpreted according to the slice's ``addressType``."""
    conditions: EndpointConditions | None = None
    """The current condition of the endpoint."""
    hostname: str | None = None
    """Host name of the endpoint, a DNS label."""
    target_ref: ObjectReference | None = None
    """The object backing the endpoint (usually a pod)."""
    deprecated_topology: StrMap | None = None
    """Deprecated topology information, kept for the v1beta1 API."""
    node_name: str | None = None
    """The node hosting the endpoint."""
    zone: str | None = None
    """The zone the endpoint is in."""
    hints: EndpointHints | None = None
    """How the endpoint should be consumed."""


class EndpointPort(K8sModel):
    """A port used by the endpoints of a slice."""

    name: str | None = None
    """Name of the port; matches a service port name."""
    protocol: Protocol | None = None
    """IP protocol; defaults to ``TCP``."""
    port: Int32 | None = None
    """Port number; empty means all ports."""
    app_protocol: str | None = None
    """Application protocol of the port."""


class EndpointSlice(TypeMeta):
    """A subset of the endpoints that implement a service."""

    kinds = (Served("discovery.k8s.io", "v1", "endpointslices", True),)

    required_fields = ("addressType", "endpoints")

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    address_type: Annotated[str, OneOf("FQDN", "IPv4", "IPv6")] | None = None
    """Type of the addresses in the slice. Immutable."""
    endpoints: list[Endpoint] | None = None
    """Unique endpoints in the slice; at most 1000."""
    ports: list[EndpointPort] | None = None
    """Ports exposed by every endpoint of the slice; at most 100."""

"""networking.k8s.io/v1 Ingress and IngressClass: outside HTTP(S) routes to Services, and the
classes of controllers that implement them."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, K8sModel
from minikube_py.api.models.core_refs import TypedLocalObjectReference
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.networking.v1"


class ServiceBackendPort(K8sModel):
    """The port of a Service backend: a name or a number."""

    name: str | None = tag(1, "omitempty")
    """Name of the Service port; exclusive with number."""
    number: Int32 | None = tag(2, "omitempty")
    """Number of the Service port; exclusive with name."""


class IngressServiceBackend(K8sModel):
    """A Service that receives an ingress's traffic."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Name of the Service, in the ingress's namespace."""
    port: ServiceBackendPort | None = tag(2, "omitempty")
    """The Service port traffic goes to."""


class IngressBackend(K8sModel):
    """Where traffic goes: a Service or another resource (exactly one)."""

    service: IngressServiceBackend | None = tag(4, "*", "omitempty")
    """A Service backend."""
    resource: TypedLocalObjectReference | None = tag(3, "*", "omitempty")
    """Another object of the ingress's namespace (a storage bucket, say)."""


class HTTPIngressPath(K8sModel):
    """A path and the backend its requests go to."""

    required_fields = ("pathType", "backend")

    path: str | None = tag(1, "omitempty")
    """The path matched against the request's; must start with ``/``."""
    path_type: str | None = tag(3, "*")
    """How the path matches: ``Exact``, ``Prefix`` or ``ImplementationSpecific``."""
    backend: IngressBackend | None = tag(2)
    """Where matching requests go."""


class HTTPIngressRuleValue(K8sModel):
    """HTTP paths and their backends."""

    required_fields = ("paths",)

    paths: list[HTTPIngressPath] | None = tag(1)
    """The paths, each with its backend."""


class IngressRuleValue(K8sModel):
    """What a rule does with the requests of its host."""

    http: HTTPIngressRuleValue | None = tag(1, "*", "omitempty")
    """HTTP routing by path."""


class IngressRule(IngressRuleValue, inline=2):
    """Routes the requests of one host."""

    host: str | None = tag(1, "omitempty")
    """Fully qualified host name, possibly with a leading ``*.`` wildcard; empty means every host."""


class IngressTLS(K8sModel):
    """TLS for some hosts."""

    hosts: list[str] | None = tag(1, "omitempty")
    """The hosts the certificate covers; defaults to the load balancer's wildcard host."""
    secret_name: str | None = tag(2, "omitempty")
    """The Secret holding the certificate and key."""


class IngressSpec(K8sModel):
    """The desired behaviour of an Ingress."""

    ingress_class_name: str | None = tag(4, "*", "omitempty")
    """Name of the IngressClass that serves this ingress."""
    default_backend: IngressBackend | None = tag(1, "*", "omitempty")
    """Where requests matching no rule go."""
    tls: list[IngressTLS] | None = tag(2, "omitempty")
    """TLS configuration."""
    rules: list[IngressRule] | None = tag(3, "omitempty")
    """Host rules; requests matching none go to defaultBackend."""


class IngressPortStatus(K8sModel):
    """The state of one load balancer port."""

    required_fields = ("port", "protocol")

    port: Int32 | None = tag(1)
    """The port number."""
    protocol: str | None = tag(2)
    """``TCP``, ``UDP`` or ``SCTP``."""
    error: str | None = tag(3, "*", "omitempty")
    """Why the port is not working, if it is not."""


class IngressLoadBalancerIngress(K8sModel):
    """One ingress point of the load balancer."""

    ip: str | None = tag(1, "omitempty")
    """Its IP address."""
    hostname: str | None = tag(2, "omitempty")
    """Its DNS name."""
    ports: list[IngressPortStatus] | None = tag(4, "omitempty")
    """The state of its ports."""


class IngressLoadBalancerStatus(K8sModel):
    """The load balancer of an ingress."""

    ingress: list[IngressLoadBalancerIngress] | None = tag(1, "omitempty")
    """The ingress points of the load balancer."""


class IngressStatus(K8sModel):
    """The observed state of an Ingress."""

    load_balancer: IngressLoadBalancerStatus | None = tag(1, "omitempty")
    """The load balancer's state."""


class Ingress(TypeMeta):
    """Rules that route outside HTTP(S) traffic to Services of the cluster."""

    kinds = (Served("networking.k8s.io", "v1", "ingresses", True, ("ing",), subresources=(STATUS,)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: IngressSpec | None = tag(2, "omitempty")
    """The desired behaviour of the ingress."""
    status: IngressStatus | None = tag(3, "omitempty")
    """The most recently observed status of the ingress."""


class IngressClassParametersReference(K8sModel):
    """A resource holding a class's controller-specific configuration."""

    required_fields = ("kind", "name")

    api_group: str | None = tag(1, "*", "omitempty", alias="apiGroup")
    """The group of the referenced resource; empty means the core group."""
    kind: str | None = tag(2)
    """The kind of the referenced resource."""
    name: str | None = tag(3)
    """The name of the referenced resource."""
    scope: str | None = tag(4, "*", "omitempty")
    """``Cluster`` (the default) or ``Namespace``."""
    namespace: str | None = tag(5, "*", "omitempty")
    """The namespace of the resource, required when scope is ``Namespace``."""


class IngressClassSpec(K8sModel):
    """Which controller implements the class."""

    controller: str | None = tag(1, "omitempty")
    """The domain-prefixed name of the controller (``example.com/ingress-controller``); immutable."""
    parameters: IngressClassParametersReference | None = tag(2, "*", "omitempty")
    """Additional configuration for the controller."""


class IngressClass(TypeMeta):
    """A class of Ingresses: the controller that implements them. The annotation
    ``ingressclass.kubernetes.io/is-default-class: "true"`` makes it the class of new
    Ingresses that name none."""

    kinds = (Served("networking.k8s.io", "v1", "ingressclasses", False),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: IngressClassSpec | None = tag(2, "omitempty")
    """The desired state of the class."""

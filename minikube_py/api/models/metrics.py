"""metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics: read-only resource usage (upstream
``k8s.io/metrics``; served by metrics-server in upstream, by the apiserver itself here)."""

from __future__ import annotations

from minikube_py.api.models.base import K8sModel, ResourceList, Time
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.metrics.pkg.apis.metrics.v1beta1"
READ_ONLY = ("get", "list")  # computed from the node agents on every request, stored nowhere


class NodeMetrics(TypeMeta):
    """Resource usage of a node."""

    kinds = (Served("metrics.k8s.io", "v1beta1", "nodes", False, verbs=READ_ONLY),)

    metadata: ObjectMeta | None = None
    """Standard object metadata (the node's name and labels)."""
    timestamp: Time | None = None
    """When the usage was sampled (the end of the window)."""
    window: str | None = None
    """The interval the usage was computed over (a duration such as ``10s``)."""
    usage: ResourceList | None = None
    """The memory (working set) and CPU (in cores) used."""


class ContainerMetrics(K8sModel):
    """Resource usage of one container."""

    name: str | None = None
    """The container's name."""
    usage: ResourceList | None = None
    """The memory (working set) and CPU (in cores) used."""


class PodMetrics(TypeMeta):
    """Resource usage of a pod's containers."""

    kinds = (Served("metrics.k8s.io", "v1beta1", "pods", True, verbs=READ_ONLY),)

    metadata: ObjectMeta | None = None
    """Standard object metadata (the pod's name, namespace and labels)."""
    timestamp: Time | None = None
    """When the usage was sampled (the end of the window)."""
    window: str | None = None
    """The interval the usage was computed over (a duration such as ``10s``)."""
    containers: list[ContainerMetrics] | None = None
    """Usage of each of the pod's containers."""

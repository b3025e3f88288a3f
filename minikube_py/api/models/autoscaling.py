"""autoscaling/v1 Scale: the ``scale`` subresource of scalable workloads."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, K8sModel
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import Kind

OPENAPI_PACKAGE = "io.k8s.api.autoscaling.v1"


class ScaleSpec(K8sModel):
    """The desired scale of a workload."""

    replicas: Int32 | None = tag(1, "omitempty")
    """Desired number of instances of the scaled object."""


class ScaleStatus(K8sModel):
    """The current scale of a workload."""

    required_fields = ("replicas",)

    replicas: Int32 | None = tag(1)
    """Actual number of observed instances of the scaled object."""
    selector: str | None = tag(2, "omitempty")
    """Label query over the pods counted as replicas, in the string form of label selectors."""


class Scale(TypeMeta):
    """A scaling request for a resource."""

    kinds = (Kind("autoscaling/v1"),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata; its name and namespace are those of the scaled object."""
    spec: ScaleSpec | None = tag(2, "omitempty")
    """The desired scale."""
    status: ScaleStatus | None = tag(3, "omitempty")
    """The current scale. Read-only."""

"""autoscaling/v1: Scale (the ``scale`` subresource of scalable workloads) and the CPU-only
HorizontalPodAutoscaler (stored as autoscaling/v2, ``autoscaling_v2.py``)."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, Int64, K8sModel, Time
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, STATUS, Kind, Served

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


class CrossVersionObjectReference(K8sModel):
    """Enough to identify the referred resource in any version."""

    required_fields = ("kind", "name")

    kind: str | None = tag(1)
    """Kind of the referent."""
    name: str | None = tag(2)
    """Name of the referent."""
    api_version: str | None = tag(3, "omitempty")
    """API version of the referent."""


class HorizontalPodAutoscalerSpec(K8sModel):
    """The desired functionality of an autoscaler (autoscaling/v1: CPU only)."""

    required_fields = ("scaleTargetRef", "maxReplicas")

    scale_target_ref: CrossVersionObjectReference | None = tag(1)
    """The resource scaled: its pods are measured and its ``scale`` subresource is written."""
    min_replicas: Int32 | None = tag(2, "*", "omitempty")
    """Lower limit of the replicas the autoscaler scales down to. Defaults to 1."""
    max_replicas: Int32 | None = tag(3)
    """Upper limit of the replicas the autoscaler scales up to; not below minReplicas."""
    target_cpu_utilization_percentage: Int32 | None = tag(
        4, "*", "omitempty", alias="targetCPUUtilizationPercentage"
    )
    """Target average CPU utilization, as a percentage of the requested CPU; without it the
    default autoscaling policy is used."""


class HorizontalPodAutoscalerStatus(K8sModel):
    """The current status of an autoscaler (autoscaling/v1)."""

    required_fields = ("currentReplicas", "desiredReplicas")

    observed_generation: Int64 | None = tag(1, "*", "omitempty")
    """The most recent generation observed by this autoscaler."""
    last_scale_time: Time | None = tag(2, "*", "omitempty")
    """The last time the autoscaler scaled the number of pods."""
    current_replicas: Int32 | None = tag(3)
    """Current number of replicas of the pods managed by this autoscaler."""
    desired_replicas: Int32 | None = tag(4)
    """Desired number of replicas of the pods managed by this autoscaler."""
    current_cpu_utilization_percentage: Int32 | None = tag(
        5, "*", "omitempty", alias="currentCPUUtilizationPercentage"
    )
    """Current average CPU utilization of all pods, as a percentage of the requested CPU."""


class HorizontalPodAutoscaler(TypeMeta):
    """Configuration of a horizontal pod autoscaler (autoscaling/v1; the metrics, conditions and
    behavior of autoscaling/v2 travel in ``autoscaling.alpha.kubernetes.io/*`` annotations)."""

    required_fields = ("spec",)

    kinds = (
        Served(
            "autoscaling",
            "v1",
            "horizontalpodautoscalers",
            True,
            ("hpa",),
            ALL_CATEGORY,
            subresources=(STATUS,),
        ),
    )

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: HorizontalPodAutoscalerSpec | None = tag(2, "omitempty")
    """The behaviour of the autoscaler."""
    status: HorizontalPodAutoscalerStatus | None = tag(3, "omitempty")
    """The current information about the autoscaler."""

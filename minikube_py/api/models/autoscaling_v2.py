"""autoscaling/v2 HorizontalPodAutoscaler: the stored shape of both served versions.

The models carry no protobuf numbers: the message names (``HorizontalPodAutoscaler``,
``CrossVersionObjectReference``...) are autoscaling/v1's too, and the protobuf registry names
messages by class name, so only v1 (what kubectl's ``autoscale`` sends, as protobuf from 1.32)
is decodable from protobuf; v2 bodies are JSON (what kubectl's ``create -f``/``apply`` send).
"""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, K8sModel, OneOf, Quantity, Time
from minikube_py.api.models.meta import LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.autoscaling.v2"

MetricSourceType = Annotated[str, OneOf("ContainerResource", "External", "Object", "Pods", "Resource")]


class CrossVersionObjectReference(K8sModel):
    """Enough to identify the referred resource in any version."""

    required_fields = ("kind", "name")

    kind: str | None = None
    """Kind of the referent."""
    name: str | None = None
    """Name of the referent."""
    api_version: str | None = None
    """API version of the referent."""


class MetricIdentifier(K8sModel):
    """A metric's name and optional selector."""

    required_fields = ("name",)

    name: str | None = None
    """Name of the metric."""
    selector: LabelSelector | None = None
    """Passed to the metrics server to scope the metric."""


class MetricTarget(K8sModel):
    """The target value, average value or average utilization of a metric."""

    required_fields = ("type",)

    type: str | None = None
    """``Utilization``, ``Value`` or ``AverageValue``."""
    value: Quantity | None = None
    """Target value of the metric."""
    average_value: Quantity | None = None
    """Target average of the metric across the pods."""
    average_utilization: Int32 | None = None
    """Target average utilization, as a percentage of the pods' requests (Resource metrics)."""


class MetricValueStatus(K8sModel):
    """The current value of a metric."""

    value: Quantity | None = None
    """Current value of the metric."""
    average_value: Quantity | None = None
    """Current average of the metric across the pods."""
    average_utilization: Int32 | None = None
    """Current average utilization, as a percentage of the pods' requests."""


class ResourceMetricSource(K8sModel):
    """A resource metric (CPU, memory) of every pod of the target, averaged."""

    required_fields = ("name", "target")

    name: str | None = None
    """Name of the resource."""
    target: MetricTarget | None = None
    """Target value of the metric."""


class ContainerResourceMetricSource(K8sModel):
    """A resource metric of one container of every pod of the target, averaged."""

    required_fields = ("name", "target", "container")

    name: str | None = None
    """Name of the resource."""
    target: MetricTarget | None = None
    """Target value of the metric."""
    container: str | None = None
    """Name of the container in the pods of the target."""


class PodsMetricSource(K8sModel):
    """A metric describing every pod of the target, averaged."""

    required_fields = ("metric", "target")

    metric: MetricIdentifier | None = None
    """The metric."""
    target: MetricTarget | None = None
    """Target value of the metric."""


class ObjectMetricSource(K8sModel):
    """A metric describing one Kubernetes object."""

    required_fields = ("describedObject", "target", "metric")

    described_object: CrossVersionObjectReference | None = None
    """The object described."""
    target: MetricTarget | None = None
    """Target value of the metric."""
    metric: MetricIdentifier | None = None
    """The metric."""


class ExternalMetricSource(K8sModel):
    """A metric not associated with any Kubernetes object."""

    required_fields = ("metric", "target")

    metric: MetricIdentifier | None = None
    """The metric."""
    target: MetricTarget | None = None
    """Target value of the metric."""


class MetricSpec(K8sModel):
    """One metric to scale on: ``type`` and the matching source."""

    required_fields = ("type",)

    type: MetricSourceType | None = None
    """The type of metric source."""
    object: ObjectMetricSource | None = None
    """A metric describing one Kubernetes object."""
    pods: PodsMetricSource | None = None
    """A metric describing every pod of the target."""
    resource: ResourceMetricSource | None = None
    """A resource metric of every pod of the target."""
    container_resource: ContainerResourceMetricSource | None = None
    """A resource metric of one container of every pod of the target."""
    external: ExternalMetricSource | None = None
    """A metric not associated with any Kubernetes object."""


class ResourceMetricStatus(K8sModel):
    """The current value of a resource metric."""

    required_fields = ("name", "current")

    name: str | None = None
    """Name of the resource."""
    current: MetricValueStatus | None = None
    """Current value of the metric."""


class ContainerResourceMetricStatus(K8sModel):
    """The current value of a container resource metric."""

    required_fields = ("name", "current", "container")

    name: str | None = None
    """Name of the resource."""
    current: MetricValueStatus | None = None
    """Current value of the metric."""
    container: str | None = None
    """Name of the container."""


class PodsMetricStatus(K8sModel):
    """The current value of a pods metric."""

    required_fields = ("metric", "current")

    metric: MetricIdentifier | None = None
    """The metric."""
    current: MetricValueStatus | None = None
    """Current value of the metric."""


class ObjectMetricStatus(K8sModel):
    """The current value of an object metric."""

    required_fields = ("metric", "current", "describedObject")

    metric: MetricIdentifier | None = None
    """The metric."""
    current: MetricValueStatus | None = None
    """Current value of the metric."""
    described_object: CrossVersionObjectReference | None = None
    """The object described."""


class ExternalMetricStatus(K8sModel):
    """The current value of an external metric."""

    required_fields = ("metric", "current")

    metric: MetricIdentifier | None = None
    """The metric."""
    current: MetricValueStatus | None = None
    """Current value of the metric."""


class MetricStatus(K8sModel):
    """The last-read state of one metric."""

    required_fields = ("type",)

    type: MetricSourceType | None = None
    """The type of metric source."""
    object: ObjectMetricStatus | None = None
    """An object metric."""
    pods: PodsMetricStatus | None = None
    """A pods metric."""
    resource: ResourceMetricStatus | None = None
    """A resource metric."""
    container_resource: ContainerResourceMetricStatus | None = None
    """A container resource metric."""
    external: ExternalMetricStatus | None = None
    """An external metric."""


class HPAScalingPolicy(K8sModel):
    """One policy that must hold over a past interval."""

    required_fields = ("type", "value", "periodSeconds")

    type: Annotated[str, OneOf("Pods", "Percent")] | None = None
    """``Pods`` (an absolute change) or ``Percent`` (relative to the current replicas)."""
    value: Int32 | None = None
    """The change the policy permits; greater than zero."""
    period_seconds: Int32 | None = None
    """The window over which the policy holds; in (0, 1800]."""


class HPAScalingRules(K8sModel):
    """Scaling behavior in one direction: policies and a stabilization window."""

    stabilization_window_seconds: Int32 | None = None
    """Seconds of past recommendations considered; in [0, 3600]. Defaults: 0 up, 300 down."""
    select_policy: Annotated[str, OneOf("Max", "Min", "Disabled")] | None = None
    """Which policy applies: ``Max`` (default), ``Min`` or ``Disabled``."""
    policies: list[HPAScalingPolicy] | None = None
    """The policies that may limit the scaling velocity."""


class HorizontalPodAutoscalerBehavior(K8sModel):
    """Scaling behavior up and down."""

    scale_up: HPAScalingRules | None = None
    """Scale-up rules; default: 100% or 4 pods per 15 s, the higher, no stabilization."""
    scale_down: HPAScalingRules | None = None
    """Scale-down rules; default: down to minReplicas, 300 s stabilization window."""


class HorizontalPodAutoscalerSpec(K8sModel):
    """The desired functionality of an autoscaler."""

    required_fields = ("scaleTargetRef", "maxReplicas")

    scale_target_ref: CrossVersionObjectReference | None = None
    """The resource scaled: its pods are measured and its ``scale`` subresource is written."""
    min_replicas: Int32 | None = None
    """Lower limit of the replicas. Defaults to 1."""
    max_replicas: Int32 | None = None
    """Upper limit of the replicas; not below minReplicas."""
    metrics: list[MetricSpec] | None = None
    """The metrics the desired replicas are computed from (the highest wins). Defaults to 80%
    average CPU utilization."""
    behavior: HorizontalPodAutoscalerBehavior | None = None
    """Scaling behavior up and down."""


class HorizontalPodAutoscalerCondition(K8sModel):
    """The state of an autoscaler at a certain point."""

    required_fields = ("type", "status")

    type: str | None = None
    """``AbleToScale``, ``ScalingActive`` or ``ScalingLimited``."""
    status: str | None = None
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = None
    """When the condition last changed status."""
    reason: str | None = None
    """Why the condition last changed (CamelCase)."""
    message: str | None = None
    """A human-readable explanation of the change."""


class HorizontalPodAutoscalerStatus(K8sModel):
    """The current status of an autoscaler."""

    required_fields = ("desiredReplicas",)

    observed_generation: Int64 | None = None
    """The most recent generation observed by this autoscaler."""
    last_scale_time: Time | None = None
    """The last time the autoscaler scaled the number of pods."""
    current_replicas: Int32 | None = None
    """Current number of replicas, as last seen by the autoscaler."""
    desired_replicas: Int32 | None = None
    """Desired number of replicas, as last computed by the autoscaler."""
    current_metrics: list[MetricStatus] | None = None
    """The last read state of the metrics."""
    conditions: list[HorizontalPodAutoscalerCondition] | None = tag(merge_key="type")
    """Whether the autoscaler can scale its target, and why."""


class HorizontalPodAutoscaler(TypeMeta):
    """Configuration of a horizontal pod autoscaler, which manages the replicas of any resource
    with a ``scale`` subresource from the metrics it names."""

    required_fields = ("spec",)

    kinds = (
        Served(
            "autoscaling",
            "v2",
            "horizontalpodautoscalers",
            True,
            ("hpa",),
            ALL_CATEGORY,
            subresources=(STATUS,),
        ),
    )

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: HorizontalPodAutoscalerSpec | None = None
    """The behaviour of the autoscaler."""
    status: HorizontalPodAutoscalerStatus | None = None
    """The current information about the autoscaler."""

"""core/v1 ReplicationController, the ancestor of ReplicaSet: the same controller with a map
selector (``rc``, in category ``all``, with ``/status`` and ``/scale``)."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, Int64, K8sModel, StrMap, Time
from minikube_py.api.models.core_pod import PodTemplateSpec
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, SCALE, STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class ReplicationControllerSpec(K8sModel):
    """The desired behaviour of a ReplicationController."""

    replicas: Int32 | None = None
    """Number of desired pods. Defaults to 1."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready, with no container crashing, to count as available."""
    selector: StrMap | None = None
    """Labels of the pods the controller manages; defaults to the template's labels."""
    template: PodTemplateSpec | None = None
    """The pods to create when too few exist."""


class ReplicationControllerCondition(K8sModel):
    """The state of a replication controller at a point in time."""

    required_fields = ("type", "status")

    type: str | None = None
    """Type of the condition (``ReplicaFailure``)."""
    status: str | None = None
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = None
    """Last time the condition changed from one status to another."""
    reason: str | None = None
    """The reason for the last transition."""
    message: str | None = None
    """Human-readable details of the last transition."""


class ReplicationControllerStatus(K8sModel):
    """The most recently observed status of a ReplicationController."""

    required_fields = ("replicas",)

    replicas: Int32 | None = None
    """The most recently observed number of replicas."""
    fully_labeled_replicas: Int32 | None = None
    """Pods whose labels match the template's."""
    ready_replicas: Int32 | None = None
    """Ready pods."""
    available_replicas: Int32 | None = None
    """Pods ready for at least ``minReadySeconds``."""
    observed_generation: Int64 | None = None
    """The generation the controller observed."""
    conditions: list[ReplicationControllerCondition] | None = tag(merge_key="type")
    """The latest available observations of the controller's state."""


class ReplicationController(TypeMeta):
    """Keeps a number of copies of a pod running."""

    kinds = (
        Served("", "v1", "replicationcontrollers", True, ("rc",), ALL_CATEGORY, subresources=(STATUS, SCALE)),
    )

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: ReplicationControllerSpec | None = None
    """The desired behaviour of the controller."""
    status: ReplicationControllerStatus | None = None
    """The most recently observed status of the controller."""

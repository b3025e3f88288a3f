"""apps/v1 Deployment and ReplicaSet."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, IntOrString, K8sModel, OneOf, Time
from minikube_py.api.models.core_pod import PodTemplateSpec
from minikube_py.api.models.meta import LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, SCALE, STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.apps.v1"


class RollingUpdateDeployment(K8sModel):
    """How fast a rolling update replaces pods."""

    max_unavailable: IntOrString | None = tag(1, "*", "omitempty")
    """Maximum number (or percentage of desired pods, rounded down) of pods that can be
    unavailable during the update. Defaults to 25%; cannot be 0 if ``maxSurge`` is 0."""
    max_surge: IntOrString | None = tag(2, "*", "omitempty")
    """Maximum number (or percentage of desired pods, rounded up) of pods that can be created
    above the desired count. Defaults to 25%; cannot be 0 if ``maxUnavailable`` is 0."""


class DeploymentStrategy(K8sModel):
    """How to replace existing pods with new ones."""

    type: Annotated[str, OneOf("Recreate", "RollingUpdate")] | None = tag(1, "omitempty")
    """Type of deployment: ``Recreate`` or ``RollingUpdate``. Defaults to ``RollingUpdate``."""
    rolling_update: RollingUpdateDeployment | None = tag(2, "*", "omitempty")
    """Rolling update parameters; only when ``type`` is ``RollingUpdate``."""


class DeploymentSpec(K8sModel):
    """The desired behaviour of a Deployment."""

    required_fields = ("selector", "template")

    replicas: Int32 | None = tag(1, "*", "omitempty")
    """Number of desired pods. Defaults to 1."""
    selector: LabelSelector | None = tag(2, "*")
    """Label selector of the pods the deployment manages; must match the template's labels.
    Immutable in apps/v1."""
    template: PodTemplateSpec | None = tag(3)
    """The pods to create. Its only allowed ``restartPolicy`` is ``Always``."""
    strategy: DeploymentStrategy | None = tag(4, "omitempty", patch="retainKeys")
    """The deployment strategy to use to replace existing pods with new ones."""
    min_ready_seconds: Int32 | None = tag(5, "omitempty")
    """Seconds a new pod must be ready, with no container crashing, to count as available.
    Defaults to 0."""
    revision_history_limit: Int32 | None = tag(6, "*", "omitempty")
    """Number of old ReplicaSets kept to allow rollback. Defaults to 10."""
    paused: bool | None = tag(7, "omitempty")
    """Whether the deployment is paused."""
    progress_deadline_seconds: Int32 | None = tag(9, "*", "omitempty")
    """Seconds the deployment may take to make progress before it is reported as failed.
    Defaults to 600."""


class DeploymentCondition(K8sModel):
    """The state of a deployment at a point in time."""

    required_fields = ("type", "status")

    type: str | None = tag(1)
    """Type of the condition: ``Available``, ``Progressing`` or ``ReplicaFailure``."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_update_time: Time | None = tag(6, "omitempty")
    """The last time the condition was updated."""
    last_transition_time: Time | None = tag(7, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(4, "omitempty")
    """The reason for the last transition."""
    message: str | None = tag(5, "omitempty")
    """Human-readable details of the last transition."""


class DeploymentStatus(K8sModel):
    """The most recently observed status of a Deployment."""

    observed_generation: Int64 | None = tag(1, "omitempty")
    """The generation the deployment controller observed."""
    replicas: Int32 | None = tag(2, "omitempty")
    """Total number of non-terminating pods targeted by the deployment."""
    updated_replicas: Int32 | None = tag(3, "omitempty")
    """Non-terminating pods that have the desired template."""
    ready_replicas: Int32 | None = tag(7, "omitempty")
    """Non-terminating pods with a Ready condition."""
    available_replicas: Int32 | None = tag(4, "omitempty")
    """Non-terminating pods ready for at least ``minReadySeconds``."""
    unavailable_replicas: Int32 | None = tag(5, "omitempty")
    """Pods still needed for the deployment to have 100% available capacity."""
    terminating_replicas: Int32 | None = tag(9, "*", "omitempty")
    """Terminating pods (with a deletionTimestamp) targeted by the deployment."""
    conditions: list[DeploymentCondition] | None = tag(6, "omitempty", merge_key="type")
    """The latest available observations of the deployment's state."""
    collision_count: Int32 | None = tag(8, "*", "omitempty")
    """Count of hash collisions, used to name the newest ReplicaSet."""


class Deployment(TypeMeta):
    """Declarative updates for pods and ReplicaSets."""

    kinds = (
        Served("apps", "v1", "deployments", True, ("deploy",), ALL_CATEGORY, subresources=(STATUS, SCALE)),
    )

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: DeploymentSpec | None = tag(2, "omitempty")
    """The desired behaviour of the deployment."""
    status: DeploymentStatus | None = tag(3, "omitempty")
    """Most recently observed status of the deployment."""


class ReplicaSetSpec(K8sModel):
    """The desired behaviour of a ReplicaSet."""

    required_fields = ("selector",)

    replicas: Int32 | None = tag(1, "*", "omitempty")
    """Number of desired pods. Defaults to 1."""
    min_ready_seconds: Int32 | None = tag(4, "omitempty")
    """Seconds a new pod must be ready to count as available. Defaults to 0."""
    selector: LabelSelector | None = tag(2, "*")
    """Label query over the pods that count as replicas; must match the template's labels."""
    template: PodTemplateSpec | None = tag(3, "omitempty")
    """The pods created when too few replicas are found."""


class ReplicaSetCondition(K8sModel):
    """The state of a ReplicaSet at a point in time."""

    required_fields = ("type", "status")

    type: str | None = tag(1)
    """Type of the condition, such as ``ReplicaFailure``."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = tag(3, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(4, "omitempty")
    """The reason for the last transition."""
    message: str | None = tag(5, "omitempty")
    """Human-readable details of the last transition."""


class ReplicaSetStatus(K8sModel):
    """The most recently observed status of a ReplicaSet."""

    required_fields = ("replicas",)

    replicas: Int32 | None = tag(1)
    """Most recently observed number of non-terminating pods."""
    fully_labeled_replicas: Int32 | None = tag(2, "omitempty")
    """Non-terminating pods whose labels match the template's."""
    ready_replicas: Int32 | None = tag(4, "omitempty")
    """Non-terminating pods with a Ready condition."""
    available_replicas: Int32 | None = tag(5, "omitempty")
    """Non-terminating pods ready for at least ``minReadySeconds``."""
    terminating_replicas: Int32 | None = tag(7, "*", "omitempty")
    """Terminating pods of the replica set."""
    observed_generation: Int64 | None = tag(3, "omitempty")
    """The generation of the most recently observed ReplicaSet."""
    conditions: list[ReplicaSetCondition] | None = tag(6, "omitempty", merge_key="type")
    """The latest available observations of the replica set's state."""


class ReplicaSet(TypeMeta):
    """Ensures that a specified number of pod replicas are running at any given time."""

    kinds = (Served("apps", "v1", "replicasets", True, ("rs",), ALL_CATEGORY, subresources=(STATUS, SCALE)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata; its labels may differ from the pod template's."""
    spec: ReplicaSetSpec | None = tag(2, "omitempty")
    """The desired behaviour of the replica set."""
    status: ReplicaSetStatus | None = tag(3, "omitempty")
    """Most recently observed status of the replica set."""

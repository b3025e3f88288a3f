"""apps/v1 DaemonSet and StatefulSet."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import Int32, Int64, IntOrString, K8sModel, OneOf, Time
from minikube_py.api.models.core_claim import PersistentVolumeClaim
from minikube_py.api.models.core_pod import PodTemplateSpec
from minikube_py.api.models.meta import LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import ALL_CATEGORY, SCALE, STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.apps.v1"


class RollingUpdateDaemonSet(K8sModel):
    """How fast a DaemonSet rolling update replaces pods."""

    max_unavailable: IntOrString | None = tag(1, "*", "omitempty")
    """Maximum number (or percentage) of nodes whose daemon pod may be unavailable during the
    update. Defaults to 1."""
    max_surge: IntOrString | None = tag(2, "*", "omitempty")
    """Maximum number (or percentage) of nodes that may run an extra, updated daemon pod during
    the update. Defaults to 0."""


class DaemonSetUpdateStrategy(K8sModel):
    """How a DaemonSet replaces its pods."""

    type: Annotated[str, OneOf("OnDelete", "RollingUpdate")] | None = tag(1, "omitempty")
    """Type of update. Defaults to ``RollingUpdate``."""
    rolling_update: RollingUpdateDaemonSet | None = tag(2, "*", "omitempty")
    """Rolling update parameters; only when ``type`` is ``RollingUpdate``."""


class DaemonSetSpec(K8sModel):
    """The desired behaviour of a DaemonSet."""

    required_fields = ("selector", "template")

    selector: LabelSelector | None = tag(1, "*")
    """Label query over the pods the daemon set manages; must match the template's labels."""
    template: PodTemplateSpec | None = tag(2)
    """The pod created on every eligible node."""
    update_strategy: DaemonSetUpdateStrategy | None = tag(3, "omitempty")
    """How existing pods are replaced with new ones."""
    min_ready_seconds: Int32 | None = tag(4, "omitempty")
    """Seconds a new pod must be ready to count as available. Defaults to 0."""
    revision_history_limit: Int32 | None = tag(6, "*", "omitempty")
    """Number of old history entries kept to allow rollback. Defaults to 10."""


class DaemonSetCondition(K8sModel):
    """The state of a DaemonSet at a point in time."""

    required_fields = ("type", "status")

    type: str | None = tag(1)
    """Type of the condition."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = tag(3, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(4, "omitempty")
    """The reason for the last transition."""
    message: str | None = tag(5, "omitempty")
    """Human-readable details of the last transition."""


class DaemonSetStatus(K8sModel):
    """The most recently observed status of a DaemonSet."""

    required_fields = (
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
    )

    current_number_scheduled: Int32 | None = tag(1)
    """Nodes running at least one daemon pod that are supposed to."""
    number_misscheduled: Int32 | None = tag(2)
    """Nodes running the daemon pod that are not supposed to."""
    desired_number_scheduled: Int32 | None = tag(3)
    """Nodes that should be running the daemon pod."""
    number_ready: Int32 | None = tag(4)
    """Nodes that should run the daemon pod and have one or more of it ready."""
    observed_generation: Int64 | None = tag(5, "omitempty")
    """The most recent generation observed by the daemon set controller."""
    updated_number_scheduled: Int32 | None = tag(6, "omitempty")
    """Nodes running an updated daemon pod."""
    number_available: Int32 | None = tag(7, "omitempty")
    """Nodes whose daemon pod is available (ready for ``minReadySeconds``)."""
    number_unavailable: Int32 | None = tag(8, "omitempty")
    """Nodes that should run the daemon pod and have none available."""
    collision_count: Int32 | None = tag(9, "*", "omitempty")
    """Count of hash collisions, used to name the newest ControllerRevision."""
    conditions: list[DaemonSetCondition] | None = tag(10, "omitempty", merge_key="type")
    """The latest available observations of the daemon set's state."""


class DaemonSet(TypeMeta):
    """Runs a copy of a pod on every eligible node."""

    kinds = (Served("apps", "v1", "daemonsets", True, ("ds",), ALL_CATEGORY, subresources=(STATUS,)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: DaemonSetSpec | None = tag(2, "omitempty")
    """The desired behaviour of the daemon set."""
    status: DaemonSetStatus | None = tag(3, "omitempty")
    """The current status of the daemon set."""


class RollingUpdateStatefulSetStrategy(K8sModel):
    """Parameters of a StatefulSet rolling update."""

    partition: Int32 | None = tag(1, "*", "omitempty")
    """Pods with an ordinal at or above the partition are updated; the others keep their
    version. Defaults to 0."""
    max_unavailable: IntOrString | None = tag(2, "*", "omitempty")
    """Maximum number (or percentage) of pods that can be unavailable during the update."""


class StatefulSetUpdateStrategy(K8sModel):
    """How a StatefulSet updates its pods."""

    type: Annotated[str, OneOf("OnDelete", "RollingUpdate")] | None = tag(1, "omitempty")
    """Type of update. Defaults to ``RollingUpdate``."""
    rolling_update: RollingUpdateStatefulSetStrategy | None = tag(2, "*", "omitempty")
    """Rolling update parameters; only when ``type`` is ``RollingUpdate``."""


class StatefulSetPersistentVolumeClaimRetentionPolicy(K8sModel):
    """What happens to claims created from ``volumeClaimTemplates``."""

    when_deleted: Annotated[str, OneOf("Delete", "Retain")] | None = tag(1, "omitempty")
    """What happens to the claims when the StatefulSet is deleted. Defaults to ``Retain``."""
    when_scaled: Annotated[str, OneOf("Delete", "Retain")] | None = tag(2, "omitempty")
    """What happens to the claims of pods removed by a scale down. Defaults to ``Retain``."""


class StatefulSetOrdinals(K8sModel):
    """How replica indices are numbered."""

    start: Int32 | None = tag(1)
    """The first replica index. Defaults to 0."""


class StatefulSetSpec(K8sModel):
    """The desired behaviour of a StatefulSet."""

    required_fields = ("selector", "template")

    replicas: Int32 | None = tag(1, "*", "omitempty")
    """Desired number of replicas. Defaults to 1."""
    selector: LabelSelector | None = tag(2, "*")
    """Label query over the pods that count as replicas; must match the template's labels."""
    template: PodTemplateSpec | None = tag(3)
    """The pods created; each gets a unique, stable identity."""
    volume_claim_templates: list[PersistentVolumeClaim] | None = tag(4, "omitempty")
    """Claims every pod may reference; each pod gets its own claim per template."""
    service_name: str | None = tag(5)
    """Name of the service governing the set, which gives the pods their network identity."""
    pod_management_policy: Annotated[str, OneOf("OrderedReady", "Parallel")] | None = tag(6, "omitempty")
    """How pods are created on scale up and removed on scale down. Defaults to
    ``OrderedReady``."""
    update_strategy: StatefulSetUpdateStrategy | None = tag(7, "omitempty")
    """How pods are updated when the template changes."""
    revision_history_limit: Int32 | None = tag(8, "*", "omitempty")
    """Number of revisions kept in the history. Defaults to 10."""
    min_ready_seconds: Int32 | None = tag(9, "omitempty")
    """Seconds a new pod must be ready to count as available. Defaults to 0."""
    persistent_volume_claim_retention_policy: StatefulSetPersistentVolumeClaimRetentionPolicy | None = tag(
        10, "*", "omitempty"
    )
    """Lifecycle of the claims created from ``volumeClaimTemplates``."""
    ordinals: StatefulSetOrdinals | None = tag(11, "*", "omitempty")
    """Numbering of the replicas."""


class StatefulSetCondition(K8sModel):
    """The state of a StatefulSet at a point in time."""

    required_fields = ("type", "status")

    type: str | None = tag(1)
    """Type of the condition."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = tag(3, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(4, "omitempty")
    """The reason for the last transition."""
    message: str | None = tag(5, "omitempty")
    """Human-readable details of the last transition."""


class StatefulSetStatus(K8sModel):
    """The current state of a StatefulSet."""

    required_fields = ("replicas",)

    observed_generation: Int64 | None = tag(1, "omitempty")
    """The most recent generation observed for the set."""
    replicas: Int32 | None = tag(2)
    """Number of pods created by the controller."""
    ready_replicas: Int32 | None = tag(3, "omitempty")
    """Pods with a Ready condition."""
    current_replicas: Int32 | None = tag(4, "omitempty")
    """Pods at the version of ``currentRevision``."""
    updated_replicas: Int32 | None = tag(5, "omitempty")
    """Pods at the version of ``updateRevision``."""
    current_revision: str | None = tag(6, "omitempty")
    """Revision of the pods with ordinals below ``currentReplicas``."""
    update_revision: str | None = tag(7, "omitempty")
    """Revision of the pods with ordinals from ``replicas - updatedReplicas`` up."""
    collision_count: Int32 | None = tag(9, "*", "omitempty")
    """Count of hash collisions, used to name the newest ControllerRevision."""
    conditions: list[StatefulSetCondition] | None = tag(10, "omitempty", merge_key="type")
    """The latest available observations of the set's state."""
    available_replicas: Int32 | None = tag(11)
    """Pods ready for at least ``minReadySeconds``."""


class StatefulSet(TypeMeta):
    """A set of pods with consistent identities: stable network names and storage."""

    kinds = (
        Served("apps", "v1", "statefulsets", True, ("sts",), ALL_CATEGORY, subresources=(STATUS, SCALE)),
    )

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: StatefulSetSpec | None = tag(2, "omitempty")
    """The desired identities of the pods in the set."""
    status: StatefulSetStatus | None = tag(3, "omitempty")
    """The current status of the pods; may lag behind the actual state."""

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

    max_unavailable: IntOrString | None = None
    """Maximum number (or percentage) of nodes whose daemon pod may be unavailable during the
    update. Defaults to 1."""
    max_surge: IntOrString | None = None
    """Maximum number (or percentage) of nodes that may run an extra, updated daemon pod during
    the update. Defaults to 0."""


class DaemonSetUpdateStrategy(K8sModel):
    """How a DaemonSet replaces its pods."""

    type: Annotated[str, OneOf("OnDelete", "RollingUpdate")] | None = None
    """Type of update. Defaults to ``RollingUpdate``."""
    rolling_update: RollingUpdateDaemonSet | None = None
    """Rolling update parameters; only when ``type`` is ``RollingUpdate``."""


class DaemonSetSpec(K8sModel):
    """The desired behaviour of a DaemonSet."""

    required_fields = ("selector", "template")

    selector: LabelSelector | None = None
    """Label query over the pods the daemon set manages; must match the template's labels."""
    template: PodTemplateSpec | None = None
    """The pod created on every eligible node."""
    update_strategy: DaemonSetUpdateStrategy | None = None
    """How existing pods are replaced with new ones."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready to count as available. Defaults to 0."""
    revision_history_limit: Int32 | None = None
    """Number of old history entries kept to allow rollback. Defaults to 10."""


class DaemonSetCondition(K8sModel):
    """The state of a DaemonSet at a point in time."""

    required_fields = ("type", "status")

    type: str | None = None
    """Type of the condition."""
    status: str | None = None
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = None
    """Last time the condition changed from one status to another."""
    reason: str | None = None
    """The reason for the last transition."""
    message: str | None = None
    """Human-readable details of the last transition."""


class DaemonSetStatus(K8sModel):
    """The most recently observed status of a DaemonSet."""

    required_fields = (
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
    )

    current_number_scheduled: Int32 | None = None
    """Nodes running at least one daemon pod that are supposed to."""
    number_misscheduled: Int32 | None = None
    """Nodes running the daemon pod that are not supposed to."""
    desired_number_scheduled: Int32 | None = None
    """Nodes that should be running the daemon pod."""
    number_ready: Int32 | None = None
    """Nodes that should run the daemon pod and have one or more of it ready."""
    observed_generation: Int64 | None = None
    """The most recent generation observed by the daemon set controller."""
    updated_number_scheduled: Int32 | None = None
    """Nodes running an updated daemon pod."""
    number_available: Int32 | None = None
    """Nodes whose daemon pod is available (ready for ``minReadySeconds``)."""
    number_unavailable: Int32 | None = None
    """Nodes that should run the daemon pod and have none available."""
    collision_count: Int32 | None = None
    """Count of hash collisions, used to name the newest ControllerRevision."""
    conditions: list[DaemonSetCondition] | None = tag(merge_key="type")
    """The latest available observations of the daemon set's state."""


class DaemonSet(TypeMeta):
    """Runs a copy of a pod on every eligible node."""

    kinds = (Served("apps", "v1", "daemonsets", True, ("ds",), ALL_CATEGORY, subresources=(STATUS,)),)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: DaemonSetSpec | None = None
    """The desired behaviour of the daemon set."""
    status: DaemonSetStatus | None = None
    """The current status of the daemon set."""


class RollingUpdateStatefulSetStrategy(K8sModel):
    """Parameters of a StatefulSet rolling update."""

    partition: Int32 | None = None
    """Pods with an ordinal at or above the partition are updated; the others keep their
    version. Defaults to 0."""
    max_unavailable: IntOrString | None = None
    """Maximum number (or percentage) of pods that can be unavailable during the update."""


class StatefulSetUpdateStrategy(K8sModel):
    """How a StatefulSet updates its pods."""

    type: Annotated[str, OneOf("OnDelete", "RollingUpdate")] | None = None
    """Type of update. Defaults to ``RollingUpdate``."""
    rolling_update: RollingUpdateStatefulSetStrategy | None = None
    """Rolling update parameters; only when ``type`` is ``RollingUpdate``."""


class StatefulSetPersistentVolumeClaimRetentionPolicy(K8sModel):
    """What happens to claims created from ``volumeClaimTemplates``."""

    when_deleted: Annotated[str, OneOf("Delete", "Retain")] | None = None
    """What happens to the claims when the StatefulSet is deleted. Defaults to ``Retain``."""
    when_scaled: Annotated[str, OneOf("Delete", "Retain")] | None = None
    """What happens to the claims of pods removed by a scale down. Defaults to ``Retain``."""


class StatefulSetOrdinals(K8sModel):
    """How replica indices are numbered."""

    start: Int32 | None = None
    """The first replica index. Defaults to 0."""


class StatefulSetSpec(K8sModel):
    """The desired behaviour of a StatefulSet."""

    required_fields = ("selector", "template")

    replicas: Int32 | None = None
    """Desired number of replicas. Defaults to 1."""
    selector: LabelSelector | None = None
    """Label query over the pods that count as replicas; must match the template's labels."""
    template: PodTemplateSpec | None = None
    """The pods created; each gets a unique, stable identity."""
    volume_claim_templates: list[PersistentVolumeClaim] | None = None
    """Claims every pod may reference; each pod gets its own claim per template."""
    service_name: str | None = None
    """Name of the service governing the set, which gives the pods their network identity."""
    pod_management_policy: Annotated[str, OneOf("OrderedReady", "Parallel")] | None = None
    """How pods are created on scale up and removed on scale down. Defaults to
    ``OrderedReady``."""
    update_strategy: StatefulSetUpdateStrategy | None = None
    """How pods are updated when the template changes."""
    revision_history_limit: Int32 | None = None
    """Number of revisions kept in the history. Defaults to 10."""
    min_ready_seconds: Int32 | None = None
    """Seconds a new pod must be ready to count as available. Defaults to 0."""
    persistent_volume_claim_retention_policy: StatefulSetPersistentVolumeClaimRetentionPolicy | None = None
    """Lifecycle of the claims created from ``volumeClaimTemplates``."""
    ordinals: StatefulSetOrdinals | None = None
    """Numbering of the replicas."""


class StatefulSetCondition(K8sModel):
    """The state of a StatefulSet at a point in time."""

    required_fields = ("type", "status")

    type: str | None = None
    """Type of the condition."""
    status: str | None = None
    """``True``, ``False`` or ``Unknown``."""
    last_transition_time: Time | None = None
    """Last time the condition changed from one status to another."""
    reason: str | None = None
    """The reason for the last transition."""
    message: str | None = None
    """Human-readable details of the last transition."""


class StatefulSetStatus(K8sModel):
    """The current state of a StatefulSet."""

    required_fields = ("replicas",)

    observed_generation: Int64 | None = None
    """The most recent generation observed for the set."""
    replicas: Int32 | None = None
    """Number of pods created by the controller."""
    ready_replicas: Int32 | None = None
    """Pods with a Ready condition."""
    current_replicas: Int32 | None = None
    """Pods at the version of ``currentRevision``."""
    updated_replicas: Int32 | None = None
    """Pods at the version of ``updateRevision``."""
    current_revision: str | None = None
    """Revision of the pods with ordinals below ``currentReplicas``."""
    update_revision: str | None = None
    """Revision of the pods with ordinals from ``replicas - updatedReplicas`` up."""
    collision_count: Int32 | None = None
    """Count of hash collisions, used to name the newest ControllerRevision."""
    conditions: list[StatefulSetCondition] | None = tag(merge_key="type")
    """The latest available observations of the set's state."""
    available_replicas: Int32 | None = None
    """Pods ready for at least ``minReadySeconds``."""


class StatefulSet(TypeMeta):
    """A set of pods with consistent identities: stable network names and storage."""

    kinds = (
        Served("apps", "v1", "statefulsets", True, ("sts",), ALL_CATEGORY, subresources=(STATUS, SCALE)),
    )

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: StatefulSetSpec | None = None
    """The desired identities of the pods in the set."""
    status: StatefulSetStatus | None = None
    """The current status of the pods; may lag behind the actual state."""

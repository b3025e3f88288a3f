"""core/v1 PersistentVolumeClaim: a user's request for storage (served with ``pvc`` and
``/status``), also what workloads template (StatefulSet claim templates, ephemeral volumes)."""

from __future__ import annotations

from minikube_py.api.models.base import K8sModel, RawObject, ResourceList, Time
from minikube_py.api.models.core_refs import TypedLocalObjectReference, TypedObjectReference
from minikube_py.api.models.meta import LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class VolumeResourceRequirements(K8sModel):
    """Storage resource requirements."""

    limits: ResourceList | None = tag(1, "omitempty")
    """The maximum amount of storage allowed."""
    requests: ResourceList | None = tag(2, "omitempty")
    """The minimum amount of storage required."""


class PersistentVolumeClaimSpec(K8sModel):
    """The desired characteristics of a volume a claim requests."""

    access_modes: list[str] | None = tag(1, "omitempty")
    """Desired access modes: ``ReadWriteOnce``, ``ReadOnlyMany``, ``ReadWriteMany``,
    ``ReadWriteOncePod``."""
    selector: LabelSelector | None = tag(4, "*", "omitempty")
    """A label query over volumes to consider for binding."""
    resources: VolumeResourceRequirements | None = tag(2, "omitempty")
    """The minimum resources the volume should have."""
    volume_name: str | None = tag(3, "omitempty")
    """Binding reference to the PersistentVolume backing this claim."""
    storage_class_name: str | None = tag(5, "*", "omitempty")
    """Name of the StorageClass the claim requires."""
    volume_mode: str | None = tag(6, "*", "omitempty")
    """``Filesystem`` (default) or ``Block``."""
    data_source: TypedLocalObjectReference | None = tag(7, "*", "omitempty")
    """An existing VolumeSnapshot or PersistentVolumeClaim to populate the volume from."""
    data_source_ref: TypedObjectReference | None = tag(8, "*", "omitempty")
    """Any object to populate the volume from, possibly in another namespace."""
    volume_attributes_class_name: str | None = tag(9, "*", "omitempty")
    """The VolumeAttributesClass used by the claim."""


class PersistentVolumeClaimCondition(K8sModel):
    """The state of a claim at a point in time (message only: the model's ``conditions`` stay
    free-form JSON)."""

    type: str | None = tag(1)
    """Type of the condition (``Resizing``, ``FileSystemResizePending``...)."""
    status: str | None = tag(2)
    """``True``, ``False`` or ``Unknown``."""
    last_probe_time: Time | None = tag(3, "omitempty")
    """Last time the condition was probed."""
    last_transition_time: Time | None = tag(4, "omitempty")
    """Last time the condition changed from one status to another."""
    reason: str | None = tag(5, "omitempty")
    """The reason for the last transition."""
    message: str | None = tag(6, "omitempty")
    """Human-readable details of the last transition."""


class ModifyVolumeStatus(K8sModel):
    """The state of a volume attributes class change (message only: the model's field stays
    free-form JSON)."""

    target_volume_attributes_class_name: str | None = tag(1, "omitempty")
    """The VolumeAttributesClass the volume is being changed to."""
    status: str | None = tag(2)
    """``Pending``, ``InProgress`` or ``Infeasible``."""


class PersistentVolumeClaimStatus(K8sModel):
    """The current status of a claim."""

    phase: str | None = tag(1, "omitempty")
    """``Pending``, ``Bound`` or ``Lost``."""
    access_modes: list[str] | None = tag(2, "omitempty")
    """Access modes of the bound volume."""
    capacity: ResourceList | None = tag(3, "omitempty")
    """Actual resources of the bound volume."""
    conditions: list[RawObject] | None = tag(
        4, "omitempty", proto=PersistentVolumeClaimCondition, merge_key="type"
    )
    """Current conditions of the claim."""
    allocated_resources: ResourceList | None = tag(5, "omitempty")
    """Resources allocated to the claim (resize bookkeeping)."""
    allocated_resource_statuses: dict[str, str] | None = tag(7, "omitempty")
    """Status of resize operations per resource."""
    current_volume_attributes_class_name: str | None = tag(8, "*", "omitempty")
    """The VolumeAttributesClass the claim currently uses."""
    modify_volume_status: RawObject | None = tag(9, "*", "omitempty", proto=ModifyVolumeStatus)
    """Status of an ongoing ControllerModifyVolume operation."""


class PersistentVolumeClaim(TypeMeta):
    """A user's request for and claim to a persistent volume."""

    kinds = (Served("", "v1", "persistentvolumeclaims", True, ("pvc",), subresources=(STATUS,)),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    spec: PersistentVolumeClaimSpec | None = tag(2, "omitempty")
    """The desired characteristics of the volume."""
    status: PersistentVolumeClaimStatus | None = tag(3, "omitempty")
    """The current status of the claim. Read-only."""


class PersistentVolumeClaimTemplate(K8sModel):
    """Creates a claim for an ephemeral volume."""

    required_fields = ("spec",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Labels and annotations copied into the claim."""
    spec: PersistentVolumeClaimSpec | None = tag(2)
    """Copied unchanged into the claim."""

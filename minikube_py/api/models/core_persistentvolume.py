"""core/v1 PersistentVolume: a piece of storage in the cluster, provisioned by an administrator
or by a StorageClass's provisioner, bound to at most one claim.

The common sources (``hostPath``, ``local``, ``nfs``, ``csi``) are described in full; the rarer
in-tree drivers are free-form objects, as in ``core_volume.py``. Served as JSON only (no protobuf
field numbers yet: kubectl and the Python clients send JSON).
"""

from __future__ import annotations

from minikube_py.api.models.base import K8sModel, RawObject, ResourceList, StrMap, Time
from minikube_py.api.models.core_refs import ObjectReference
from minikube_py.api.models.core_scheduling import NodeSelector
from minikube_py.api.models.core_volume import HostPathVolumeSource, NFSVolumeSource
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class SecretReference(K8sModel):
    """A Secret by name and namespace (a volume's secret may live outside the claim's namespace)."""

    name: str | None = None
    """Name of the Secret."""
    namespace: str | None = None
    """Namespace of the Secret."""


class LocalVolumeSource(K8sModel):
    """A mounted local storage device: a disk, partition or directory of one node."""

    required_fields = ("path",)

    path: str | None = None
    """Full path to the volume on the node."""
    fs_type: str | None = None
    """Filesystem type to mount (only when ``path`` is a block device)."""


class CSIPersistentVolumeSource(K8sModel):
    """Storage managed by an external CSI volume driver."""

    required_fields = ("driver", "volumeHandle")

    driver: str | None = None
    """Name of the driver to use for this volume."""
    volume_handle: str | None = None
    """The unique volume name the driver returned on creation."""
    read_only: bool | None = None
    """Publish the volume read-only; defaults to false."""
    fs_type: str | None = None
    """Filesystem type to mount, such as ``ext4``."""
    volume_attributes: StrMap | None = None
    """Driver-specific properties of the volume."""
    controller_publish_secret_ref: SecretReference | None = None
    """Secret passed to ControllerPublishVolume and ControllerUnpublishVolume."""
    node_stage_secret_ref: SecretReference | None = None
    """Secret passed to NodeStageVolume, NodeStageVolume and NodeUnstageVolume."""
    node_publish_secret_ref: SecretReference | None = None
    """Secret passed to NodePublishVolume and NodeUnpublishVolume."""
    controller_expand_secret_ref: SecretReference | None = None
    """Secret passed to ControllerExpandVolume."""
    node_expand_secret_ref: SecretReference | None = None
    """Secret passed to NodeExpandVolume."""


class PersistentVolumeSource(K8sModel):
    """Where a persistent volume's storage is. Exactly one source must be set."""

    gce_persistent_disk: RawObject | None = None
    """Deprecated in-tree GCE persistent disk."""
    aws_elastic_block_store: RawObject | None = None
    """Deprecated in-tree AWS EBS disk."""
    host_path: HostPathVolumeSource | None = None
    """A directory of the host (single-node development and testing only)."""
    glusterfs: RawObject | None = None
    """Removed GlusterFS mount."""
    nfs: NFSVolumeSource | None = None
    """An NFS export."""
    rbd: RawObject | None = None
    """Deprecated Rados Block Device."""
    iscsi: RawObject | None = None
    """An iSCSI disk."""
    cinder: RawObject | None = None
    """Deprecated in-tree Cinder volume."""
    cephfs: RawObject | None = None
    """Deprecated Ceph filesystem mount."""
    fc: RawObject | None = None
    """A Fibre Channel disk."""
    flocker: RawObject | None = None
    """Deprecated Flocker volume."""
    flex_volume: RawObject | None = None
    """Deprecated exec-based plugin volume."""
    azure_file: RawObject | None = None
    """Deprecated in-tree Azure File mount."""
    vsphere_volume: RawObject | None = None
    """Deprecated in-tree vSphere volume."""
    quobyte: RawObject | None = None
    """Deprecated Quobyte mount."""
    azure_disk: RawObject | None = None
    """Deprecated in-tree Azure data disk."""
    photon_persistent_disk: RawObject | None = None
    """Deprecated PhotonController disk."""
    portworx_volume: RawObject | None = None
    """Deprecated in-tree Portworx volume."""
    scale_io: RawObject | None = tag(alias="scaleIO")
    """Deprecated ScaleIO volume."""
    local: LocalVolumeSource | None = None
    """A local disk, partition or directory of one node (needs ``nodeAffinity``)."""
    storageos: RawObject | None = None
    """Deprecated StorageOS volume."""
    csi: CSIPersistentVolumeSource | None = None
    """Storage from an external CSI driver."""


class VolumeNodeAffinity(K8sModel):
    """The nodes a volume can be reached from."""

    required: NodeSelector | None = None
    """The nodes the volume can be accessed from (terms ORed)."""


class PersistentVolumeSpec(PersistentVolumeSource):
    """The characteristics of a persistent volume."""

    capacity: ResourceList | None = None
    """The volume's resources; ``storage`` is its size."""
    access_modes: list[str] | None = None
    """Ways the volume can be mounted: ``ReadWriteOnce``, ``ReadOnlyMany``, ``ReadWriteMany``,
    ``ReadWriteOncePod``."""
    claim_ref: ObjectReference | None = None
    """The claim bound to this volume (set by the binder, or by an administrator to pre-bind)."""
    persistent_volume_reclaim_policy: str | None = None
    """What happens when the claim is released: ``Retain`` (default for manually created
    volumes), ``Delete`` (default for provisioned ones) or ``Recycle`` (deprecated)."""
    storage_class_name: str | None = None
    """Name of the StorageClass the volume belongs to; empty is no class."""
    mount_options: list[str] | None = None
    """Mount options, such as ``ro`` or ``soft``; not validated."""
    volume_mode: str | None = None
    """``Filesystem`` (default) or ``Block``."""
    node_affinity: VolumeNodeAffinity | None = None
    """Constraints on the nodes the volume can be accessed from."""
    volume_attributes_class_name: str | None = None
    """Name of the VolumeAttributesClass the volume belongs to."""


class PersistentVolumeStatus(K8sModel):
    """The current status of a persistent volume."""

    phase: str | None = None
    """``Pending``, ``Available``, ``Bound``, ``Released`` or ``Failed``."""
    message: str | None = None
    """Human-readable reason the volume is in this state."""
    reason: str | None = None
    """Short CamelCase reason of a failure, shown by ``kubectl get pv``."""
    last_phase_transition_time: Time | None = None
    """When the volume last changed phase."""


class PersistentVolume(TypeMeta):
    """A storage resource provisioned by an administrator or a provisioner; cluster-scoped."""

    kinds = (Served("", "v1", "persistentvolumes", False, ("pv",), subresources=(STATUS,)),)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: PersistentVolumeSpec | None = None
    """The volume's characteristics, as the administrator set them."""
    status: PersistentVolumeStatus | None = None
    """The volume's current status. Read-only."""

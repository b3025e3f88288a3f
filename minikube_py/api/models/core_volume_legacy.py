"""Deprecated and removed in-tree volume sources: typed so that their protobuf form decodes.

Upstream keeps them in core/v1 for compatibility; new clusters use CSI drivers instead. Only their
shape is described here (field validation, OpenAPI, protobuf decoding).
"""

from __future__ import annotations

from minikube_py.api.models.base import Int32, K8sModel
from minikube_py.api.models.core_refs import LocalObjectReference
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class GCEPersistentDiskVolumeSource(K8sModel):
    """A GCE persistent disk (deprecated in-tree plugin; the CSI driver replaces it)."""

    pd_name: str | None = tag(1)
    """Name of the persistent disk in the cloud provider."""
    fs_type: str | None = tag(2, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    partition: Int32 | None = tag(3, "omitempty")
    """The partition of the volume to mount; 0 mounts the volume itself."""
    read_only: bool | None = tag(4, "omitempty")
    """Mount read-only. Defaults to false."""


class AWSElasticBlockStoreVolumeSource(K8sModel):
    """An AWS EBS disk (deprecated in-tree plugin; the CSI driver replaces it)."""

    volume_id: str | None = tag(1)
    """The unique id of the volume."""
    fs_type: str | None = tag(2, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    partition: Int32 | None = tag(3, "omitempty")
    """The partition of the volume to mount; 0 mounts the volume itself."""
    read_only: bool | None = tag(4, "omitempty")
    """Mount read-only. Defaults to false."""


class GitRepoVolumeSource(K8sModel):
    """A git repository cloned into an empty directory (deprecated: clone in an init container)."""

    repository: str | None = tag(1)
    """The repository URL."""
    revision: str | None = tag(2, "omitempty")
    """The commit hash to check out."""
    directory: str | None = tag(3, "omitempty")
    """The target directory name; ``.`` is the volume directory itself."""


class ISCSIVolumeSource(K8sModel):
    """An iSCSI disk, attached to the node and exposed to the pod."""

    target_portal: str | None = tag(1)
    """The iSCSI target portal (``ip:port``)."""
    iqn: str | None = tag(2)
    """The iSCSI qualified name of the target."""
    lun: Int32 | None = tag(3)
    """The target logical unit number."""
    iscsi_interface: str | None = tag(4, "omitempty")
    """The iSCSI interface name. Defaults to ``default``."""
    fs_type: str | None = tag(5, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    read_only: bool | None = tag(6, "omitempty")
    """Mount read-only. Defaults to false."""
    portals: list[str] | None = tag(7, "omitempty")
    """More target portals (``ip:port``)."""
    chap_auth_discovery: bool | None = tag(8, "omitempty")
    """Whether iSCSI discovery CHAP authentication is used."""
    chap_auth_session: bool | None = tag(11, "omitempty")
    """Whether iSCSI session CHAP authentication is used."""
    secret_ref: LocalObjectReference | None = tag(10, "*", "omitempty")
    """The Secret with the CHAP credentials."""
    initiator_name: str | None = tag(12, "*", "omitempty")
    """A custom iSCSI initiator name."""


class GlusterfsVolumeSource(K8sModel):
    """A GlusterFS mount (removed upstream; kept for decoding)."""

    endpoints: str | None = tag(1)
    """The Endpoints naming the GlusterFS servers."""
    path: str | None = tag(2)
    """The GlusterFS volume path."""
    read_only: bool | None = tag(3, "omitempty")
    """Mount read-only. Defaults to false."""


class RBDVolumeSource(K8sModel):
    """A Rados Block Device mount (deprecated)."""

    monitors: list[str] | None = tag(1)
    """The Ceph monitors."""
    image: str | None = tag(2)
    """The Rados image name."""
    fs_type: str | None = tag(3, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    pool: str | None = tag(4, "omitempty")
    """The Rados pool. Defaults to ``rbd``."""
    user: str | None = tag(5, "omitempty")
    """The Rados user. Defaults to ``admin``."""
    keyring: str | None = tag(6, "omitempty")
    """Path of the keyring. Defaults to ``/etc/ceph/keyring``."""
    secret_ref: LocalObjectReference | None = tag(7, "*", "omitempty")
    """The Secret with the user's key (overrides keyring)."""
    read_only: bool | None = tag(8, "omitempty")
    """Mount read-only. Defaults to false."""


class FlexVolumeSource(K8sModel):
    """A volume provisioned by an exec-based plugin (deprecated)."""

    driver: str | None = tag(1)
    """Name of the driver."""
    fs_type: str | None = tag(2, "omitempty")
    """Filesystem type to mount; the default depends on the driver."""
    secret_ref: LocalObjectReference | None = tag(3, "*", "omitempty")
    """The Secret passed to the plugin scripts."""
    read_only: bool | None = tag(4, "omitempty")
    """Mount read-only. Defaults to false."""
    options: dict[str, str] | None = tag(5, "omitempty")
    """Extra driver options."""


class CinderVolumeSource(K8sModel):
    """An OpenStack Cinder volume (deprecated in-tree plugin)."""

    volume_id: str | None = tag(1)
    """The unique id of the volume."""
    fs_type: str | None = tag(2, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    read_only: bool | None = tag(3, "omitempty")
    """Mount read-only. Defaults to false."""
    secret_ref: LocalObjectReference | None = tag(4, "*", "omitempty")
    """The Secret with the OpenStack credentials."""


class CephFSVolumeSource(K8sModel):
    """A Ceph filesystem mount (deprecated)."""

    monitors: list[str] | None = tag(1)
    """The Ceph monitors."""
    path: str | None = tag(2, "omitempty")
    """The root of the mounted tree. Defaults to ``/``."""
    user: str | None = tag(3, "omitempty")
    """The Rados user. Defaults to ``admin``."""
    secret_file: str | None = tag(4, "omitempty")
    """Path of the key ring of the user."""
    secret_ref: LocalObjectReference | None = tag(5, "*", "omitempty")
    """The Secret with the user's key (overrides secretFile)."""
    read_only: bool | None = tag(6, "omitempty")
    """Mount read-only. Defaults to false."""


class FlockerVolumeSource(K8sModel):
    """A Flocker dataset (deprecated)."""

    dataset_name: str | None = tag(1, "omitempty")
    """Name of the dataset."""
    dataset_uuid: str | None = tag(2, "omitempty")
    """UUID of the dataset."""


class FCVolumeSource(K8sModel):
    """A Fibre Channel disk, attached to the node and exposed to the pod."""

    target_wwns: list[str] | None = tag(1, "omitempty", alias="targetWWNs")
    """Fibre Channel target worldwide names."""
    lun: Int32 | None = tag(2, "*", "omitempty")
    """The target logical unit number."""
    fs_type: str | None = tag(3, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    read_only: bool | None = tag(4, "omitempty")
    """Mount read-only. Defaults to false."""
    wwids: list[str] | None = tag(5, "omitempty")
    """Fibre Channel worldwide identifiers (instead of targetWWNs and lun)."""


class AzureFileVolumeSource(K8sModel):
    """An Azure File share (deprecated in-tree plugin)."""

    secret_name: str | None = tag(1)
    """Name of the Secret holding the account name and key."""
    share_name: str | None = tag(2)
    """The Azure share name."""
    read_only: bool | None = tag(3, "omitempty")
    """Mount read-only. Defaults to false."""


class VsphereVirtualDiskVolumeSource(K8sModel):
    """A vSphere volume (deprecated in-tree plugin)."""

    volume_path: str | None = tag(1)
    """Path of the vSphere volume vmdk."""
    fs_type: str | None = tag(2, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    storage_policy_name: str | None = tag(3, "omitempty")
    """The storage policy based management profile name."""
    storage_policy_id: str | None = tag(4, "omitempty")
    """The storage policy based management profile id."""


class QuobyteVolumeSource(K8sModel):
    """A Quobyte mount (deprecated)."""

    registry: str | None = tag(1)
    """Quobyte registries (``host:port``, comma-separated)."""
    volume: str | None = tag(2)
    """Name of an existing Quobyte volume."""
    read_only: bool | None = tag(3, "omitempty")
    """Mount read-only. Defaults to false."""
    user: str | None = tag(4, "omitempty")
    """The user to map volume access to. Defaults to serviceaccount."""
    group: str | None = tag(5, "omitempty")
    """The group to map volume access to."""
    tenant: str | None = tag(6, "omitempty")
    """The Quobyte tenant owning the volume."""


class AzureDiskVolumeSource(K8sModel):
    """An Azure data disk (deprecated in-tree plugin)."""

    disk_name: str | None = tag(1)
    """Name of the data disk in blob storage."""
    disk_uri: str | None = tag(2, alias="diskURI")
    """URI of the data disk in blob storage."""
    caching_mode: str | None = tag(3, "*", "omitempty")
    """Host caching mode: ``None``, ``ReadOnly`` or ``ReadWrite``."""
    fs_type: str | None = tag(4, "*", "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    read_only: bool | None = tag(5, "*", "omitempty")
    """Mount read-only. Defaults to false."""
    kind: str | None = tag(6, "*", "omitempty")
    """``Shared``, ``Dedicated`` or ``Managed`` disk."""


class PhotonPersistentDiskVolumeSource(K8sModel):
    """A PhotonController persistent disk (deprecated)."""

    pd_id: str | None = tag(1)
    """The id of the PhotonController persistent disk."""
    fs_type: str | None = tag(2, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""


class PortworxVolumeSource(K8sModel):
    """A Portworx volume (deprecated in-tree plugin)."""

    volume_id: str | None = tag(1)
    """The unique id of the volume."""
    fs_type: str | None = tag(2, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    read_only: bool | None = tag(3, "omitempty")
    """Mount read-only. Defaults to false."""


class ScaleIOVolumeSource(K8sModel):
    """A ScaleIO persistent volume (deprecated)."""

    gateway: str | None = tag(1)
    """Host address of the ScaleIO API gateway."""
    system: str | None = tag(2)
    """Name of the storage system."""
    secret_ref: LocalObjectReference | None = tag(3, "*")
    """The Secret with the ScaleIO user credentials."""
    ssl_enabled: bool | None = tag(4, "omitempty")
    """Whether SSL talks to the gateway."""
    protection_domain: str | None = tag(5, "omitempty")
    """Name of the protection domain."""
    storage_pool: str | None = tag(6, "omitempty")
    """Name of the storage pool."""
    storage_mode: str | None = tag(7, "omitempty")
    """``ThickProvisioned`` or ``ThinProvisioned``."""
    volume_name: str | None = tag(8, "omitempty")
    """Name of the volume."""
    fs_type: str | None = tag(9, "omitempty")
    """Filesystem type to mount. Defaults to ``xfs``."""
    read_only: bool | None = tag(10, "omitempty")
    """Mount read-only. Defaults to false."""


class StorageOSVolumeSource(K8sModel):
    """A StorageOS volume (deprecated)."""

    volume_name: str | None = tag(1, "omitempty")
    """Name of the volume."""
    volume_namespace: str | None = tag(2, "omitempty")
    """Scope of the volume within StorageOS. Defaults to the pod's namespace."""
    fs_type: str | None = tag(3, "omitempty")
    """Filesystem type to mount (``ext4``, ``xfs``...); implicitly ``ext4`` if unset."""
    read_only: bool | None = tag(4, "omitempty")
    """Mount read-only. Defaults to false."""
    secret_ref: LocalObjectReference | None = tag(5, "*", "omitempty")
    """The Secret with the StorageOS API credentials."""

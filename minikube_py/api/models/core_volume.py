"""core/v1 volumes: the common volume sources in full, the rarer in-tree drivers as free-form
objects (their content is not checked)."""

from __future__ import annotations

from pydantic import Field

from minikube_py.api.models.base import Int32, Int64, K8sModel, Quantity, RawObject
from minikube_py.api.models.core_claim import PersistentVolumeClaimTemplate
from minikube_py.api.models.core_refs import (
    KeyToPath,
    LocalObjectReference,
    ObjectFieldSelector,
    ResourceFieldSelector,
)
from minikube_py.api.models.meta import LabelSelector

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class HostPathVolumeSource(K8sModel):
    """A file or directory of the host mounted into the pod."""

    required_fields = ("path",)

    path: str | None = None
    """Path of the directory on the host; a symlink is followed to the real path."""
    type: str | None = None
    """What must be at the path: empty (no check), ``DirectoryOrCreate``, ``Directory``,
    ``FileOrCreate``, ``File``, ``Socket``, ``CharDevice`` or ``BlockDevice``."""


class EmptyDirVolumeSource(K8sModel):
    """An empty directory that lives as long as the pod."""

    medium: str | None = None
    """Storage medium backing the directory: empty for the node's default, or ``Memory``."""
    size_limit: Quantity | None = None
    """Total amount of local storage the directory may use."""


class SecretVolumeSource(K8sModel):
    """A Secret's keys as files."""

    secret_name: str | None = None
    """Name of the Secret in the pod's namespace."""
    items: list[KeyToPath] | None = None
    """Which keys to project, and where; all keys by default."""
    default_mode: Int32 | None = None
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""
    optional: bool | None = None
    """Whether the Secret or its keys may be missing."""


class ConfigMapVolumeSource(LocalObjectReference):
    """A ConfigMap's keys as files."""

    items: list[KeyToPath] | None = None
    """Which keys to project, and where; all keys by default."""
    default_mode: Int32 | None = None
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""
    optional: bool | None = None
    """Whether the ConfigMap or its keys may be missing."""


class PersistentVolumeClaimVolumeSource(K8sModel):
    """A reference to a PersistentVolumeClaim in the pod's namespace."""

    required_fields = ("claimName",)

    claim_name: str | None = None
    """Name of the claim."""
    read_only: bool | None = None
    """Force the volume to be mounted read-only."""


class DownwardAPIVolumeFile(K8sModel):
    """A file holding pod fields."""

    required_fields = ("path",)

    path: str | None = None
    """Relative path of the file to create."""
    field_ref: ObjectFieldSelector | None = None
    """A field of the pod: annotations, labels, name, namespace and uid."""
    resource_field_ref: ResourceFieldSelector | None = None
    """A resource of a container: limits and requests of CPU and memory."""
    mode: Int32 | None = None
    """Mode bits of this file (0000 to 0777)."""


class DownwardAPIVolumeSource(K8sModel):
    """Pod information as files."""

    items: list[DownwardAPIVolumeFile] | None = None
    """The files to create."""
    default_mode: Int32 | None = None
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""


class SecretProjection(LocalObjectReference):
    """A Secret projected into a projected volume."""

    items: list[KeyToPath] | None = None
    """Which keys to project, and where."""
    optional: bool | None = None
    """Whether the Secret or its keys may be missing."""


class ConfigMapProjection(LocalObjectReference):
    """A ConfigMap projected into a projected volume."""

    items: list[KeyToPath] | None = None
    """Which keys to project, and where."""
    optional: bool | None = None
    """Whether the ConfigMap or its keys may be missing."""


class DownwardAPIProjection(K8sModel):
    """Pod information projected into a projected volume."""

    items: list[DownwardAPIVolumeFile] | None = None
    """The files to create."""


class ServiceAccountTokenProjection(K8sModel):
    """A service account token projected into a projected volume."""

    required_fields = ("path",)

    audience: str | None = None
    """Intended audience of the token; defaults to the apiserver's identifier."""
    expiration_seconds: Int64 | None = None
    """Requested lifetime of the token; the kubelet rotates it. Defaults to one hour."""
    path: str | None = None
    """Path of the token file, relative to the mount point."""


class ClusterTrustBundleProjection(K8sModel):
    """ClusterTrustBundle certificates projected into a projected volume."""

    required_fields = ("path",)

    name: str | None = None
    """Select one bundle by name. Exclusive with ``signerName`` and ``labelSelector``."""
    signer_name: str | None = None
    """Select all bundles of this signer (with ``labelSelector``)."""
    label_selector: LabelSelector | None = None
    """Select bundles by label (with ``signerName``)."""
    optional: bool | None = None
    """Whether a missing bundle is an error."""
    path: str | None = None
    """Path of the file, relative to the volume root."""


class VolumeProjection(K8sModel):
    """One source of a projected volume. Exactly one field must be set."""

    secret: SecretProjection | None = None
    """A Secret's keys."""
    downward_api: DownwardAPIProjection | None = None
    """Pod information."""
    config_map: ConfigMapProjection | None = None
    """A ConfigMap's keys."""
    service_account_token: ServiceAccountTokenProjection | None = None
    """A service account token."""
    cluster_trust_bundle: ClusterTrustBundleProjection | None = None
    """Certificates of ClusterTrustBundles."""
    pod_certificate: RawObject | None = None
    """A key and certificate issued for the pod."""


class ProjectedVolumeSource(K8sModel):
    """Several sources projected into one directory."""

    sources: list[VolumeProjection] | None = None
    """The projected sources."""
    default_mode: Int32 | None = None
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""


class NFSVolumeSource(K8sModel):
    """An NFS mount that lasts the lifetime of the pod."""

    required_fields = ("server", "path")

    server: str | None = None
    """Host name or IP address of the NFS server."""
    path: str | None = None
    """Path exported by the NFS server."""
    read_only: bool | None = None
    """Force the export to be mounted read-only."""


class CSIVolumeSource(K8sModel):
    """Storage from an external CSI driver."""

    required_fields = ("driver",)

    driver: str | None = None
    """Name of the CSI driver handling the volume."""
    read_only: bool | None = None
    """Read-only configuration of the volume; defaults to false."""
    fs_type: str | None = None
    """Filesystem type to mount, such as ``ext4``."""
    volume_attributes: dict[str, str] | None = None
    """Driver-specific properties passed to the CSI driver."""
    node_publish_secret_ref: LocalObjectReference | None = None
    """Secret with sensitive information for the driver's publish calls."""


class EphemeralVolumeSource(K8sModel):
    """A volume backed by a claim that lives as long as the pod."""

    volume_claim_template: PersistentVolumeClaimTemplate | None = None
    """Creates the claim named ``<pod name>-<volume name>``."""


class ImageVolumeSource(K8sModel):
    """An OCI image or artifact mounted read-only."""

    reference: str | None = None
    """Image or artifact reference, like a container image name."""
    pull_policy: str | None = None
    """When the image is pulled: ``Always``, ``Never`` or ``IfNotPresent``."""


class Volume(K8sModel):
    """A named volume any container of the pod may mount. Exactly one source must be set."""

    required_fields = ("name",)

    name: str | None = None
    """Name of the volume, a DNS label unique within the pod."""
    host_path: HostPathVolumeSource | None = None
    """A file or directory of the host."""
    empty_dir: EmptyDirVolumeSource | None = None
    """A temporary directory that shares the pod's lifetime."""
    secret: SecretVolumeSource | None = None
    """A Secret's keys as files."""
    config_map: ConfigMapVolumeSource | None = None
    """A ConfigMap's keys as files."""
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None
    """A PersistentVolumeClaim in the pod's namespace."""
    downward_api: DownwardAPIVolumeSource | None = None
    """Pod information as files."""
    projected: ProjectedVolumeSource | None = None
    """Secrets, ConfigMaps, pod information and tokens in one directory."""
    nfs: NFSVolumeSource | None = None
    """An NFS export."""
    csi: CSIVolumeSource | None = None
    """Storage from a CSI driver."""
    ephemeral: EphemeralVolumeSource | None = None
    """A claim created for and deleted with the pod."""
    image: ImageVolumeSource | None = None
    """An OCI image or artifact."""
    gce_persistent_disk: RawObject | None = None
    """Deprecated in-tree GCE persistent disk."""
    aws_elastic_block_store: RawObject | None = None
    """Deprecated in-tree AWS EBS disk."""
    git_repo: RawObject | None = None
    """Deprecated git repository checkout."""
    iscsi: RawObject | None = None
    """An iSCSI disk."""
    glusterfs: RawObject | None = None
    """Removed GlusterFS mount."""
    rbd: RawObject | None = None
    """Deprecated Rados Block Device."""
    flex_volume: RawObject | None = None
    """Deprecated exec-based plugin volume."""
    cinder: RawObject | None = None
    """Deprecated in-tree Cinder volume."""
    cephfs: RawObject | None = None
    """Deprecated Ceph filesystem mount."""
    flocker: RawObject | None = None
    """Deprecated Flocker volume."""
    fc: RawObject | None = None
    """A Fibre Channel disk."""
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
    scale_io: RawObject | None = Field(None, alias="scaleIO")
    """Deprecated ScaleIO volume."""
    storageos: RawObject | None = None
    """Deprecated StorageOS volume."""


class TopologySelectorLabelRequirement(K8sModel):
    """A topology label key and the values it may take."""

    required_fields = ("key", "values")

    key: str | None = None
    """The label key that the selector applies to."""
    values: list[str] | None = None
    """The values the key may take; one must match."""


class TopologySelectorTerm(K8sModel):
    """Topology labels a volume may be provisioned in; the requirements are ANDed."""

    match_label_expressions: list[TopologySelectorLabelRequirement] | None = None
    """A list of topology selector requirements by labels."""

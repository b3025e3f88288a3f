"""core/v1 volumes: the common volume sources in full, the rarer in-tree drivers as free-form
objects (their content is not checked)."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, Int64, K8sModel, Quantity, RawObject
from minikube_py.api.models.core_claim import PersistentVolumeClaimTemplate
from minikube_py.api.models.core_refs import (
    KeyToPath,
    LocalObjectReference,
    ObjectFieldSelector,
    ResourceFieldSelector,
)
from minikube_py.api.models.core_volume_legacy import (
    AWSElasticBlockStoreVolumeSource,
    AzureDiskVolumeSource,
    AzureFileVolumeSource,
    CephFSVolumeSource,
    CinderVolumeSource,
    FCVolumeSource,
    FlexVolumeSource,
    FlockerVolumeSource,
    GCEPersistentDiskVolumeSource,
    GitRepoVolumeSource,
    GlusterfsVolumeSource,
    ISCSIVolumeSource,
    PhotonPersistentDiskVolumeSource,
    PortworxVolumeSource,
    QuobyteVolumeSource,
    RBDVolumeSource,
    ScaleIOVolumeSource,
    StorageOSVolumeSource,
    VsphereVirtualDiskVolumeSource,
)
from minikube_py.api.models.meta import LabelSelector
from minikube_py.api.models.tags import tag

OPENAPI_PACKAGE = "io.k8s.api.core.v1"


class HostPathVolumeSource(K8sModel):
    """A file or directory of the host mounted into the pod."""

    required_fields = ("path",)

    path: str | None = tag(1)
    """Path of the directory on the host; a symlink is followed to the real path."""
    type: str | None = tag(2, "*", "omitempty")
    """What must be at the path: empty (no check), ``DirectoryOrCreate``, ``Directory``,
    ``FileOrCreate``, ``File``, ``Socket``, ``CharDevice`` or ``BlockDevice``."""


class EmptyDirVolumeSource(K8sModel):
    """An empty directory that lives as long as the pod."""

    medium: str | None = tag(1, "omitempty")
    """Storage medium backing the directory: empty for the node's default, or ``Memory``."""
    size_limit: Quantity | None = tag(2, "*", "omitempty")
    """Total amount of local storage the directory may use."""


class SecretVolumeSource(K8sModel):
    """A Secret's keys as files."""

    secret_name: str | None = tag(1, "omitempty")
    """Name of the Secret in the pod's namespace."""
    items: list[KeyToPath] | None = tag(2, "omitempty")
    """Which keys to project, and where; all keys by default."""
    default_mode: Int32 | None = tag(3, "*", "omitempty")
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""
    optional: bool | None = tag(4, "*", "omitempty")
    """Whether the Secret or its keys may be missing."""


class ConfigMapVolumeSource(LocalObjectReference, inline=1):
    """A ConfigMap's keys as files."""

    items: list[KeyToPath] | None = tag(2, "omitempty")
    """Which keys to project, and where; all keys by default."""
    default_mode: Int32 | None = tag(3, "*", "omitempty")
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""
    optional: bool | None = tag(4, "*", "omitempty")
    """Whether the ConfigMap or its keys may be missing."""


class PersistentVolumeClaimVolumeSource(K8sModel):
    """A reference to a PersistentVolumeClaim in the pod's namespace."""

    required_fields = ("claimName",)

    claim_name: str | None = tag(1)
    """Name of the claim."""
    read_only: bool | None = tag(2, "omitempty")
    """Force the volume to be mounted read-only."""


class DownwardAPIVolumeFile(K8sModel):
    """A file holding pod fields."""

    required_fields = ("path",)

    path: str | None = tag(1)
    """Relative path of the file to create."""
    field_ref: ObjectFieldSelector | None = tag(2, "*", "omitempty")
    """A field of the pod: annotations, labels, name, namespace and uid."""
    resource_field_ref: ResourceFieldSelector | None = tag(3, "*", "omitempty")
    """A resource of a container: limits and requests of CPU and memory."""
    mode: Int32 | None = tag(4, "*", "omitempty")
    """Mode bits of this file (0000 to 0777)."""


class DownwardAPIVolumeSource(K8sModel):
    """Pod information as files."""

    items: list[DownwardAPIVolumeFile] | None = tag(1, "omitempty")
    """The files to create."""
    default_mode: Int32 | None = tag(2, "*", "omitempty")
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""


class SecretProjection(LocalObjectReference, inline=1):
    """A Secret projected into a projected volume."""

    items: list[KeyToPath] | None = tag(2, "omitempty")
    """Which keys to project, and where."""
    optional: bool | None = tag(4, "*", "omitempty")
    """Whether the Secret or its keys may be missing."""


class ConfigMapProjection(LocalObjectReference, inline=1):
    """A ConfigMap projected into a projected volume."""

    items: list[KeyToPath] | None = tag(2, "omitempty")
    """Which keys to project, and where."""
    optional: bool | None = tag(4, "*", "omitempty")
    """Whether the ConfigMap or its keys may be missing."""


class DownwardAPIProjection(K8sModel):
    """Pod information projected into a projected volume."""

    items: list[DownwardAPIVolumeFile] | None = tag(1, "omitempty")
    """The files to create."""


class ServiceAccountTokenProjection(K8sModel):
    """A service account token projected into a projected volume."""

    required_fields = ("path",)

    audience: str | None = tag(1, "omitempty")
    """Intended audience of the token; defaults to the apiserver's identifier."""
    expiration_seconds: Int64 | None = tag(2, "*", "omitempty")
    """Requested lifetime of the token; the kubelet rotates it. Defaults to one hour."""
    path: str | None = tag(3)
    """Path of the token file, relative to the mount point."""


class ClusterTrustBundleProjection(K8sModel):
    """ClusterTrustBundle certificates projected into a projected volume."""

    required_fields = ("path",)

    name: str | None = tag(1, "*", "omitempty")
    """Select one bundle by name. Exclusive with ``signerName`` and ``labelSelector``."""
    signer_name: str | None = tag(2, "*", "omitempty")
    """Select all bundles of this signer (with ``labelSelector``)."""
    label_selector: LabelSelector | None = tag(3, "*", "omitempty")
    """Select bundles by label (with ``signerName``)."""
    optional: bool | None = tag(5, "*", "omitempty")
    """Whether a missing bundle is an error."""
    path: str | None = tag(4)
    """Path of the file, relative to the volume root."""


class PodCertificateProjection(K8sModel):
    """A private key and X.509 certificate chain the kubelet requests from a signer through a
    PodCertificateRequest."""

    signer_name: str | None = tag(1, "omitempty")
    """The signer to ask for the certificate."""
    key_type: str | None = tag(2, "omitempty")
    """The key to generate: ``RSA3072``, ``RSA4096``, ``ECDSAP256``, ``ECDSAP384``, ``ECDSAP521``
    or ``ED25519``."""
    max_expiration_seconds: Int32 | None = tag(3, "*", "omitempty")
    """Longest lifetime the pod asks for; the signer may issue a shorter one. Defaults to 24 hours."""
    credential_bundle_path: str | None = tag(4, "omitempty")
    """Path of a file holding the key and the chain as PEM blocks."""
    key_path: str | None = tag(5, "omitempty")
    """Path of a file holding just the private key."""
    certificate_chain_path: str | None = tag(6, "omitempty")
    """Path of a file holding just the certificate chain."""
    user_annotations: dict[str, str] | None = tag(7, "omitempty")
    """Annotations copied to the PodCertificateRequest for the signer."""


class VolumeProjection(K8sModel):
    """One source of a projected volume. Exactly one field must be set."""

    secret: SecretProjection | None = tag(1, "*", "omitempty")
    """A Secret's keys."""
    downward_api: DownwardAPIProjection | None = tag(2, "*", "omitempty")
    """Pod information."""
    config_map: ConfigMapProjection | None = tag(3, "*", "omitempty")
    """A ConfigMap's keys."""
    service_account_token: ServiceAccountTokenProjection | None = tag(4, "*", "omitempty")
    """A service account token."""
    cluster_trust_bundle: ClusterTrustBundleProjection | None = tag(5, "*", "omitempty")
    """Certificates of ClusterTrustBundles."""
    pod_certificate: RawObject | None = tag(6, "*", "omitempty", proto=PodCertificateProjection)
    """A key and certificate issued for the pod."""


class ProjectedVolumeSource(K8sModel):
    """Several sources projected into one directory."""

    sources: list[VolumeProjection] | None = tag(1)
    """The projected sources."""
    default_mode: Int32 | None = tag(2, "*", "omitempty")
    """Mode bits of the created files (0000 to 0777); defaults to 0644."""


class NFSVolumeSource(K8sModel):
    """An NFS mount that lasts the lifetime of the pod."""

    required_fields = ("server", "path")

    server: str | None = tag(1)
    """Host name or IP address of the NFS server."""
    path: str | None = tag(2)
    """Path exported by the NFS server."""
    read_only: bool | None = tag(3, "omitempty")
    """Force the export to be mounted read-only."""


class CSIVolumeSource(K8sModel):
    """Storage from an external CSI driver."""

    required_fields = ("driver",)

    driver: str | None = tag(1)
    """Name of the CSI driver handling the volume."""
    read_only: bool | None = tag(2, "*", "omitempty")
    """Read-only configuration of the volume; defaults to false."""
    fs_type: str | None = tag(3, "*", "omitempty")
    """Filesystem type to mount, such as ``ext4``."""
    volume_attributes: dict[str, str] | None = tag(4, "omitempty")
    """Driver-specific properties passed to the CSI driver."""
    node_publish_secret_ref: LocalObjectReference | None = tag(5, "*", "omitempty")
    """Secret with sensitive information for the driver's publish calls."""


class EphemeralVolumeSource(K8sModel):
    """A volume backed by a claim that lives as long as the pod."""

    volume_claim_template: PersistentVolumeClaimTemplate | None = tag(1, "*", "omitempty")
    """Creates the claim named ``<pod name>-<volume name>``."""


class ImageVolumeSource(K8sModel):
    """An OCI image or artifact mounted read-only."""

    reference: str | None = tag(1, "omitempty")
    """Image or artifact reference, like a container image name."""
    pull_policy: str | None = tag(2, "omitempty")
    """When the image is pulled: ``Always``, ``Never`` or ``IfNotPresent``."""


class VolumeSource(K8sModel):
    """Where a volume's content comes from. Exactly one source must be set."""

    host_path: HostPathVolumeSource | None = tag(1, "*", "omitempty")
    """A file or directory of the host."""
    empty_dir: EmptyDirVolumeSource | None = tag(2, "*", "omitempty")
    """A temporary directory that shares the pod's lifetime."""
    gce_persistent_disk: RawObject | None = tag(3, "*", "omitempty", proto=GCEPersistentDiskVolumeSource)
    """Deprecated in-tree GCE persistent disk."""
    aws_elastic_block_store: RawObject | None = tag(
        4, "*", "omitempty", proto=AWSElasticBlockStoreVolumeSource
    )
    """Deprecated in-tree AWS EBS disk."""
    git_repo: RawObject | None = tag(5, "*", "omitempty", proto=GitRepoVolumeSource)
    """Deprecated git repository checkout."""
    secret: SecretVolumeSource | None = tag(6, "*", "omitempty")
    """A Secret's keys as files."""
    nfs: NFSVolumeSource | None = tag(7, "*", "omitempty")
    """An NFS export."""
    iscsi: RawObject | None = tag(8, "*", "omitempty", proto=ISCSIVolumeSource)
    """An iSCSI disk."""
    glusterfs: RawObject | None = tag(9, "*", "omitempty", proto=GlusterfsVolumeSource)
    """Removed GlusterFS mount."""
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = tag(10, "*", "omitempty")
    """A PersistentVolumeClaim in the pod's namespace."""
    rbd: RawObject | None = tag(11, "*", "omitempty", proto=RBDVolumeSource)
    """Deprecated Rados Block Device."""
    flex_volume: RawObject | None = tag(12, "*", "omitempty", proto=FlexVolumeSource)
    """Deprecated exec-based plugin volume."""
    cinder: RawObject | None = tag(13, "*", "omitempty", proto=CinderVolumeSource)
    """Deprecated in-tree Cinder volume."""
    cephfs: RawObject | None = tag(14, "*", "omitempty", proto=CephFSVolumeSource)
    """Deprecated Ceph filesystem mount."""
    flocker: RawObject | None = tag(15, "*", "omitempty", proto=FlockerVolumeSource)
    """Deprecated Flocker volume."""
    downward_api: DownwardAPIVolumeSource | None = tag(16, "*", "omitempty")
    """Pod information as files."""
    fc: RawObject | None = tag(17, "*", "omitempty", proto=FCVolumeSource)
    """A Fibre Channel disk."""
    azure_file: RawObject | None = tag(18, "*", "omitempty", proto=AzureFileVolumeSource)
    """Deprecated in-tree Azure File mount."""
    config_map: ConfigMapVolumeSource | None = tag(19, "*", "omitempty")
    """A ConfigMap's keys as files."""
    vsphere_volume: RawObject | None = tag(20, "*", "omitempty", proto=VsphereVirtualDiskVolumeSource)
    """Deprecated in-tree vSphere volume."""
    quobyte: RawObject | None = tag(21, "*", "omitempty", proto=QuobyteVolumeSource)
    """Deprecated Quobyte mount."""
    azure_disk: RawObject | None = tag(22, "*", "omitempty", proto=AzureDiskVolumeSource)
    """Deprecated in-tree Azure data disk."""
    photon_persistent_disk: RawObject | None = tag(
        23, "*", "omitempty", proto=PhotonPersistentDiskVolumeSource
    )
    """Deprecated PhotonController disk."""
    projected: ProjectedVolumeSource | None = tag(26, "*", "omitempty")
    """Secrets, ConfigMaps, pod information and tokens in one directory."""
    portworx_volume: RawObject | None = tag(24, "*", "omitempty", proto=PortworxVolumeSource)
    """Deprecated in-tree Portworx volume."""
    scale_io: RawObject | None = tag(25, "*", "omitempty", alias="scaleIO", proto=ScaleIOVolumeSource)
    """Deprecated ScaleIO volume."""
    storageos: RawObject | None = tag(27, "*", "omitempty", proto=StorageOSVolumeSource)
    """Deprecated StorageOS volume."""
    csi: CSIVolumeSource | None = tag(28, "*", "omitempty")
    """Storage from a CSI driver."""
    ephemeral: EphemeralVolumeSource | None = tag(29, "*", "omitempty")
    """A claim created for and deleted with the pod."""
    image: ImageVolumeSource | None = tag(30, "*", "omitempty")
    """An OCI image or artifact."""


class Volume(VolumeSource, inline=2):
    """A named volume any container of the pod may mount. Exactly one source must be set."""

    required_fields = ("name",)

    name: str | None = tag(1)
    """Name of the volume, a DNS label unique within the pod."""


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

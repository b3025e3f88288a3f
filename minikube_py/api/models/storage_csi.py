"""storage.k8s.io/v1 CSI objects: CSIDriver (how Kubernetes talks to a CSI driver), CSINode (the
drivers registered on a node) and VolumeAttachment (a request to attach a volume to a node).
Served as API only: no CSI driver or attach/detach controller runs here."""

from __future__ import annotations

from minikube_py.api.models.base import Int32, K8sModel, RawObject, StrMap, Time
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import STATUS, Served

OPENAPI_PACKAGE = "io.k8s.api.storage.v1"


class CSIDriverSpec(K8sModel):
    """What the driver needs from Kubernetes."""

    attach_required: bool | None = None
    """Whether the driver needs an attach operation (a VolumeAttachment); defaults to true."""
    pod_info_on_mount: bool | None = None
    """Whether the driver gets pod information (name, namespace, uid) at mount; defaults to false."""
    volume_lifecycle_modes: list[str] | None = None
    """``Persistent`` (the default) and/or ``Ephemeral``."""
    storage_capacity: bool | None = None
    """Whether the scheduler considers the driver's CSIStorageCapacity objects; defaults to false."""
    fs_group_policy: str | None = None
    """``ReadWriteOnceWithFSType`` (the default), ``File`` or ``None``."""
    token_requests: list[RawObject] | None = None
    """Tokens passed to the driver's NodePublishVolume, each ``{audience, expirationSeconds}``
    (free-form here: the protobuf message registry already has an ``authentication.k8s.io``
    ``TokenRequest``, and message names are the models' class names)."""
    requires_republish: bool | None = None
    """Whether NodePublishVolume is called periodically; defaults to false."""
    se_linux_mount: bool | None = None
    """Whether the driver supports the ``-o context`` mount option; defaults to false."""


class CSIDriver(TypeMeta):
    """A CSI volume driver deployed on the cluster; cluster-scoped, named as the driver."""

    kinds = (Served("storage.k8s.io", "v1", "csidrivers", False),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = None
    """Standard object metadata; the name is the driver's name."""
    spec: CSIDriverSpec | None = None
    """The driver's specification."""


class VolumeNodeResources(K8sModel):
    """Limits on the volumes a driver may attach to a node."""

    count: Int32 | None = None
    """The maximum number of unique volumes the driver manages on the node."""


class CSINodeDriver(K8sModel):
    """A CSI driver installed on a node."""

    required_fields = ("name", "nodeID")

    name: str | None = None
    """The driver's name."""
    node_id: str | None = tag(alias="nodeID")
    """The node's ID as the driver knows it."""
    topology_keys: list[str] | None = None
    """The node labels the driver reports topology with."""
    allocatable: VolumeNodeResources | None = None
    """The volumes the driver can attach to the node."""


class CSINodeSpec(K8sModel):
    """The drivers on the node."""

    required_fields = ("drivers",)

    drivers: list[CSINodeDriver] | None = None
    """The CSI drivers registered on the node."""


class CSINode(TypeMeta):
    """The CSI drivers installed on a node; cluster-scoped, named as the node."""

    kinds = (Served("storage.k8s.io", "v1", "csinodes", False),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = None
    """Standard object metadata; the name is the node's name."""
    spec: CSINodeSpec | None = None
    """The drivers on the node."""


class VolumeAttachmentSource(K8sModel):
    """The volume to attach: exactly one of a PersistentVolume name or an inline volume spec."""

    persistent_volume_name: str | None = None
    """Name of the PersistentVolume to attach."""
    inline_volume_spec: RawObject | None = None
    """A migrated in-tree inline volume, as a PersistentVolumeSpec."""


class VolumeAttachmentSpec(K8sModel):
    """What to attach where."""

    required_fields = ("attacher", "source", "nodeName")

    attacher: str | None = None
    """The name of the volume driver that must handle the request."""
    source: VolumeAttachmentSource | None = None
    """The volume to attach."""
    node_name: str | None = None
    """The node to attach the volume to."""


class VolumeError(K8sModel):
    """An error of an attach or detach operation."""

    time: Time | None = None
    """When the error happened."""
    message: str | None = None
    """What went wrong."""
    error_code: Int32 | None = None
    """The numeric gRPC code of the error."""


class VolumeAttachmentStatus(K8sModel):
    """The state of the attach or detach operation."""

    required_fields = ("attached",)

    attached: bool | None = None
    """Whether the volume is attached."""
    attachment_metadata: StrMap | None = None
    """What the attach operation returned, passed on to mounts."""
    attach_error: VolumeError | None = None
    """The last attach error."""
    detach_error: VolumeError | None = None
    """The last detach error."""


class VolumeAttachment(TypeMeta):
    """A request to attach a volume to a node (and the answer, in ``status``); cluster-scoped."""

    kinds = (Served("storage.k8s.io", "v1", "volumeattachments", False, subresources=(STATUS,)),)

    required_fields = ("spec",)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    spec: VolumeAttachmentSpec | None = None
    """The requested attachment."""
    status: VolumeAttachmentStatus | None = None
    """The attachment's state, written by the attacher."""

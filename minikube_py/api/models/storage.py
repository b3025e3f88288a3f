"""storage.k8s.io/v1: StorageClass, the provisioner and parameters of dynamically provisioned
persistent volumes."""

from __future__ import annotations

from typing import Annotated

from minikube_py.api.models.base import OneOf, StrMap
from minikube_py.api.models.core_volume import TopologySelectorTerm
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.storage.v1"

ReclaimPolicy = Annotated[str, OneOf("Delete", "Recycle", "Retain")]
VolumeBindingMode = Annotated[str, OneOf("Immediate", "WaitForFirstConsumer")]


class StorageClass(TypeMeta):
    """A class of storage: which provisioner creates persistent volumes of it, and how. Cluster
    scoped; provisioner, parameters and reclaim policy cannot change once created."""

    kinds = (Served("storage.k8s.io", "v1", "storageclasses", False, ("sc",)),)

    required_fields = ("provisioner",)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    provisioner: str | None = None
    """The type of the provisioner."""
    parameters: StrMap | None = None
    """Parameters for the provisioner that creates volumes of this class."""
    reclaim_policy: ReclaimPolicy | None = None
    """What happens to dynamically provisioned volumes of this class once released: ``Delete``
    (the default) or ``Retain``."""
    mount_options: list[str] | None = None
    """Mount options of the dynamically provisioned volumes, such as ``ro`` or ``soft``; not
    validated, a mount fails if one is invalid."""
    allow_volume_expansion: bool | None = None
    """Whether the class allows volumes to be expanded."""
    volume_binding_mode: VolumeBindingMode | None = None
    """When claims are provisioned and bound: ``Immediate`` (the default) or
    ``WaitForFirstConsumer``."""
    allowed_topologies: list[TopologySelectorTerm] | None = None
    """Topologies where volumes may be provisioned; empty means any. Each volume plugin defines
    its own topology keys."""

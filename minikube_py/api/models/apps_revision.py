"""apps/v1 ControllerRevision: an immutable snapshot of a controller's state (DaemonSets and
StatefulSets keep their pod template history in them; ``kubectl rollout history/undo``)."""

from __future__ import annotations

from minikube_py.api.models.base import Int64, RawObject
from minikube_py.api.models.meta import ObjectMeta, TypeMeta
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.apps.v1"


class ControllerRevision(TypeMeta):
    """An immutable snapshot of state data. Clients are responsible for serializing and
    deserializing the objects that contain their internal state; once created, the data cannot
    change, only the revision number."""

    kinds = (Served("apps", "v1", "controllerrevisions", True),)

    required_fields = ("revision",)

    metadata: ObjectMeta | None = None
    """Standard object metadata."""
    data: RawObject | None = None
    """The serialized representation of the state (a patch of the owner's template)."""
    revision: Int64 | None = None
    """The revision number of the state represented by ``data``."""

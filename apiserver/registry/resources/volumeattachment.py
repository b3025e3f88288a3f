"""VolumeAttachments (storage.k8s.io/v1, cluster-scoped, ``/status`` written by the attacher):
validation (``ValidateVolumeAttachment``: an attacher, exactly one source, a valid node name;
the spec fixed once created) and the ``kubectl get volumeattachments`` row."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import IMMUTABLE, to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, forbidden, invalid, required
from minikube_py.api.models import storage_csi
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_subdomain

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Attacher", "string", "name", "The name of the volume driver that must handle this request.", 0),
    ("PV", "string", "", "persistentVolumeName represents the name of the persistent volume to attach.", 0),
    ("Node", "string", "", "nodeName represents the node that the volume should be attached to.", 0),
    ("Attached", "boolean", "", "attached indicates the volume is successfully attached.", 0),
    AGE_COLUMN,
]
EXACTLY_ONE = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"


def _validate_source(source: Object) -> list[FieldError]:
    name, inline = source.get("persistentVolumeName"), source.get("inlineVolumeSpec")
    if name is None and inline is None:
        return [required("spec.source", EXACTLY_ONE)]
    if name is not None and inline is not None:
        return [forbidden("spec.source", EXACTLY_ONE)]
    if name is not None and not name:
        return [required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName")]
    return []


def validate_volume_attachment(obj: Object) -> list[FieldError]:
    """``ValidateVolumeAttachment``'s spec checks."""
    spec = obj.get("spec") or {}
    errs = [] if spec.get("attacher") else [required("spec.attacher", "attacher name is required")]
    errs += _validate_source(spec.get("source") or {})
    node = str(spec.get("nodeName") or "")
    return errs + [invalid("spec.nodeName", node, msg) for msg in is_dns1123_subdomain(node)]


class VolumeAttachmentStrategy(Strategy):
    kinds = (storage_csi.VolumeAttachment,)
    status_field = "status"
    columns = COLUMNS

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_volume_attachment(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        errs = validate_volume_attachment(new)
        if new.get("spec") != old.get("spec"):
            errs.append(invalid("spec", new.get("spec"), IMMUTABLE))
        return to_causes(errs)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        return [
            meta["name"],
            spec.get("attacher", ""),
            (spec.get("source") or {}).get("persistentVolumeName") or "",
            spec.get("nodeName", ""),
            bool(status.get("attached")),
            age(meta.get("creationTimestamp"), now),
        ]

"""PersistentVolumes (core/v1, cluster-scoped, ``pv``): upstream's defaults (reclaim policy
``Retain``, volume mode ``Filesystem``), a new volume's status (``Pending``, stamped with its
phase transition time, as ``PersistentVolumeLastPhaseTransitionTime`` does), validation and the
``kubectl get pv`` row."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.resources.volumevalidation import validate_volume, validate_volume_update
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import core_persistentvolume
from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.api.unstructured import Object

#: the annotation that named a class before ``storageClassName`` existed (still honoured)
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
_MODE_ABBREVIATIONS = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)
COLUMNS: list[Column] = [
    NAME_COLUMN,
    (
        "Capacity",
        "string",
        "",
        "capacity is the description of the persistent volume's resources and capacity.",
        0,
    ),
    ("Access Modes", "string", "", "accessModes contains all ways the volume can be mounted.", 0),
    (
        "Reclaim Policy",
        "string",
        "",
        "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released "
        "from its claim.",
        0,
    ),
    (
        "Status",
        "string",
        "",
        "phase indicates if a volume is available, bound to a claim, or released by a claim.",
        0,
    ),
    (
        "Claim",
        "string",
        "",
        "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.",
        0,
    ),
    ("StorageClass", "string", "", "StorageClass of the pv", 0),
    ("VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0),
    ("Reason", "string", "", "reason is a brief CamelCase string that describes any failure.", 0),
    AGE_COLUMN,
    (
        "VolumeMode",
        "string",
        "",
        "volumeMode defines if a volume is intended to be used with a formatted filesystem or to "
        "remain in raw block state.",
        1,
    ),
]


def access_modes_string(modes: Any) -> str:
    """``GetAccessModesAsString``: ``RWO,ROX,RWX,RWOP`` in that order, each once."""
    present = set(modes) if isinstance(modes, list) else set()
    return ",".join(short for mode, short in _MODE_ABBREVIATIONS if mode in present)


def quantity_string(value: Any) -> str:
    """A quantity as Go's ``Quantity.String()`` prints it (canonical); ``0`` when unset."""
    if value is None:
        return "0"
    try:
        return parse_quantity(str(value)).canonical()
    except QuantityError:
        return str(value)


def class_name(obj: Object) -> str:
    """``GetPersistentVolume(Claim)Class``: the beta annotation first, then ``storageClassName``."""
    annotations = obj["metadata"].get("annotations") or {}
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return str(annotations[BETA_STORAGE_CLASS_ANNOTATION])
    return str((obj.get("spec") or {}).get("storageClassName") or "")


def default_volume(obj: Object) -> None:
    """``SetDefaults_PersistentVolume``: ``Retain``, ``Filesystem``, phase ``Pending``."""
    spec = obj.setdefault("spec", {})
    spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
    spec.setdefault("volumeMode", "Filesystem")
    status = obj.get("status")
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"


class PersistentVolumeStrategy(Strategy):
    kinds = (core_persistentvolume.PersistentVolume,)
    status_field = "status"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_volume(obj)

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {"phase": "Pending", "lastPhaseTransitionTime": now_rfc3339()}

    def prepare_for_status_update(self, new: Object, old: Object) -> Object:
        merged = super().prepare_for_status_update(new, old)
        status, old_status = merged.setdefault("status", {}), old.get("status") or {}
        status.setdefault("phase", "Pending")
        stamped, old_stamp = status.get("lastPhaseTransitionTime"), old_status.get("lastPhaseTransitionTime")
        if status.get("phase") == old_status.get("phase"):
            if stamped is None and old_stamp is not None:
                status["lastPhaseTransitionTime"] = old_stamp  # phase unchanged: keep its time
        elif stamped is None or stamped == old_stamp:
            status["lastPhaseTransitionTime"] = now_rfc3339()  # a new phase the client did not stamp
        return merged

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_volume(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_volume(new) + validate_volume_update(new, old))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        claim = spec.get("claimRef")
        claim_cell = (
            f"{claim.get('namespace', '')}/{claim.get('name', '')}" if isinstance(claim, dict) else ""
        )
        phase = "Terminating" if meta.get("deletionTimestamp") else status.get("phase", "")
        return [
            meta["name"],
            quantity_string((spec.get("capacity") or {}).get("storage")),
            access_modes_string(spec.get("accessModes")),
            spec.get("persistentVolumeReclaimPolicy", ""),
            phase,
            claim_cell,
            class_name(obj),
            spec.get("volumeAttributesClassName") or "<unset>",
            status.get("reason", ""),
            age(meta.get("creationTimestamp"), now),
            spec.get("volumeMode") or "<unset>",
        ]

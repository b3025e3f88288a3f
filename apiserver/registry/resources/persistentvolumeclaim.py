"""PersistentVolumeClaims (core/v1, ``pvc``): upstream's defaults (volume mode ``Filesystem``,
phase ``Pending``), validation and the ``kubectl get pvc`` row."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.claimvalidation import (
    validate_claim,
    validate_claim_status_update,
    validate_claim_update,
)
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.persistentvolume import access_modes_string, class_name, quantity_string
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import core_claim
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Status", "string", "", "phase represents the current phase of PersistentVolumeClaim.", 0),
    (
        "Volume",
        "string",
        "",
        "volumeName is the binding reference to the PersistentVolume backing this claim.",
        0,
    ),
    ("Capacity", "string", "", "capacity represents the actual resources of the underlying volume.", 0),
    (
        "Access Modes",
        "string",
        "",
        "accessModes contains the actual access modes the volume backing the PVC has.",
        0,
    ),
    ("StorageClass", "string", "", "StorageClass of the pvc", 0),
    ("VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0),
    AGE_COLUMN,
    ("VolumeMode", "string", "", "volumeMode defines what type of volume is required by the claim.", 1),
]


def default_claim(obj: Object) -> None:
    """``SetDefaults_PersistentVolumeClaim(Spec)``: ``Filesystem``, phase ``Pending``."""
    obj.setdefault("spec", {}).setdefault("volumeMode", "Filesystem")
    status = obj.get("status")
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"


class PersistentVolumeClaimStrategy(Strategy):
    kinds = (core_claim.PersistentVolumeClaim,)
    status_field = "status"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_claim(obj)

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {"phase": "Pending"}  # upstream clears the status; reading it defaults the phase

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_claim(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        """Main resource and ``/status`` alike (a status update keeps the old spec)."""
        errs = validate_claim(new) + validate_claim_update(new, old) + validate_claim_status_update(new)
        return to_causes(errs)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
        phase = "Terminating" if meta.get("deletionTimestamp") else status.get("phase", "")
        volume = spec.get("volumeName") or ""
        capacity = quantity_string((status.get("capacity") or {}).get("storage")) if volume else ""
        modes = access_modes_string(status.get("accessModes")) if volume else ""
        return [
            meta["name"],
            phase,
            volume,
            capacity,
            modes,
            class_name(obj),
            spec.get("volumeAttributesClassName") or "<unset>",
            age(meta.get("creationTimestamp"), now),
            spec.get("volumeMode") or "<unset>",
        ]

"""Validation of PersistentVolumeClaims with upstream's messages (``pkg/apis/core/validation``:
``ValidatePersistentVolumeClaim``, ``...Update``, ``...StatusUpdate``).

Deviations: the VolumeAttributesClass feature counts as enabled (upstream v1.32 has it off by
default, and then refuses any change of ``volumeAttributesClassName``); the "spec is immutable"
message ends without upstream's go-cmp diff of the two specs."""

from __future__ import annotations

import copy
from typing import Any

from apiserver.registry.resources.podvalidation import IMMUTABLE, validate_label_selector
from apiserver.registry.resources.volumevalidation import (
    quantity_of,
    validate_access_modes,
    validate_class_name,
    validate_positive_quantity,
    validate_volume_mode,
)
from minikube_py.api.field_errors import FieldError, forbidden, invalid, required
from minikube_py.api.unstructured import Object

BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
SPEC_IMMUTABLE = " ".join(
    (
        "spec is immutable after creation except resources.requests and",
        "volumeAttributesClassName for bound claims",
    )
)


def validate_claim_spec(spec: Object, path: str) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimSpec``: access modes, selector, a positive storage
    request, the class names and the volume mode."""
    errs = validate_access_modes(
        spec.get("accessModes"), f"{path}.accessModes", "at least 1 access mode is required"
    )
    if spec.get("selector") is not None:
        errs += validate_label_selector(spec.get("selector"), f"{path}.selector")
    requests = (spec.get("resources") or {}).get("requests") or {}
    at = f"{path}.resources[storage]"
    if "storage" not in requests:
        errs.append(required(at))
    else:
        errs += validate_positive_quantity(requests["storage"], at)
    errs += validate_class_name(spec.get("storageClassName"), f"{path}.storageClassName")
    errs += validate_volume_mode(spec.get("volumeMode"), f"{path}.volumeMode")
    return errs + validate_class_name(
        spec.get("volumeAttributesClassName"), f"{path}.volumeAttributesClassName"
    )


def validate_claim(obj: Object) -> list[FieldError]:
    """``ValidatePersistentVolumeClaim``."""
    return validate_claim_spec(obj.get("spec") or {}, "spec")


def _annotation(obj: Object) -> str | None:
    value = (obj["metadata"].get("annotations") or {}).get(BETA_CLASS_ANNOTATION)
    return None if value is None else str(value)


def _class_change_allowed(new: Object, old: Object) -> bool:
    """Upstream's two upgrade paths of ``storageClassName``: from the beta annotation, and from
    unset (the DefaultStorageClass controller's retroactive assignment)."""
    old_name, new_name = (
        (old.get("spec") or {}).get("storageClassName"),
        (new.get("spec") or {}).get("storageClassName"),
    )
    old_annotation, new_annotation = _annotation(old), _annotation(new)
    if old_name is not None or new_name is None:
        return False
    from_annotation = old_annotation is not None and new_name == old_annotation
    from_annotation = from_annotation and (new_annotation is None or new_annotation == old_annotation)
    return from_annotation or old_annotation is None or new_name == old_annotation


def _copy_field(source: Object, target: Object, key: str) -> None:
    if key in source:
        target[key] = source[key]
    else:
        target.pop(key, None)


def _storage(spec: Object) -> Any:
    return quantity_of(((spec.get("resources") or {}).get("requests") or {}).get("storage", "0"))


def validate_claim_update(new: Object, old: Object) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimUpdate``: the spec is fixed but for a first
    ``volumeName``, a class set where there was none, the storage request of a bound claim
    (which may only grow) and ``volumeAttributesClassName``."""
    new_spec, old_spec = copy.deepcopy(new.get("spec") or {}), copy.deepcopy(old.get("spec") or {})
    errs: list[FieldError] = []
    if not old_spec.get("volumeName"):
        _copy_field(new_spec, old_spec, "volumeName")  # bound once, by the PV controller
    if _class_change_allowed(new, old):
        _copy_field(new_spec, old_spec, "storageClassName")
    elif _annotation(new) != _annotation(old):
        path = f"metadata.annotations[{BETA_CLASS_ANNOTATION}]"
        errs.append(invalid(path, _annotation(new) or "", IMMUTABLE))
    bound = (new.get("status") or {}).get("phase") == "Bound"
    if bound and isinstance((new_spec.get("resources") or {}).get("requests"), dict):
        old_storage = ((old_spec.get("resources") or {}).get("requests") or {}).get("storage")
        new_spec["resources"]["requests"]["storage"] = old_storage
        if old_storage is None:
            del new_spec["resources"]["requests"]["storage"]
    for spec in (new_spec, old_spec):
        spec.pop("volumeAttributesClassName", None)
    if new_spec != old_spec:
        errs.append(forbidden("spec", SPEC_IMMUTABLE))
    new_size, old_size = _storage(new.get("spec") or {}), _storage(old.get("spec") or {})
    if new_size is not None and old_size is not None and new_size < old_size:
        errs.append(forbidden("spec.resources.requests.storage", "field can not be less than previous value"))
    if (new.get("spec") or {}).get("volumeMode") != (old.get("spec") or {}).get("volumeMode"):
        errs.append(
            invalid("volumeMode", (new.get("spec") or {}).get("volumeMode"), IMMUTABLE)
        )  # upstream's path
    return errs + _validate_attributes_class_update(new, old)


def _validate_attributes_class_update(new: Object, old: Object) -> list[FieldError]:
    before = (old.get("spec") or {}).get("volumeAttributesClassName")
    after = (new.get("spec") or {}).get("volumeAttributesClassName")
    if before is None or before == after:
        return []
    if after is None:
        return [forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden")]
    if after == "":
        return [
            forbidden(
                "spec.volumeAttributesClassName", "update from non-nil value to an empty string is forbidden"
            )
        ]
    return []


def validate_claim_status_update(new: Object) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimStatusUpdate``: access modes kept, capacities not negative."""
    errs = [] if (new.get("spec") or {}).get("accessModes") else [required("Spec.accessModes")]
    for name, value in ((new.get("status") or {}).get("capacity") or {}).items():
        quantity = quantity_of(value)
        if quantity is not None and quantity.sign() < 0:
            errs.append(
                invalid(f"status.capacity[{name}]", quantity.canonical(), "must be a valid resource quantity")
            )
    return errs

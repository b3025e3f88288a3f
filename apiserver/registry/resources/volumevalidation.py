"""Validation of PersistentVolumes and PersistentVolumeClaims with upstream's messages
(``pkg/apis/core/validation``: ``ValidatePersistentVolume*``, ``ValidatePersistentVolumeClaim*``)."""

from __future__ import annotations

from typing import Any

from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.unstructured import Object

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")  # sorted, as listed
VOLUME_MODES = ("Block", "Filesystem")
NOT_POSITIVE = "must be greater than zero"


def validate_access_modes(modes: Any, path: str, detail: str = "") -> list[FieldError]:
    """Required, each supported, and ``ReadWriteOncePod`` alone."""
    if not modes:
        return [required(path, detail)]
    errs: list[FieldError] = []
    once_pod = others = False
    for mode in modes if isinstance(modes, list) else []:
        if mode not in ACCESS_MODES:
            errs.append(not_supported(path, mode, ACCESS_MODES))
        elif mode == "ReadWriteOncePod":
            once_pod = True
        else:
            others = True
    if once_pod and others:
        errs.append(forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def validate_positive_quantity(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveQuantityValue`` (a value that does not parse never gets here: typed
    decoding refuses it first)."""
    try:
        quantity = parse_quantity(str(value))
    except QuantityError:
        return [invalid(path, value, "must be a valid quantity")]
    if quantity.sign() <= 0:
        return [invalid(path, quantity.canonical(), NOT_POSITIVE)]
    return []


def validate_volume_mode(mode: Any, path: str) -> list[FieldError]:
    if mode is not None and mode not in VOLUME_MODES:
        return [not_supported(path, mode, VOLUME_MODES)]
    return []


def validate_claim_spec(spec: Object, path: str) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimSpec``: access modes, a positive storage request, the
    volume mode."""
    errs = validate_access_modes(
        spec.get("accessModes"), f"{path}.accessModes", "at least 1 access mode is required"
    )
    requests = (spec.get("resources") or {}).get("requests") or {}
    at = f"{path}.resources[storage]"
    if "storage" not in requests:
        errs.append(required(at))
    else:
        errs += validate_positive_quantity(requests["storage"], at)
    return errs + validate_volume_mode(spec.get("volumeMode"), f"{path}.volumeMode")


def validate_claim(obj: Object) -> list[FieldError]:
    """``ValidatePersistentVolumeClaim``."""
    return validate_claim_spec(obj.get("spec") or {}, "spec")


def volume_sources(spec: Object, source_fields: tuple[str, ...]) -> list[str]:
    """The volume sources a PersistentVolume spec sets, in declaration order."""
    return [name for name in source_fields if spec.get(name) is not None]


def validate_volume(obj: Object, source_fields: tuple[str, ...]) -> list[FieldError]:
    """``ValidatePersistentVolumeSpec``'s essentials: access modes, a storage capacity (and
    nothing else), exactly one volume source, a supported reclaim policy and volume mode."""
    spec = obj.get("spec") or {}
    errs = validate_access_modes(spec.get("accessModes"), "spec.accessModes")
    capacity = spec.get("capacity") or {}
    if not capacity:
        errs.append(required("spec.capacity"))
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(not_supported("spec.capacity", capacity, ("storage",)))
    else:
        errs += validate_positive_quantity(capacity["storage"], "spec.capacity[storage]")
    sources = volume_sources(spec, source_fields)
    if not sources:
        errs.append(required("spec", "must specify a volume type"))
    for extra in sources[1:]:
        errs.append(forbidden(f"spec.{extra}", "may not specify more than 1 volume type"))
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy not in ("Delete", "Recycle", "Retain"):
        errs.append(
            not_supported("spec.persistentVolumeReclaimPolicy", policy, ("Delete", "Recycle", "Retain"))
        )
    return errs + validate_volume_mode(spec.get("volumeMode"), "spec.volumeMode")

"""StorageClasses (storage.k8s.io): cluster-scoped; reclaim policy defaults to ``Delete`` and
volume binding mode to ``Immediate``; provisioner, parameters, reclaim policy and volume binding
mode are fixed at creation; ``kubectl get sc`` marks the default class."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import IMMUTABLE, to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required, too_long
from minikube_py.api.models import storage
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_qualified_name

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Provisioner", "string", "", "provisioner indicates the type of the provisioner.", 0),
    (
        "ReclaimPolicy",
        "string",
        "",
        "reclaimPolicy controls the reclaimPolicy for dynamically provisioned "
        "PersistentVolumes of this storage class. Defaults to Delete.",
        0,
    ),
    (
        "VolumeBindingMode",
        "string",
        "",
        "volumeBindingMode indicates how PersistentVolumeClaims should be "
        "provisioned and bound.  When unset, VolumeBindingImmediate is used.",
        0,
    ),
    (
        "AllowVolumeExpansion",
        "string",
        "",
        "allowVolumeExpansion shows whether the storage class allow volume expand.",
        0,
    ),
    AGE_COLUMN,
]
RECLAIM_POLICIES = ("Delete", "Retain")  # Recycle is a PersistentVolume's, never a class's
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
MAX_PARAMETERS = 512
MAX_PARAMETERS_BYTES = 256 * 1024
# the annotation that marks the class claims without storageClassName get (and its beta spelling)
DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


def validate_parameters(parameters: Any) -> list[FieldError]:
    """At most 512 non-empty keys, at most 256 KiB of keys and values together."""
    if not isinstance(parameters, dict):
        return []
    if len(parameters) > MAX_PARAMETERS:
        return [too_long("parameters", MAX_PARAMETERS)]
    errs = [invalid("parameters", key, "field can not be empty.") for key in parameters if not key]
    size = sum(len(key.encode()) + len(str(value).encode()) for key, value in parameters.items())
    if size > MAX_PARAMETERS_BYTES:
        errs.append(too_long("parameters", MAX_PARAMETERS_BYTES))
    return errs


def validate_storage_class(obj: Object) -> list[FieldError]:
    """``ValidateStorageClass`` (after defaulting): a qualified provisioner name, parameters
    within bounds, a supported reclaim policy and volume binding mode."""
    errs: list[FieldError] = []
    provisioner = str(obj.get("provisioner") or "")
    if not provisioner:
        errs.append(required("provisioner"))
    else:
        errs += [invalid("provisioner", provisioner, msg) for msg in is_qualified_name(provisioner.lower())]
    errs += validate_parameters(obj.get("parameters"))
    policy = obj.get("reclaimPolicy")
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(not_supported("reclaimPolicy", policy, RECLAIM_POLICIES))
    mode = obj.get("volumeBindingMode")
    if not mode:
        errs.append(required("volumeBindingMode"))
    elif mode not in BINDING_MODES:
        errs.append(not_supported("volumeBindingMode", mode, BINDING_MODES))
    return errs


def validate_storage_class_update(new: Object, old: Object) -> list[FieldError]:
    """``ValidateStorageClassUpdate``: what provisions volumes may not change."""
    errs: list[FieldError] = []
    if (new.get("parameters") or {}) != (old.get("parameters") or {}):
        errs.append(forbidden("parameters", "updates to parameters are forbidden."))
    if new.get("provisioner") != old.get("provisioner"):
        errs.append(forbidden("provisioner", "updates to provisioner are forbidden."))
    if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errs.append(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    if new.get("volumeBindingMode") != old.get("volumeBindingMode"):
        errs.append(invalid("volumeBindingMode", new.get("volumeBindingMode"), IMMUTABLE))
    return errs


def is_default_class(obj: Object) -> bool:
    annotations = obj["metadata"].get("annotations") or {}
    return any(annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS)


class StorageClassStrategy(Strategy):
    kinds = (storage.StorageClass,)
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        obj.setdefault("reclaimPolicy", "Delete")
        obj.setdefault("volumeBindingMode", "Immediate")

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_storage_class(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return self.validate(new) + to_causes(validate_storage_class_update(new, old))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        name = meta["name"] + (" (default)" if is_default_class(obj) else "")
        return [
            name,
            obj.get("provisioner") or "",
            obj.get("reclaimPolicy") or "Delete",
            obj.get("volumeBindingMode") or "Immediate",
            str(bool(obj.get("allowVolumeExpansion"))).lower(),
            age(meta.get("creationTimestamp"), now),
        ]

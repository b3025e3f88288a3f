"""CSIDrivers (storage.k8s.io/v1, cluster-scoped): upstream's defaults (attach required, no pod
info on mount, ``Persistent`` volumes, ``ReadWriteOnceWithFSType``, no storage capacity, no
republish, no SELinux mount), validation (``ValidateCSIDriver``: the defaulted fields present,
supported modes and policies, token requests of at least 10 minutes, one per audience; attach
requirement, fsGroup policy and modes fixed once created) and the ``kubectl get csidrivers`` row."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import IMMUTABLE, to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, not_supported, required, too_long
from minikube_py.api.models import storage_csi
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("AttachRequired", "boolean", "", "Whether the driver requires an attach operation.", 0),
    ("PodInfoOnMount", "boolean", "", "Whether the driver requires pod information at mount.", 0),
    ("StorageCapacity", "boolean", "", "Whether scheduling considers the driver's storage capacity.", 0),
    ("TokenRequests", "string", "", "The audiences of the service account tokens the driver needs.", 0),
    ("RequiresRepublish", "boolean", "", "Whether NodePublishVolume is called periodically.", 0),
    ("Modes", "string", "", "The kinds of volumes the driver supports.", 0),
    AGE_COLUMN,
]
_DEFAULTS = {
    "attachRequired": True,
    "podInfoOnMount": False,
    "storageCapacity": False,
    "fsGroupPolicy": "ReadWriteOnceWithFSType",
    "requiresRepublish": False,
    "seLinuxMount": False,
}
MODES = ("Ephemeral", "Persistent")
FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")
MAX_NAME = 63
MIN_TOKEN_SECONDS, MAX_TOKEN_SECONDS = 600, 1 << 32
# upstream's path for the attach field's immutability error is misspelt; clients see it so
_IMMUTABLE_FIELDS = (("attachRequired", "attachedRequired"), ("fsGroupPolicy", "fsGroupPolicy"))


def default_csi_driver(obj: Object) -> None:
    """``SetDefaults_CSIDriver``."""
    spec = obj.setdefault("spec", {})
    for key, value in _DEFAULTS.items():
        spec.setdefault(key, value)
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]


def _validate_token_requests(requests: Any) -> list[FieldError]:
    errs: list[FieldError] = []
    audiences: set[str] = set()
    for i, request in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(request, dict):
            errs.append(invalid(f"spec.tokenRequests[{i}]", request, "must be an object"))
            continue
        at = f"spec.tokenRequests[{i}]"
        audience = str(request.get("audience", ""))
        if audience in audiences:
            errs.append(FieldError("FieldValueDuplicate", f"{at}.audience", audience))
        audiences.add(audience)
        seconds = request.get("expirationSeconds")
        if isinstance(seconds, int) and seconds < MIN_TOKEN_SECONDS:
            errs.append(
                invalid(f"{at}.expirationSeconds", seconds, "may not specify a duration less than 10 minutes")
            )
        elif isinstance(seconds, int) and seconds > MAX_TOKEN_SECONDS:
            errs.append(
                invalid(
                    f"{at}.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"
                )
            )
    return errs


def validate_csi_driver(obj: Object) -> list[FieldError]:
    """``ValidateCSIDriver`` after defaulting."""
    name = str(obj["metadata"].get("name", ""))
    errs = [too_long("metadata.name", MAX_NAME)] if len(name) > MAX_NAME else []
    spec = obj.get("spec") or {}
    errs += [required(f"spec.{key}") for key in _DEFAULTS if spec.get(key) is None]
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in FS_GROUP_POLICIES:
        errs.append(not_supported("spec.fsGroupPolicy", policy, FS_GROUP_POLICIES))
    for mode in spec.get("volumeLifecycleModes") or []:
        if mode not in MODES:
            errs.append(not_supported("spec.volumeLifecycleModes", mode, MODES))
    return errs + _validate_token_requests(spec.get("tokenRequests"))


def validate_csi_driver_update(new: Object, old: Object) -> list[FieldError]:
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    errs = [
        invalid(f"spec.{path}", new_spec.get(key), IMMUTABLE)
        for key, path in _IMMUTABLE_FIELDS
        if new_spec.get(key) != old_spec.get(key)
    ]
    if new_spec.get("volumeLifecycleModes") != old_spec.get("volumeLifecycleModes"):
        errs.append(invalid("spec.volumeLifecycleModes", new_spec.get("volumeLifecycleModes"), IMMUTABLE))
    return errs


class CSIDriverStrategy(Strategy):
    kinds = (storage_csi.CSIDriver,)
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        default_csi_driver(obj)

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_csi_driver(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_csi_driver(new) + validate_csi_driver_update(new, old))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec = obj["metadata"], obj.get("spec") or {}
        tokens = spec.get("tokenRequests")
        audiences = [str(t.get("audience", "")) for t in tokens or [] if isinstance(t, dict)]
        token_cell = ",".join(audiences) if tokens is not None else "<unset>"
        return [
            meta["name"],
            spec.get("attachRequired", True),
            bool(spec.get("podInfoOnMount")),
            bool(spec.get("storageCapacity")),
            token_cell,
            bool(spec.get("requiresRepublish")),
            ",".join(spec.get("volumeLifecycleModes") or []) or "<none>",
            age(meta.get("creationTimestamp"), now),
        ]

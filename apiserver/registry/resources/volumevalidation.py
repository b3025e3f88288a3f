"""Validation of PersistentVolumes with upstream's messages (``pkg/apis/core/validation``:
``ValidatePersistentVolume``, ``ValidatePersistentVolumeUpdate``), and what claims share with
them (access modes, quantities, volume modes, class names).

Deviation: upstream appends a go-cmp diff of the old and new source to its "immutable after
creation" messages; ours end at the sentence (the diff is Go's struct printing)."""

from __future__ import annotations

import posixpath
from typing import Any

from apiserver.registry.resources.podvalidation import IMMUTABLE
from minikube_py.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_subdomain

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")  # sorted, as listed
VOLUME_MODES = ("Block", "Filesystem")
RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
NOT_POSITIVE = "must be greater than zero"
# upstream checks the sources in this order: the first one set counts, later ones are refused
# (its path for CephFS is spelt ``cephFS``; flexVolume counts but is never refused)
SOURCE_ORDER = (
    ("hostPath", "hostPath"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("nfs", "nfs"),
    ("rbd", "rbd"),
    ("quobyte", "quobyte"),
    ("cephfs", "cephFS"),
    ("iscsi", "iscsi"),
    ("cinder", "cinder"),
    ("fc", "fc"),
    ("flexVolume", ""),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("scaleIO", "scaleIO"),
    ("local", "local"),
    ("storageos", "storageos"),
    ("csi", "csi"),
)
SOURCE_FIELDS = tuple(name for name, _ in SOURCE_ORDER)


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


def quantity_of(value: Any) -> Any:
    try:
        return parse_quantity(str(value))
    except QuantityError:
        return None


def validate_positive_quantity(value: Any, path: str) -> list[FieldError]:
    """``ValidatePositiveQuantityValue`` (a value that does not parse never gets here: typed
    decoding refuses it first)."""
    quantity = quantity_of(value)
    if quantity is None:
        return [invalid(path, value, "must be a valid quantity")]
    if quantity.sign() <= 0:
        return [invalid(path, quantity.canonical(), NOT_POSITIVE)]
    return []


def validate_volume_mode(mode: Any, path: str) -> list[FieldError]:
    if mode is not None and mode not in VOLUME_MODES:
        return [not_supported(path, mode, VOLUME_MODES)]
    return []


def validate_class_name(name: Any, path: str) -> list[FieldError]:
    """``ValidateClassName`` of a non-empty class name: a DNS subdomain."""
    if not name:
        return []
    return [invalid(path, name, msg) for msg in is_dns1123_subdomain(str(name))]


def _no_backsteps(value: str, path: str) -> list[FieldError]:
    if ".." in value.split("/"):
        return [invalid(path, value, "must not contain '..'")]
    return []


def _validate_source(name: str, source: Any) -> list[FieldError]:
    """The content of the common sources (the rarer in-tree drivers are not checked)."""
    source = source if isinstance(source, dict) else {}
    at = f"spec.{name}"
    if name in ("hostPath", "local"):
        path = str(source.get("path") or "")
        return _no_backsteps(path, f"{at}.path") if path else [required(f"{at}.path")]
    if name == "nfs":
        errs = [] if source.get("server") else [required(f"{at}.server")]
        path = str(source.get("path") or "")
        if not path:
            return [*errs, required(f"{at}.path")]
        return errs + (
            [] if posixpath.isabs(path) else [invalid(f"{at}.path", path, "must be an absolute path")]
        )
    if name == "csi":
        return [required(f"{at}.{key}") for key in ("driver", "volumeHandle") if not source.get(key)]
    return []


def _validate_sources(spec: Object) -> list[FieldError]:
    errs: list[FieldError] = []
    count = 0
    for name, path in SOURCE_ORDER:
        if spec.get(name) is None:
            continue
        if count and path:
            errs.append(forbidden(f"spec.{path}", "may not specify more than 1 volume type"))
            continue
        count += 1
        errs += _validate_source(name, spec[name])
    if not count:
        errs.append(required("spec", "must specify a volume type"))
    return errs


def _validate_capacity(capacity: Any) -> list[FieldError]:
    capacity = capacity if isinstance(capacity, dict) else {}
    errs = [] if capacity else [required("spec.capacity")]
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(not_supported("spec.capacity", capacity, ("storage",)))
    for name, value in capacity.items():
        errs += validate_positive_quantity(value, f"spec.capacity[{name}]")
    return errs


def validate_volume(obj: Object) -> list[FieldError]:
    """``ValidatePersistentVolumeSpec`` (of a volume, not an inline spec)."""
    spec = obj.get("spec") or {}
    errs = validate_access_modes(spec.get("accessModes"), "spec.accessModes")
    errs += _validate_capacity(spec.get("capacity"))
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
    affinity = spec.get("nodeAffinity")
    if isinstance(affinity, dict) and affinity.get("required") is None:
        errs.append(required("spec.nodeAffinity.required", "must specify required node constraints"))
    errs += _validate_sources(spec)
    if spec.get("local") is not None and not (isinstance(affinity, dict) and affinity.get("required")):
        errs.append(required("spec.nodeAffinity", "Local volume requires node affinity"))
    host_path = spec.get("hostPath")
    root = isinstance(host_path, dict) and posixpath.normpath(str(host_path.get("path") or ".")) == "/"
    if root and policy == "Recycle":
        errs.append(
            forbidden(
                "spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"
            )
        )
    errs += validate_class_name(spec.get("storageClassName"), "spec.storageClassName")
    errs += validate_volume_mode(spec.get("volumeMode"), "spec.volumeMode")
    attributes_class = spec.get("volumeAttributesClassName")
    if attributes_class is not None:
        if not attributes_class:
            errs.append(required("spec.volumeAttributesClassName", "an empty string is disallowed"))
        errs += validate_class_name(attributes_class, "spec.volumeAttributesClassName")
        if spec.get("csi") is None:
            errs.append(required("spec.csi", "has to be specified when using volumeAttributesClassName"))
    return errs


def _sources(spec: Object) -> dict[str, Any]:
    return {name: spec[name] for name in SOURCE_FIELDS if spec.get(name) is not None}


def validate_volume_update(new: Object, old: Object) -> list[FieldError]:
    """``ValidatePersistentVolumeUpdate``: the source is fixed (a CSI volume may gain its
    ``controllerExpandSecretRef``), so are the volume mode and a node affinity once set."""
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    new_sources, old_sources = _sources(new_spec), _sources(old_spec)
    old_csi, new_csi = old_sources.get("csi"), new_sources.get("csi")
    if isinstance(old_csi, dict) and isinstance(new_csi, dict) and "controllerExpandSecretRef" not in old_csi:
        new_sources["csi"] = {k: v for k, v in new_csi.items() if k != "controllerExpandSecretRef"}
    errs: list[FieldError] = []
    if new_sources != old_sources:
        detail = "spec.persistentvolumesource is immutable after creation"
        errs.append(forbidden("spec.persistentvolumesource", detail))
    if new_spec.get("volumeMode") != old_spec.get("volumeMode"):
        errs.append(invalid("volumeMode", new_spec.get("volumeMode"), IMMUTABLE))  # upstream's path
    if old_spec.get("nodeAffinity") is not None and new_spec.get("nodeAffinity") != old_spec["nodeAffinity"]:
        errs.append(invalid("nodeAffinity", new_spec.get("nodeAffinity"), IMMUTABLE))
    if (
        old_spec.get("volumeAttributesClassName") is not None
        and new_spec.get("volumeAttributesClassName") is None
    ):
        errs.append(
            forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden")
        )
    return errs

"""ObjectMeta rules every resource shares: system fields, names, labels, generateName,
finalizers."""

from __future__ import annotations

import random
from typing import Any

from apiserver.registry.deletion import FOREGROUND_FINALIZER, ORPHAN_FINALIZER
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, forbidden, go_quote, invalid, too_long
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import (
    TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)
from minikube_py.uid import new_uuid

_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # upstream's: no vowels, no look-alikes


def fill_system_fields(obj: Object) -> None:
    """uid, creationTimestamp, a generated name; no resourceVersion or deletion fields."""
    meta = obj.setdefault("metadata", {})
    if not meta.get("name") and meta.get("generateName"):
        suffix = "".join(random.choices(_GENERATE_ALPHABET, k=5))
        meta["name"] = meta["generateName"] + suffix
    meta["uid"] = new_uuid()
    meta["creationTimestamp"] = now_rfc3339()
    for field in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
        meta.pop(field, None)


def keep_system_fields(new: Object, old: Object) -> None:
    """An update may not change uid, creationTimestamp, generation or deletion fields."""
    meta, old_meta = new.setdefault("metadata", {}), old["metadata"]
    for field in (
        "uid",
        "creationTimestamp",
        "generation",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ):
        if field in old_meta:
            meta[field] = old_meta[field]
        else:
            meta.pop(field, None)


def path_segment_name(name: str) -> list[str]:
    """Upstream's ``IsValidPathSegmentName`` (names of RBAC objects: ``system:node`` is valid)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def validate_meta(obj: Object, *, namespaced: bool, name_rule: str = "subdomain") -> list[Cause]:
    """Upstream's ObjectMeta validation: name (and generateName), namespace, labels, annotations,
    finalizers."""
    meta = obj.get("metadata") or {}
    causes: list[Cause] = []
    name = meta.get("name", "")
    if not name:
        causes.append(
            Cause("FieldValueRequired", "Required value: name or generateName is required", "metadata.name")
        )
    else:
        check = {"label": is_dns1123_label, "path": path_segment_name}.get(name_rule, is_dns1123_subdomain)
        causes += [_invalid("metadata.name", name, m) for m in check(name)]
    namespace = meta.get("namespace", "")
    if namespaced and not namespace:
        causes.append(Cause("FieldValueRequired", "Required value", "metadata.namespace"))
    if not namespaced and namespace:
        causes.append(_forbidden("metadata.namespace", "not allowed on this type"))
    causes += _validate_map(meta.get("labels"), "metadata.labels", labels=True)
    causes += _validate_map(meta.get("annotations"), "metadata.annotations", labels=False)
    causes += _causes(_finalizer_errors(meta.get("finalizers")))
    return causes


def validate_meta_update(new: Object, old: Object) -> list[Cause]:
    """Upstream's ObjectMeta update rule not enforced by ``keep_system_fields``: an object being
    deleted may lose finalizers but not gain any."""
    old_meta = old.get("metadata") or {}
    finalizers = (new.get("metadata") or {}).get("finalizers") or []
    if not old_meta.get("deletionTimestamp") or not isinstance(finalizers, list):
        return []
    added = sorted({str(f) for f in finalizers} - set(old_meta.get("finalizers") or []))
    if not added:
        return []
    listed = ", ".join(go_quote(f) for f in added)  # Go's %#v of a []string
    message = "no new finalizers can be added if the object is being deleted, found new finalizers"
    return _causes([forbidden("metadata.finalizers", f"{message} []string{{{listed}}}")])


def _finalizer_errors(finalizers: Any) -> list[FieldError]:
    """Upstream's ``ValidateFinalizers``: qualified names (a name without "/" need not be a
    standard one: only custom resources warn about those), and not both GC policies."""
    field = "metadata.finalizers"
    if not finalizers:
        return []
    if not isinstance(finalizers, list):
        return [invalid(field, finalizers, "must be a list of strings")]
    found: list[FieldError] = []
    for name in finalizers:
        if not isinstance(name, str):
            found.append(invalid(field, name, "must be a string"))
            continue
        found += [invalid(field, name, message) for message in is_qualified_name(name)]
    if ORPHAN_FINALIZER in finalizers and FOREGROUND_FINALIZER in finalizers:
        message = f"finalizer {ORPHAN_FINALIZER} and {FOREGROUND_FINALIZER} cannot be both set"
        found.append(invalid(field, finalizers, message))
    return found


def _causes(found: list[FieldError]) -> list[Cause]:
    return [Cause(e.reason, e.body(), e.field) for e in found]


def _validate_map(values: Any, field: str, *, labels: bool) -> list[Cause]:
    if not values:
        return []
    if not isinstance(values, dict):
        return [_invalid(field, values, "must be a map of strings")]
    causes = []
    for key, value in values.items():
        # upstream's annotation keys are qualified names in any case
        causes += [_invalid(field, key, m) for m in is_qualified_name(key if labels else key.lower())]
        if labels:
            causes += [_invalid(f"{field}", value, m) for m in is_valid_label_value(str(value))]
    if not labels and _utf8_size(values) > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES:
        causes += _causes([too_long(field, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES)])  # upstream: 256 KiB in all
    return causes


def _utf8_size(values: dict[Any, Any]) -> int:
    """Upstream's ``ValidateAnnotationsSize``: the bytes of every key and value."""
    return sum(
        len(str(k).encode("utf-8", "surrogatepass")) + len(str(v).encode("utf-8", "surrogatepass"))
        for k, v in values.items()
    )


def _invalid(field: str, value: Any, message: str) -> Cause:
    return Cause("FieldValueInvalid", f"Invalid value: {_quote(value)}: {message}", field)


def _forbidden(field: str, message: str) -> Cause:
    return Cause("FieldValueForbidden", f"Forbidden: {message}", field)


def _quote(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)

"""ObjectMeta rules every resource shares: system fields, names, labels, generateName."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime
from typing import Any

from minikube_py.api.errors import Cause
from minikube_py.api.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)

Object = dict[str, Any]
_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # upstream's: no vowels, no look-alikes


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def fill_system_fields(obj: Object) -> None:
    """uid, creationTimestamp, a generated name; no resourceVersion or deletion fields."""
    meta = obj.setdefault("metadata", {})
    if not meta.get("name") and meta.get("generateName"):
        suffix = "".join(random.choices(_GENERATE_ALPHABET, k=5))
        meta["name"] = meta["generateName"] + suffix
    meta["uid"] = str(uuid.uuid4())
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


def validate_meta(obj: Object, *, namespaced: bool, name_rule: str = "subdomain") -> list[Cause]:
    """Upstream's ObjectMeta validation: name (and generateName), namespace, labels, annotations."""
    meta = obj.get("metadata") or {}
    causes: list[Cause] = []
    name = meta.get("name", "")
    if not name:
        causes.append(
            Cause("FieldValueRequired", "Required value: name or generateName is required", "metadata.name")
        )
    else:
        check = is_dns1123_label if name_rule == "label" else is_dns1123_subdomain
        causes += [_invalid("metadata.name", name, m) for m in check(name)]
    namespace = meta.get("namespace", "")
    if namespaced and not namespace:
        causes.append(Cause("FieldValueRequired", "Required value", "metadata.namespace"))
    if not namespaced and namespace:
        causes.append(_forbidden("metadata.namespace", "not allowed on this type"))
    causes += _validate_map(meta.get("labels"), "metadata.labels", labels=True)
    causes += _validate_map(meta.get("annotations"), "metadata.annotations", labels=False)
    return causes


def _validate_map(values: Any, field: str, *, labels: bool) -> list[Cause]:
    if not values:
        return []
    if not isinstance(values, dict):
        return [_invalid(field, values, "must be a map of strings")]
    causes = []
    for key, value in values.items():
        causes += [_invalid(field, key, m) for m in is_qualified_name(key)]
        if labels:
            causes += [_invalid(f"{field}", value, m) for m in is_valid_label_value(str(value))]
    return causes


def _invalid(field: str, value: Any, message: str) -> Cause:
    return Cause("FieldValueInvalid", f"Invalid value: {_quote(value)}: {message}", field)


def _forbidden(field: str, message: str) -> Cause:
    return Cause("FieldValueForbidden", f"Forbidden: {message}", field)


def _quote(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)

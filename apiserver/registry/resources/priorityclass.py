"""PriorityClasses (scheduling.k8s.io): cluster-scoped; preemption policy defaults to
``PreemptLowerPriority``; user classes stay at or below 1e9, ``system-`` names are reserved for
the built-in classes; value and preemption policy are immutable."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import IMMUTABLE, to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, forbidden, invalid
from minikube_py.api.models import scheduling
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Value", "integer", "", "value represents the integer value of this priority class.", 0),
    ("Global-Default", "boolean", "", "Whether this PriorityClass is the default.", 0),
    AGE_COLUMN,
    ("PreemptionPolicy", "string", "", "preemptionPolicy is the Policy for preempting pods.", 0),
]
HIGHEST_USER_PRIORITY = 1_000_000_000
SYSTEM_PREFIX = "system-"
SYSTEM_CLASSES = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}


def _system_class_error(obj: Object) -> str | None:
    """Why a ``system-`` class is not one of the known system classes (None if it is)."""
    name = obj["metadata"].get("name", "")
    if name not in SYSTEM_CLASSES:
        return f"{name} is not a known system priority class"
    if obj.get("value") != SYSTEM_CLASSES[name]:
        return f"value of {name} PriorityClass must be {SYSTEM_CLASSES[name]}"
    if obj.get("globalDefault"):
        return f"globalDefault of {name} PriorityClass must be false"
    return None


def validate_priority_class(obj: Object) -> list[FieldError]:
    if obj["metadata"].get("name", "").startswith(SYSTEM_PREFIX):
        error = _system_class_error(obj)
        if error is not None:
            detail = f"priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. "
            return [forbidden("metadata.name", detail + "error: " + error)]
    elif int(obj.get("value") or 0) > HIGHEST_USER_PRIORITY:
        detail = f"maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}"
        return [forbidden("value", detail)]
    return []


class PriorityClassStrategy(Strategy):
    kinds = (scheduling.PriorityClass,)
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_priority_class(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        errs: list[FieldError] = []
        if new.get("value") != old.get("value"):
            errs.append(forbidden("value", "may not be changed in an update."))
        if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
            errs.append(invalid("preemptionPolicy", new.get("preemptionPolicy"), IMMUTABLE))
        return to_causes(errs)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [
            meta["name"],
            int(obj.get("value") or 0),
            bool(obj.get("globalDefault")),
            age(meta.get("creationTimestamp"), now),
            obj.get("preemptionPolicy") or "",
        ]

"""ControllerRevisions (apps/v1): immutable snapshots of a DaemonSet's or StatefulSet's
template. ``data`` is required and fixed at creation; only the revision number (and metadata)
may change. ``kubectl get controllerrevisions`` shows the controller as ``kind.group/name``."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import IMMUTABLE, NEGATIVE, to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, required
from minikube_py.api.models import apps_revision
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Controller", "string", "", "Controller of the object", 0),
    ("Revision", "string", "", "Revision indicates the revision of the state represented by Data.", 0),
    AGE_COLUMN,
]


def validate_controller_revision(obj: Object) -> list[FieldError]:
    """``ValidateControllerRevisionCreate``: data present, revision not negative."""
    errs = [] if obj.get("data") is not None else [required("data", "data is mandatory")]
    revision = obj.get("revision")
    if isinstance(revision, int) and revision < 0:
        errs.append(invalid("revision", revision, NEGATIVE))
    return errs


def controller_name(obj: Object) -> str:
    """``formatResourceName`` of the controller reference: ``statefulset.apps/web``."""
    for ref in obj["metadata"].get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller"):
            group = str(ref.get("apiVersion", "")).rpartition("/")[0]
            kind = str(ref.get("kind", ""))
            group_kind = f"{kind}.{group}" if group else kind
            return f"{group_kind.lower()}/{ref.get('name', '')}" if group_kind else str(ref.get("name", ""))
    return "<none>"


class ControllerRevisionStrategy(Strategy):
    kinds = (apps_revision.ControllerRevision,)
    columns = COLUMNS

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_controller_revision(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        errs = validate_controller_revision(new)
        if new.get("data") != old.get("data"):
            errs.append(invalid("data", new.get("data"), IMMUTABLE))
        return to_causes(errs)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [
            meta["name"],
            controller_name(obj),
            obj.get("revision", 0),
            age(meta.get("creationTimestamp"), now),
        ]

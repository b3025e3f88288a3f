"""Namespaces: cluster-scoped, DNS-label names, ``Active`` until deleted, then ``Terminating``.

Deletion takes two steps (upstream's namespace REST ``Delete``): the first DELETE sets
``deletionTimestamp`` and the phase; the namespace is removed once ``spec.finalizers`` (the
namespace controller's, emptied through ``namespaces/finalize``) and ``metadata.finalizers``
are both empty. Only ``finalize`` changes ``spec.finalizers`` and only ``status`` the phase,
which must agree with ``deletionTimestamp``.
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver.registry.age import age
from apiserver.registry.deletion import (
    FOREGROUND,
    FOREGROUND_FINALIZER,
    GC_FINALIZERS,
    ORPHAN,
    ORPHAN_FINALIZER,
    DeleteOptions,
    set_finalizers,
)
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid
from minikube_py.api.models import core_objects
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_qualified_name

FINALIZER = "kubernetes"
ACTIVE, TERMINATING = "Active", "Terminating"
# core's FinalizerKubernetes plus the garbage collector's: the names allowed without a "/"
STANDARD_FINALIZERS = (FINALIZER, ORPHAN_FINALIZER, FOREGROUND_FINALIZER)


METADATA_NAME_LABEL = "kubernetes.io/metadata.name"


class NamespaceStrategy(Strategy):
    kinds = (core_objects.Namespace,)
    status_field = "status"
    name_rule = "label"
    return_deleted_object = True

    def default(self, obj: Object) -> None:
        """Upstream's defaulting: the ``kubernetes.io/metadata.name`` label always carries the
        name (so namespace selectors can pick a namespace by name)."""
        meta = obj.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("name"), str) and meta["name"]:
            labels = meta.get("labels")
            if labels is None:
                labels = meta["labels"] = {}
            if isinstance(labels, dict):
                labels[METADATA_NAME_LABEL] = meta["name"]

    def prepare_for_create(self, obj: Object) -> None:
        """Always ``Active``, and always with the ``kubernetes`` finalizer."""
        super().prepare_for_create(obj)
        spec = obj.setdefault("spec", {})
        finalizers = spec.get("finalizers") or []
        if isinstance(finalizers, list) and FINALIZER not in finalizers:
            spec["finalizers"] = [*finalizers, FINALIZER]
        obj["status"] = {"phase": ACTIVE}

    def prepare_for_update(self, new: Object, old: Object) -> None:
        """The status and ``spec.finalizers`` stay: they have their own subresources."""
        super().prepare_for_update(new, old)
        if not isinstance(new.get("spec", {}), dict):
            return  # validation refuses it
        spec = new.setdefault("spec", {})
        kept = old.get("spec", {}).get("finalizers")
        if kept is None:
            spec.pop("finalizers", None)
        else:
            spec["finalizers"] = copy.deepcopy(kept)

    def validate(self, obj: Object) -> list[Cause]:
        return _causes(_finalizer_errors(obj, indexed=False))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return self.validate(new) + _causes(_phase_errors(new))

    def start_termination(self, obj: Object, options: DeleteOptions) -> None:
        """The first DELETE: phase ``Terminating`` and the garbage collector's finalizers as the
        options ask (without options, those already there stay)."""
        obj.setdefault("status", {})["phase"] = TERMINATING
        meta = obj["metadata"]
        set_finalizers(meta, _termination_finalizers(meta.get("finalizers") or [], options))

    def terminated(self, obj: Object) -> bool:
        return not (obj.get("spec") or {}).get("finalizers")

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        fields = super().selectable_fields(obj)
        fields["status.phase"] = obj.get("status", {}).get("phase", "")
        return fields

    def table_columns(self) -> list[Column]:
        return [
            NAME_COLUMN,
            ("Status", "string", "", "The status of the namespace", 0),
            (
                "Age",
                "string",
                "",
                "CreationTimestamp is a timestamp representing the server time when this object was created.",
                0,
            ),
        ]

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [meta["name"], obj.get("status", {}).get("phase", ""), age(meta.get("creationTimestamp"), now)]


class NamespaceFinalizeStrategy(NamespaceStrategy):
    """``namespaces/finalize``: an update that may change ``spec.finalizers`` (only the status
    is kept); its names are checked one by one."""

    def prepare_for_update(self, new: Object, old: Object) -> None:
        if "status" in old:
            new["status"] = copy.deepcopy(old["status"])
        else:
            new.pop("status", None)

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return _causes(_finalizer_errors(new, indexed=True))


def _termination_finalizers(finalizers: list[str], options: DeleteOptions) -> list[str]:
    """Upstream's namespace rule, which differs from the generic one: ``orphanDependents=false``
    asks for foreground deletion."""
    if options.orphan_dependents is not None:
        orphan, foreground = options.orphan_dependents, not options.orphan_dependents
    elif options.propagation_policy:
        orphan = options.propagation_policy == ORPHAN
        foreground = options.propagation_policy == FOREGROUND
    else:
        orphan, foreground = ORPHAN_FINALIZER in finalizers, FOREGROUND_FINALIZER in finalizers
    wanted = [f for f in finalizers if f not in GC_FINALIZERS]
    if orphan:
        wanted.append(ORPHAN_FINALIZER)
    if foreground:
        wanted.append(FOREGROUND_FINALIZER)
    return wanted


def _finalizer_errors(obj: Object, *, indexed: bool) -> list[FieldError]:
    """Each finalizer must be a qualified name, and one without a "/" a standard one."""
    spec = obj.get("spec") or {}
    if not isinstance(spec, dict):
        return [invalid("spec", spec, "must be an object")]
    finalizers = spec.get("finalizers")
    if not isinstance(finalizers, list):
        return [] if finalizers is None else [invalid("spec.finalizers", finalizers, "must be a list")]
    found: list[FieldError] = []
    for i, name in enumerate(finalizers):
        path = f"spec.finalizers[{i}]" if indexed else "spec.finalizers"
        text = name if isinstance(name, str) else str(name)
        found += [invalid(path, text, message) for message in is_qualified_name(text)]
        if "/" not in text and text not in STANDARD_FINALIZERS:
            found.append(
                invalid(path, text, "name is neither a standard finalizer name nor is it fully qualified")
            )
    return found


def _phase_errors(obj: Object) -> list[FieldError]:
    """The phase agrees with ``deletionTimestamp`` (upstream's field path is ``status.Phase``)."""
    status = obj.get("status")
    phase = status.get("phase", "") if isinstance(status, dict) else ""
    if obj["metadata"].get("deletionTimestamp"):
        if phase != TERMINATING:
            return [
                invalid(
                    "status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"
                )
            ]
    elif phase != ACTIVE:
        return [invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")]
    return []


def _causes(found: list[FieldError]) -> list[Cause]:
    return [Cause(e.reason, e.body(), e.field) for e in found]

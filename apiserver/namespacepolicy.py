"""Namespace policy (upstream's namespace lifecycle rules): nothing is created in a namespace
that does not exist (404) or is being terminated (403 with a ``NamespaceTerminating`` cause).

Two callers hold the same rule: the NamespaceLifecycle admission plugin, and the registry's
own check when that plugin is not enabled. The rule lives here, below both, so the registry
never imports an admission plugin."""

from __future__ import annotations

from typing import Any

from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType

Object = dict[str, Any]

# The admission plugin that owns the check when enabled (the registry then skips its own).
ADMISSION_PLUGIN = "NamespaceLifecycle"


def terminating(namespace: Object) -> bool:
    """The namespace is being deleted (a deletion timestamp, or the Terminating phase)."""
    return bool(namespace["metadata"].get("deletionTimestamp")) or (
        (namespace.get("status") or {}).get("phase") == "Terminating"
    )


def terminating_error(rt: ResourceType, namespace: str, name: str) -> errors.ApiError:
    """403 ``<resource> "<name>" is forbidden: unable to create new content in namespace ...``."""
    why = f"unable to create new content in namespace {namespace} because it is being terminated"
    error = errors.forbidden(rt.resource, name, rt.group, why)
    message = f"namespace {namespace} is being terminated"
    error.causes = [errors.Cause("NamespaceTerminating", message, "metadata.namespace")]
    return error


def refusal(
    found: Object | None, rt: ResourceType, namespace: str, name: str, *, creating: bool
) -> errors.ApiError | None:
    """Why a write of ``rt`` named ``name`` into ``namespace`` (stored as ``found``, None when
    absent) is refused: it does not exist, or it is terminating and the write creates; else None."""
    if found is None:
        return errors.not_found("namespaces", namespace)
    if creating and terminating(found):
        return terminating_error(rt, namespace, name)
    return None

"""NamespaceLifecycle (upstream's ``plugin/namespace/lifecycle``): nothing is created in a
namespace that does not exist (404) or is terminating (403 with a ``NamespaceTerminating``
cause), and the immortal namespaces ``default``, ``kube-system`` and ``kube-public`` cannot
be deleted. Namespaces themselves, cluster-scoped objects and deletions pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apiserver.admission.attributes import Attributes, Operation, forbidden
from apiserver.admission.interfaces import Plugin
from apiserver.admission.plugins import lookup
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

if TYPE_CHECKING:
    from apiserver.registry.catalog import Catalog

NAME = "NamespaceLifecycle"
IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


def terminating(namespace: Object) -> bool:
    return bool(namespace["metadata"].get("deletionTimestamp")) or (
        (namespace.get("status") or {}).get("phase") == "Terminating"
    )


def terminating_error(attrs: Attributes) -> errors.ApiError:
    why = f"unable to create new content in namespace {attrs.namespace} because it is being terminated"
    error = forbidden(attrs, why)
    message = f"namespace {attrs.namespace} is being terminated"
    error.causes = [errors.Cause("NamespaceTerminating", message, "metadata.namespace")]
    return error


class NamespaceLifecycle(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE, Operation.UPDATE, Operation.DELETE})

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog

    async def admit(self, attrs: Attributes) -> None:
        is_namespace = (attrs.resource.group, attrs.resource.kind) == ("", "Namespace")
        if attrs.operation == Operation.DELETE and is_namespace and attrs.name in IMMORTAL_NAMESPACES:
            raise forbidden(attrs, "this namespace may not be deleted")
        if is_namespace or not attrs.namespace or attrs.operation == Operation.DELETE:
            return
        namespace = await lookup.get(self.catalog, "", "v1", "namespaces", "", attrs.namespace)
        if namespace is None:
            raise errors.not_found("namespaces", attrs.namespace)
        if attrs.operation == Operation.CREATE and terminating(namespace):
            raise terminating_error(attrs)

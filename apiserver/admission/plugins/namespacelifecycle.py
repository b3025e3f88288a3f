"""NamespaceLifecycle (upstream's ``plugin/namespace/lifecycle``): nothing is created in a
namespace that does not exist (404) or is terminating (403 with a ``NamespaceTerminating``
cause), and the immortal namespaces ``default``, ``kube-system`` and ``kube-public`` cannot
be deleted. Namespaces themselves, cluster-scoped objects and deletions pass."""

from __future__ import annotations

from apiserver import namespacepolicy
from apiserver.admission.attributes import Attributes, Operation, forbidden, object_name
from apiserver.admission.interfaces import Plugin
from apiserver.lookup import Lookup

NAME = namespacepolicy.ADMISSION_PLUGIN
IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


class NamespaceLifecycle(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE, Operation.UPDATE, Operation.DELETE})

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def admit(self, attrs: Attributes) -> None:
        is_namespace = (attrs.resource.group, attrs.resource.kind) == ("", "Namespace")
        if attrs.operation == Operation.DELETE and is_namespace and attrs.name in IMMORTAL_NAMESPACES:
            raise forbidden(attrs, "this namespace may not be deleted")
        if is_namespace or not attrs.namespace or attrs.operation == Operation.DELETE:
            return
        namespace = await self.lookup.lister("", "v1", "namespaces").get("", attrs.namespace, fresh=True)
        creating = attrs.operation == Operation.CREATE
        refusal = namespacepolicy.refusal(
            namespace, attrs.resource, attrs.namespace, object_name(attrs), creating=creating
        )
        if refusal is not None:
            raise refusal

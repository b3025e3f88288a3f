"""DefaultIngressClass: a new Ingress that names no class (neither ``spec.ingressClassName``
nor the legacy ``kubernetes.io/ingress.class`` annotation) gets the default IngressClass, the
one annotated ``ingressclass.kubernetes.io/is-default-class: "true"``. With several defaults
the newest wins (ties: the first name), as upstream has chosen since 1.28 (before, such a
create was refused). Updates are left alone: the class is defaulted once."""

from __future__ import annotations

import logging

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.interfaces import Plugin
from apiserver.lookup import Lookup
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object

NAME = "DefaultIngressClass"
IS_DEFAULT_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"
CLASS_ANNOTATION = "kubernetes.io/ingress.class"
INGRESS_CLASSES = ("networking.k8s.io", "v1", "ingressclasses")
log = logging.getLogger("apiserver.admission")


def default_class(classes: list[Object]) -> Object | None:
    """The newest class marked default (ties broken by name), or None."""
    marked = [
        c for c in classes if (c["metadata"].get("annotations") or {}).get(IS_DEFAULT_ANNOTATION) == "true"
    ]
    if not marked:
        return None
    marked.sort(key=lambda c: (-_created(c), c["metadata"]["name"]))
    if len(marked) > 1:
        log.debug(
            "%d default IngressClasses were found, choosing the newest: %s",
            len(marked),
            marked[0]["metadata"]["name"],
        )
    return marked[0]


def _created(ingress_class: Object) -> float:
    return parse_rfc3339(ingress_class["metadata"].get("creationTimestamp")) or 0.0


class DefaultIngressClass(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE})

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def admit(self, attrs: Attributes) -> None:
        if not attrs.is_main("networking.k8s.io", "ingresses") or attrs.object is None:
            return
        spec = attrs.object.setdefault("spec", {})
        annotations = (attrs.object.get("metadata") or {}).get("annotations") or {}
        if spec.get("ingressClassName") is not None or CLASS_ANNOTATION in annotations:
            return
        if not self.lookup.serves(*INGRESS_CLASSES):
            return
        found = default_class(await self.lookup.lister(*INGRESS_CLASSES).list("", fresh=True))
        if found is not None:
            spec["ingressClassName"] = found["metadata"]["name"]

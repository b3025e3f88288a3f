"""IngressClasses (networking.k8s.io/v1): cluster-scoped; ``spec.parameters.scope`` defaults to
``Cluster``; ``spec.controller`` is required and immutable; the ``kubectl get ingressclass``
row: Name, Controller, Parameters, Age."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.ingressvalidation import validate_ingress_class
from apiserver.registry.resources.podvalidation import IMMUTABLE, to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import invalid
from minikube_py.api.models import networking
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Controller", "string", "", "Controller that is responsible for handling this class", 0),
    ("Parameters", "string", "", "A reference to a resource with additional parameters", 0),
    AGE_COLUMN,
]


def format_parameters(spec: Object) -> str:
    """Upstream's ``printIngressClass``: ``Kind[.group]/name``, or ``<none>``."""
    params = spec.get("parameters")
    if params is None:
        return "<none>"
    kind = str(params.get("kind") or "")
    if params.get("apiGroup") is not None:
        kind += "." + str(params["apiGroup"])
    return f"{kind}/{params.get('name') or ''}"


class IngressClassStrategy(Strategy):
    kinds = (networking.IngressClass,)
    spec_field = "spec"
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        params = (obj.get("spec") or {}).get("parameters")
        if isinstance(params, dict):
            params.setdefault("scope", "Cluster")

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_ingress_class(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        errs = validate_ingress_class(new)
        controller = (new.get("spec") or {}).get("controller")
        if controller != (old.get("spec") or {}).get("controller"):
            errs.append(invalid("spec.controller", controller, IMMUTABLE))
        return to_causes(errs)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [
            meta["name"],
            (obj.get("spec") or {}).get("controller") or "",
            format_parameters(obj.get("spec") or {}),
            age(meta.get("creationTimestamp"), now),
        ]

"""Leases (coordination.k8s.io): no status; ``kubectl get leases`` shows the holder."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.models import coordination
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Holder", "string", "", "holderIdentity contains the identity of the holder of a current lease.", 0),
    AGE_COLUMN,
]


class LeaseStrategy(Strategy):
    kinds = (coordination.Lease,)
    spec_field = "spec"
    columns = COLUMNS

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        holder = (obj.get("spec") or {}).get("holderIdentity") or ""
        return [meta["name"], holder, age(meta.get("creationTimestamp"), now)]

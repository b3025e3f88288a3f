"""ServiceAccounts: no status; ``kubectl get serviceaccounts`` counts their secrets."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.models import core_objects
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Secrets", "string", "", "Secrets is a list of the secrets in the same namespace that pods may use.", 0),
    AGE_COLUMN,
]


class ServiceAccountStrategy(Strategy):
    kinds = (core_objects.ServiceAccount,)
    return_deleted_object = True
    columns = COLUMNS

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [meta["name"], len(obj.get("secrets") or []), age(meta.get("creationTimestamp"), now)]

"""Namespaces: cluster-scoped, DNS-label names, ``Active`` until deleted."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.strategy import NAME_COLUMN, Column, Object, Strategy

FINALIZER = "kubernetes"


class NamespaceStrategy(Strategy):
    status_field = "status"
    name_rule = "label"

    def prepare_for_create(self, obj: Object) -> None:
        super().prepare_for_create(obj)
        spec = obj.setdefault("spec", {})
        spec.setdefault("finalizers", [FINALIZER])
        obj["status"] = {"phase": "Active"}

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

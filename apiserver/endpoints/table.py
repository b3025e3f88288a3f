"""``meta.k8s.io`` Tables for ``kubectl get``: negotiation and conversion.

kubectl asks with ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...``; the server
renders the cells (ages included) with the strategy's columns. Rows carry the object as
``PartialObjectMetadata`` by default, the full object with ``includeObject=Object``, or nothing
with ``None``.
"""

from __future__ import annotations

import time
from typing import Any

from apiserver.registry.strategy import Strategy
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

TABLE_VERSIONS = ("v1", "v1beta1")


def table_version(accept: str) -> str | None:
    """The meta.k8s.io Table version the Accept header asks for first, if any."""
    for item in accept.split(","):
        params = dict(_param(p) for p in item.split(";")[1:])
        if params.get("as") == "Table" and params.get("g") == "meta.k8s.io":
            if params.get("v") in TABLE_VERSIONS:
                return params["v"]
        elif item.split(";")[0].strip() in ("application/json", "*/*", "application/*"):
            return None
    return None


def _param(text: str) -> tuple[str, str]:
    key, _, value = text.strip().partition("=")
    return key.strip(), value.strip()


def to_table(
    strategy: Strategy,
    objects: list[Object],
    *,
    version: str,
    include_object: str,
    resource_version: str = "",
    continue_token: str = "",
    with_columns: bool = True,
) -> dict[str, Any]:
    if include_object not in ("", "None", "Metadata", "Object"):
        raise errors.bad_request(f'includeObject: Unsupported value: "{include_object}"')
    now = time.time()
    meta: dict[str, Any] = {"resourceVersion": resource_version} if resource_version else {}
    if continue_token:
        meta["continue"] = continue_token
    table: dict[str, Any] = {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{version}",
        "metadata": meta,
        "columnDefinitions": [_column(c) for c in strategy.table_columns()] if with_columns else [],
        "rows": [_row(strategy, obj, now, include_object, version) for obj in objects],
    }
    return table


def _column(column: tuple[str, str, str, str, int]) -> dict[str, Any]:
    name, kind, fmt, description, priority = column
    return {"name": name, "type": kind, "format": fmt, "description": description, "priority": priority}


def _row(strategy: Strategy, obj: Object, now: float, include: str, version: str) -> dict[str, Any]:
    row: dict[str, Any] = {"cells": strategy.table_cells(obj, now)}
    if include == "Object":
        row["object"] = obj
    elif include != "None":
        row["object"] = {
            "kind": "PartialObjectMetadata",
            "apiVersion": f"meta.k8s.io/{version}",
            "metadata": obj.get("metadata", {}),
        }
    return row

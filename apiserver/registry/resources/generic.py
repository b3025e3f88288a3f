"""Kinds without special policy yet: a ``spec`` whose change bumps the generation and a
``status`` owned by the ``/status`` subresource (when the kind has one)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.models import core_objects
from minikube_py.api.unstructured import Object


class SpecStatusStrategy(Strategy):
    """Upstream's common shape: generation follows ``spec``; status via the subresource."""

    status_field: str | None = "status"
    spec_field: str | None = "spec"

    def table_columns(self) -> list[Column]:
        return [NAME_COLUMN, AGE_COLUMN]

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [meta["name"], age(meta.get("creationTimestamp"), now)]


class PlainStrategy(SpecStatusStrategy):
    """Objects without a status subresource (ServiceAccount, Lease, RBAC...)."""

    status_field = None


class ResourceQuotaStrategy(SpecStatusStrategy):
    """Spec and status as the common shape; a DELETE answers with the quota, as upstream's
    registry does (``ReturnDeletedObject``)."""

    kinds = (core_objects.ResourceQuota,)

    return_deleted_object = True

"""How authenticators read cluster state (service accounts, secrets, pods, nodes): from the
catalog's stores, which serve from the watch caches."""

from __future__ import annotations

from typing import Protocol

from apiserver.registry.catalog import Catalog
from minikube_py.api import errors
from minikube_py.api.unstructured import Object


class ObjectGetter(Protocol):
    async def get(self, resource: str, namespace: str, name: str) -> Object | None:
        """The core/v1 object, or None when there is none."""
        ...


class CatalogObjects:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    async def get(self, resource: str, namespace: str, name: str) -> Object | None:
        store = self.catalog.store("", "v1", resource)
        if store is None:
            return None
        try:
            return await store.get(namespace, name)
        except errors.ApiError as err:
            if err.reason == "NotFound":
                return None
            raise

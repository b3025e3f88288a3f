"""The registry's side of ``apiserver.lookup``: a ``Lister`` over a ``GenericStore``, and the
conversion between served versions that webhooks send objects in. The ``Catalog`` hands these
out; readers see only the protocols."""

from __future__ import annotations

import copy

from apiserver.registry.store import GenericStore
from apiserver.storage.interface import ListOptions
from minikube_py.api import errors
from minikube_py.api.unstructured import Object


class StoreLister:
    """``Lister`` for one store: reads at resource version 0 (the watch cache as it is) or,
    ``fresh``, at the store's current revision."""

    def __init__(self, store: GenericStore) -> None:
        self.store = store

    async def get(self, namespace: str, name: str, *, fresh: bool = False) -> Object | None:
        try:
            return await self.store.get(namespace, name, resource_version="" if fresh else "0")
        except errors.ApiError as err:
            if err.code == 404:
                return None
            raise

    async def list(self, namespace: str = "", *, fresh: bool = False) -> list[Object]:
        options = ListOptions(resource_version="" if fresh else "0")
        return (await self.store.list(namespace, options)).items


def convert(obj: Object | None, source: GenericStore | None, target: GenericStore | None) -> Object | None:
    """``obj`` served by ``source`` as ``target`` serves it (through the stored shape)."""
    if obj is None or source is None or target is None or source is target:
        return obj
    stored = source.strategy.conversion.to_storage(copy.deepcopy(obj)) if source.strategy.conversion else obj
    return target.strategy.conversion.from_storage(stored) if target.strategy.conversion else stored

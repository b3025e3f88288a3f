"""How plugins read cluster state: single objects as stored now, lists from the watch caches
(upstream's informers) or, when a decision must see the latest writes, as stored now."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apiserver.storage.errors import KeyNotFoundError
from apiserver.storage.interface import ListOptions
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

if TYPE_CHECKING:
    from apiserver.registry.catalog import Catalog
    from apiserver.registry.store import GenericStore


def store(catalog: Catalog, group: str, version: str, resource: str) -> GenericStore:
    found = catalog.store(group, version, resource)
    if found is None:
        raise errors.internal(f"admission: {resource}.{group or 'core'} is not served")
    return found


async def get(
    catalog: Catalog, group: str, version: str, resource: str, namespace: str, name: str
) -> Object | None:
    """The object as stored now (a namespace deleted a moment ago is already terminating);
    None when it does not exist."""
    objects = store(catalog, group, version, resource)
    key = objects.key(namespace, name)
    try:
        return await objects.storage.get(key)
    except KeyNotFoundError:
        return None


async def get_cached(
    catalog: Catalog, group: str, version: str, resource: str, namespace: str, name: str
) -> Object | None:
    """The object as the watch cache has it (upstream's informer lister); None when the cache
    has no such object (it may have been created a moment ago: see ``get``)."""
    try:
        return await store(catalog, group, version, resource).get(namespace, name, resource_version="0")
    except errors.ApiError as err:
        if err.code == 404:
            return None
        raise


async def list_cached(
    catalog: Catalog, group: str, version: str, resource: str, namespace: str, *, fresh: bool = False
) -> list[Object]:
    """Every object of ``resource`` in ``namespace``, as the watch cache has them; ``fresh``
    reads at the store's current revision (an object written a moment ago is included)."""
    options = ListOptions(resource_version="" if fresh else "0")
    listed = await store(catalog, group, version, resource).list(namespace, options)
    return listed.items

"""How authenticators read cluster state (service accounts, secrets, pods, nodes): through an
``apiserver.lookup.Lookup`` (the registry's catalog), as stored now."""

from __future__ import annotations

from typing import Protocol

from apiserver.lookup import Lookup
from minikube_py.api.unstructured import Object


class ObjectGetter(Protocol):
    async def get(self, resource: str, namespace: str, name: str) -> Object | None:
        """The core/v1 object, or None when there is none."""
        ...


class LookupObjects:
    """``ObjectGetter`` over a ``Lookup``: core/v1 objects as stored now."""

    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup

    async def get(self, resource: str, namespace: str, name: str) -> Object | None:
        if not self.lookup.serves("", "v1", resource):
            return None
        return await self.lookup.lister("", "v1", resource).get(namespace, name, fresh=True)

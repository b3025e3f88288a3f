"""``Lookup``: how admission plugins, authenticators and authorizers read cluster state.

Upstream's plugins and authorizers read through informers' listers (and, where a decision must
see the latest write, a live client call), never through the registry that serves the API. The
same seam here: these protocols name the few reads they make, the registry's ``Catalog``
implements them, and the readers import only this module, so none of them imports the registry
(which imports admission and the authorizer for its own writes).

- ``Lister``: one served resource, read-only: from the watch cache (upstream's lister) or as
  stored now (``fresh``).
- ``WatchCache``: the raw watch cache the authorizers index (roles, bindings, pods), which can
  be brought up to the store's current revision.
- ``Lookup``: the served resource types and a ``Lister`` or ``WatchCache`` per resource.
- ``ObjectInterfaces`` (upstream's ``admission.ObjectInterfaces``): what webhooks need to send an
  object in another served version of its kind: equivalent resources, conversion, defaulting.
- ``StatusWriter``: the one write an admission plugin makes (ResourceQuota charges
  ``status.used``, as upstream's quota evaluator updates quota status).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from minikube_py.api.scheme import ResourceType

Object = dict[str, Any]


class Lister(Protocol):
    """Read access to one served resource, in its served shape."""

    async def get(self, namespace: str, name: str, *, fresh: bool = False) -> Object | None:
        """The object from the watch cache (``fresh``: as stored now, so a write of a moment
        ago is seen); None when there is none. Shared with the cache: copy before changing."""
        ...

    async def list(self, namespace: str = "", *, fresh: bool = False) -> list[Object]:
        """Every object in ``namespace`` ("": all, or cluster-scoped ones), from the watch cache
        (``fresh``: at the store's current revision)."""
        ...


class WatchCache(Protocol):
    """A resource's watch cache as the authorizers read it (``Cacher``)."""

    resource_version: int

    def objects(self, prefix: str = "") -> list[Object]:
        """The cached objects (shared: never change them)."""
        ...

    async def current_resource_version(self) -> int: ...

    async def wait_until_fresh(self, minimum: int) -> None: ...


class Lookup(Protocol):
    """The served resources and read access to each (``Catalog``)."""

    def resource_types(self) -> Iterable[ResourceType]:
        """Every served resource type (each version of a resource is one)."""
        ...

    def lister(self, group: str, version: str, resource: str) -> Lister:
        """``resource`` of ``group/version``; an internal error (500) when it is not served."""
        ...

    def serves(self, group: str, version: str, resource: str) -> bool: ...

    def watch_cache(self, group: str, version: str, resource: str) -> WatchCache:
        """The watch cache of a served resource (an internal error when it is not served)."""
        ...


class ObjectInterfaces(Protocol):
    """How an object moves between the served versions of its kind (``Catalog``)."""

    def equivalents(self, rt: ResourceType) -> list[ResourceType]:
        """The other served resources holding the same objects (same storage), in serving order."""
        ...

    def convert(self, obj: Object | None, source: ResourceType, target: ResourceType) -> Object | None:
        """``obj`` as served by ``source``, as ``target`` serves it (through the stored shape);
        ``obj`` itself when both serve one shape or either is not served."""
        ...

    def default(self, rt: ResourceType, obj: Object) -> None:
        """Fill ``rt``'s defaults into ``obj`` in place (nothing when ``rt`` is not served)."""
        ...


# ``change`` receives the stored object (None: it is gone) and returns the object to store;
# it raises to write nothing.
Change = Callable[[Object | None], Awaitable[Object]]


class StatusWriter(Protocol):
    """Read-modify-write of one stored object, retried on conflicts (``Catalog``)."""

    async def guaranteed_update(
        self, group: str, version: str, resource: str, namespace: str, name: str, change: Change
    ) -> None:
        """Apply ``change`` to the object as stored until it sticks; storage errors (the
        object is gone) propagate as ``StorageError``."""
        ...

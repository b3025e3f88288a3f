"""``Written``: the objects a controller wrote whose watch events have not reached its informer
yet, so the next sync of the same key builds on its own last write instead of a stale cache
(upstream's EndpointSlice tracker makes such a sync wait and retry; reading through our own
writes gives the same safety without the round trip). Entries are dropped as soon as the
informer shows the write (an equal or newer ``resourceVersion``, or the deletion)."""

from __future__ import annotations

from collections.abc import Callable

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import final_state, meta_namespace_key
from minikube_py.client.interfaces import ResourceClient


def _revision(obj: Object) -> int:
    try:
        return int(obj["metadata"].get("resourceVersion") or 0)
    except ValueError:
        return 0


class Written:
    """Per owner key (a Service), the objects written (None: deleted) by object key."""

    def __init__(self) -> None:
        self._by_owner: dict[str, dict[str, Object | None]] = {}
        self._owner_of: dict[str, str] = {}

    def wrote(self, owner: str, obj: Object) -> None:
        key = meta_namespace_key(obj)
        self._by_owner.setdefault(owner, {})[key] = obj
        self._owner_of[key] = owner

    def deleted(self, owner: str, key: str) -> None:
        self._by_owner.setdefault(owner, {})[key] = None
        self._owner_of[key] = owner

    def observed(self, obj: Object, deleted: bool = False) -> None:
        """The informer saw ``obj`` (added, updated or, with ``deleted``, removed)."""
        key = meta_namespace_key(obj)
        owner = self._owner_of.get(key)
        if owner is None:
            return
        entries = self._by_owner.get(owner, {})
        written = entries.get(key)
        if deleted or (written is not None and _revision(obj) >= _revision(written)):
            self._forget(owner, key)

    def forget(self, owner: str, key: str) -> None:
        """Drop one pending write (it is known to be gone: a write to it answered 404)."""
        self._forget(owner, key)

    def forget_owner(self, owner: str) -> None:
        for key in self._by_owner.pop(owner, {}):
            self._owner_of.pop(key, None)

    def overlay(self, owner: str, cached: dict[str, Object]) -> dict[str, Object]:
        """``cached`` (object key -> object) with this owner's pending writes applied."""
        out = dict(cached)
        for key, obj in self._by_owner.get(owner, {}).items():
            if obj is None:
                out.pop(key, None)
            elif key not in out or _revision(obj) > _revision(out[key]):
                out[key] = obj
        return out

    def _forget(self, owner: str, key: str) -> None:
        entries = self._by_owner.get(owner, {})
        entries.pop(key, None)
        if not entries:
            self._by_owner.pop(owner, None)
        self._owner_of.pop(key, None)


async def update_or_forget(resource: ResourceClient, obj: Object, written: Written, owner: str) -> Object:
    """``resource.update(obj)``; on 404 the pending write of ``obj`` is forgotten (it was
    deleted behind the informer's back, which may never show it) before the error fails the
    sync, so the retry starts from the cache alone."""
    try:
        return await resource.update(obj)
    except ApiError as err:
        if err.code == 404:
            written.forget(owner, meta_namespace_key(obj))
        raise


def observing_handlers(
    written: Written, keys_of: Callable[[Object], list[str]], enqueue: Callable[[str], None]
) -> EventHandlerFuncs:
    """Handlers for the informer of the objects a controller writes: each event is ``observed``
    (the informer caught up with a write) and enqueues the keys ``keys_of`` gives (the owning
    Services, from the slice informer's index function)."""

    def changed(obj: Object, deleted: bool = False) -> None:
        written.observed(obj, deleted=deleted)
        for key in keys_of(obj):
            enqueue(key)

    return EventHandlerFuncs(
        add=changed,
        update=lambda _old, new: changed(new),
        delete=lambda obj: changed(final_state(obj), deleted=True),
    )

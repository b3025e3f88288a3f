"""Storage conversion: one storage shared by two API versions whose objects differ in shape.

Upstream stores every version of a kind in one (internal) form and converts at the edges. Here
most kinds are served in exactly one shape and need nothing; a strategy whose version is stored
in another version's shape (events.k8s.io/v1 Events are stored as core/v1 Events) sets
``Strategy.conversion``, and ``GenericStore`` converts every object it writes to the stored
shape and every object it returns (get, list items, watch events) to the served one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Protocol

from apiserver.storage.interface import BOOKMARK, ERROR, ObjectWatch, WatchEvent
from minikube_py.api.unstructured import Object


class StorageConversion(Protocol):
    """Both directions between a served version and the stored shape.

    ``to_storage`` gets a private object (a request body or a mutation's result) and may reuse
    its parts. ``from_storage`` gets objects the watch cache shares with every reader: it must
    not mutate them, and returns a new top-level object (nested parts may be shared, so its
    result is read-only too). Converting there and back gives an equal object, so an update
    that changes nothing is still recognised as a no-op."""

    def to_storage(self, obj: Object) -> Object: ...

    def from_storage(self, obj: Object) -> Object: ...


class ConvertedWatch:
    """A watch whose object events (ADDED, MODIFIED, DELETED) pass through ``convert``;
    BOOKMARK and ERROR events (metadata only, or a Status) pass unchanged."""

    def __init__(self, watch: ObjectWatch, convert: Callable[[Object], Object]) -> None:
        self._watch = watch
        self._convert = convert

    async def __aiter__(self) -> AsyncIterator[WatchEvent]:
        async for event in self._watch:
            if event.type in (BOOKMARK, ERROR):
                yield event
            else:
                yield WatchEvent(event.type, self._convert(event.object))

    def ready(self, limit: int) -> list[WatchEvent]:
        return [
            event if event.type in (BOOKMARK, ERROR) else WatchEvent(event.type, self._convert(event.object))
            for event in self._watch.ready(limit)
        ]

    async def close(self) -> None:
        await self._watch.close()

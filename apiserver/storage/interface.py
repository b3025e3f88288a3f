"""The ``ObjectStorage`` contract: Kubernetes objects (JSON dicts) over a KV.

Implemented by ``objects.KVObjectStorage`` (straight to the KV) and ``cacher.Cacher`` (the
watch cache, which passes writes through). Shared semantics, as upstream's
``k8s.io/apiserver/pkg/storage.Interface``:

* ``metadata.resourceVersion`` of a returned object is its KV mod revision, as a string; a
  list's resourceVersion is the store revision it was read at.
* ``resource_version`` on reads: ``""`` = most recent (a consistent read), ``"0"`` = any
  (the cache may serve it), ``"N"`` = not older than N unless ``resource_version_match`` is
  ``Exact`` (or a paged list with unset match, upstream's legacy rule).
* Watches from ``""``/``"0"`` start with synthetic ADDED events for the current state; from
  ``"N"`` they deliver every change after N. An RV below the compaction window ends the
  watch with an ERROR event carrying a 410 ``Expired`` Status.
* Objects returned by the cacher are shared: copy before mutating.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from apiserver.storage.errors import InvalidObjectError, PreconditionError
from minikube_py.api.unstructured import Object

Predicate = Callable[[Object], bool]
TryUpdate = Callable[[Object | None], Awaitable[Object]]
ValidateDeletion = Callable[[Object], Awaitable[None]]

ADDED, MODIFIED, DELETED, BOOKMARK, ERROR = "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"
INITIAL_EVENTS_END = "k8s.io/initial-events-end"


@dataclass(frozen=True, slots=True)
class Preconditions:
    """Must hold on the stored object for an update or delete to proceed."""

    uid: str | None = None
    resource_version: str | None = None

    def check(self, key: str, obj: Object) -> None:
        meta = obj.get("metadata", {})
        if self.uid is not None and self.uid != meta.get("uid"):
            raise PreconditionError(
                f"Precondition failed: UID in precondition: {self.uid}, "
                f"UID in object meta: {meta.get('uid', '')}",
                key=key,
            )
        rv = meta.get("resourceVersion")
        if self.resource_version is not None and self.resource_version != rv:
            raise PreconditionError(
                f"Precondition failed: ResourceVersion in precondition: {self.resource_version}, "
                f"ResourceVersion in object meta: {rv}",
                key=key,
            )


@dataclass(slots=True)
class ListOptions:
    """Read options for list and watch (the storage half of ``metav1.ListOptions``)."""

    resource_version: str = ""
    resource_version_match: str = ""  # "", "NotOlderThan", "Exact"
    limit: int = 0
    continue_token: str = ""
    predicate: Predicate | None = None
    # The value the field selector requires of a field (``fieldSelector=spec.nodeName=n1``:
    # "n1" for "spec.nodeName"), else None. Only a hint for indexes: ``predicate`` decides.
    exact_match: Callable[[str], str | None] | None = None
    allow_bookmarks: bool = False
    send_initial_events: bool | None = None


@dataclass(slots=True)
class ObjectList:
    items: list[Object]
    resource_version: str
    continue_token: str = ""
    remaining_item_count: int | None = None


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """``type`` is ADDED/MODIFIED/DELETED/BOOKMARK/ERROR; an ERROR's object is a Status.
    A BOOKMARK's object carries only ``metadata`` (the encoder adds apiVersion/kind)."""

    type: str
    object: Object = field(default_factory=dict)


class ObjectWatch(Protocol):
    def __aiter__(self) -> AsyncIterator[WatchEvent]: ...

    def ready(self, limit: int) -> list[WatchEvent]:
        """Up to ``limit`` more events that are already waiting, taken without suspending
        (call it only between events, while the iteration is paused at a ``yield``). The watch
        endpoint sends them with the event just received, in one write: a backlog costs one
        pass through the response chain instead of one per event. Empty when none are waiting
        or the watch cannot tell."""
        ...

    async def close(self) -> None: ...


class ObjectStorage(Protocol):
    async def create(self, key: str, obj: Object) -> Object: ...

    async def get(self, key: str, *, resource_version: str = "") -> Object:
        """Raise KeyNotFoundError when absent."""

    async def list(self, prefix: str, opts: ListOptions) -> ObjectList: ...

    async def guaranteed_update(
        self,
        key: str,
        try_update: TryUpdate,
        *,
        preconditions: Preconditions | None = None,
        ignore_not_found: bool = False,
    ) -> Object:
        """Read, check preconditions, apply ``try_update`` to a private copy and
        compare-and-swap, retrying on conflict until it sticks. ``try_update`` gets None when
        the key is absent and ``ignore_not_found``; raising from it aborts the update.
        An unchanged object is not written."""

    async def delete(
        self,
        key: str,
        *,
        preconditions: Preconditions | None = None,
        validate_deletion: ValidateDeletion | None = None,
    ) -> Object:
        """Delete once preconditions and ``validate_deletion`` pass on the latest object;
        return it with the deletion's resourceVersion."""

    def watch(self, prefix: str, opts: ListOptions) -> ObjectWatch: ...

    async def current_resource_version(self) -> int: ...


def parse_resource_version(value: str) -> int:
    """``""`` -> 0; otherwise a non-negative integer, else InvalidObjectError (400)."""
    if value == "":
        return 0
    if not value.isdigit():
        raise InvalidObjectError(f"invalid resource version: {value!r}")
    return int(value)


def encode_continue(key: str, prefix: str, revision: int) -> str:
    """Upstream's token shape: base64 of ``{"v":"meta.k8s.io/v1","rv":N,"start":"<rel>\\x00"}``."""
    body = {"v": "meta.k8s.io/v1", "rv": revision, "start": key[len(prefix) :] + "\x00"}
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


def decode_continue(token: str, prefix: str) -> tuple[str, int]:
    """Return (start key, revision); InvalidObjectError for anything malformed."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        body = json.loads(raw)
        version, revision, start = body["v"], int(body["rv"]), str(body["start"])
    except (ValueError, KeyError, TypeError) as err:
        raise InvalidObjectError(f"continue key is not valid: {err}") from err
    if version != "meta.k8s.io/v1":
        raise InvalidObjectError(
            f"continue key is not valid: incorrect encoded start resourceVersion (version {version})"
        )
    if revision <= 0:
        raise InvalidObjectError(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        )
    if start.startswith("/") or ".." in start.split("/"):
        raise InvalidObjectError("continue key is not valid: path traversal not allowed")
    return prefix + start, revision


def status_expired(message: str) -> Object:
    """The Status object of a 410 watch ERROR event."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Expired",
        "code": 410,
    }


def bookmark(revision: int, *, initial_events_end: bool = False) -> WatchEvent:
    meta: Object = {"resourceVersion": str(revision)}
    if initial_events_end:
        meta["annotations"] = {INITIAL_EVENTS_END: "true"}
    return WatchEvent(BOOKMARK, {"metadata": meta})

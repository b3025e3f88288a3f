"""What controllers, informers and node agents need from a client (ARCHITECTURE §3).

Objects are plain JSON dicts exactly as the API serves them (``Object``): the wire shape is
the contract, and dicts cost nothing to decode. Objects handed out by caches are shared:
copy before mutating.

Two implementations: ``minikube_py.client.rest.RESTClient`` (HTTP(S) to an apiserver) and
``minikube_py.testing.fakeclient.FakeClient`` (in memory, records actions, injects faults).
Errors are ``minikube_py.api.errors.ApiError`` built from the server's ``Status`` (``code``,
``reason``); a watch whose resourceVersion is too old raises ``Gone``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from minikube_py.api.errors import ApiError
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object as Object  # re-exported for callers

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"
BOOKMARK = "BOOKMARK"
ERROR = "ERROR"

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


class Gone(ApiError):
    """410: the requested resourceVersion is older than the server (or watch cache) keeps.
    A reflector answers it with a fresh list."""

    def __init__(self, message: str = "too old resource version") -> None:
        super().__init__(410, "Expired", message)


class ConnectionFailure(ApiError):
    """The request got no HTTP answer (connection refused or reset, TLS failure, timed out),
    after the client's retries. ``code`` 0 and reason ``""``, as upstream's ``ReasonForError``
    gives for errors that are not a server's ``Status``."""

    def __init__(self, message: str) -> None:
        super().__init__(0, "", message)


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One watch event: ``type`` is ADDED, MODIFIED, DELETED or BOOKMARK (an ERROR event is
    raised as an ``ApiError`` by the stream instead of being yielded)."""

    type: str
    object: Object


class ListerWatcher(Protocol):
    """List and watch one resource (in one namespace, or all when the handle has none).

    ``list`` returns the ``...List`` object (``metadata.resourceVersion``,
    ``metadata.continue``, ``items``). ``resource_version`` None means a consistent read from
    storage, ``"0"`` means any cached state. ``watch`` yields events after
    ``resource_version``; it ends when the server closes the stream (``timeout_seconds``) and
    raises ``Gone`` when that revision is no longer available.
    """

    async def list(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str | None = None,
        limit: int = 0,
        continue_: str = "",
    ) -> Object: ...

    def watch(
        self,
        *,
        resource_version: str = "",
        label_selector: str = "",
        field_selector: str = "",
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
    ) -> AsyncIterator[WatchEvent]: ...


class ResourceClient(ListerWatcher, Protocol):
    """One resource type, in ``namespace`` (None: cluster-scoped, or all namespaces for list
    and watch). Writes of a namespaced object through a handle without a namespace use the
    object's ``metadata.namespace``. Every method raises ``ApiError`` on failure."""

    @property
    def resource_type(self) -> ResourceType: ...

    @property
    def namespace(self) -> str | None: ...

    async def get(self, name: str, *, subresource: str = "") -> Object:
        """GET the object, or its ``subresource`` (``scale``: an autoscaling/v1 Scale)."""
        ...

    async def create(self, obj: Mapping[str, Any], *, field_manager: str | None = None) -> Object: ...

    async def update(
        self, obj: Mapping[str, Any], *, field_manager: str | None = None, subresource: str = ""
    ) -> Object:
        """PUT the whole object (or to ``subresource``, such as ``namespaces/finalize``); a stale
        ``metadata.resourceVersion`` gives a 409 Conflict."""
        ...

    async def update_status(self, obj: Mapping[str, Any]) -> Object:
        """PUT ``/status``: only the status is written."""
        ...

    async def patch(
        self,
        name: str,
        body: Any,
        *,
        patch_type: str = MERGE_PATCH,
        subresource: str = "",
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> Object: ...

    async def delete(
        self,
        name: str,
        *,
        propagation_policy: str | None = None,
        grace_period_seconds: int | None = None,
        preconditions: Mapping[str, str] | None = None,
    ) -> Object:
        """DELETE; returns the response body (the object, or a ``Status``)."""
        ...

    async def create_subresource(self, name: str, subresource: str, body: Mapping[str, Any]) -> Object:
        """POST to a subresource: ``pods/binding``, ``pods/eviction``, ``serviceaccounts/token``."""
        ...


class Client(Protocol):
    """Hands out resource handles; ``close`` releases connections."""

    def resource(self, resource_type: ResourceType, namespace: str | None = None) -> ResourceClient: ...

    async def close(self) -> None: ...

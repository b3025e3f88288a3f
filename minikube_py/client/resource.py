"""``RESTResource``: the ``ResourceClient`` handle of one resource type (and namespace) over a
``Requester`` (``RESTClient``). It maps each verb to upstream's path, query and body:

* ``/api/v1/...`` for the core group, ``/apis/{group}/{version}/...`` for the others;
* ``.../namespaces/{ns}/{resource}[/{name}[/{subresource}]]`` for namespaced types,
  ``.../{resource}[/{name}...]`` for cluster-scoped ones and for a namespaced list or watch
  across all namespaces (a handle without a namespace);
* a write through a handle without a namespace goes to the object's ``metadata.namespace``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol
from urllib.parse import quote

from minikube_py.api.errors import ApiError
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import MERGE_PATCH, WatchEvent
from minikube_py.jsonutil import dumps

JSON = "application/json"


class Requester(Protocol):
    """What a handle needs from the client: one request, and one watch stream."""

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
        what: str = "",
    ) -> Object: ...

    def stream_watch(
        self, path: str, params: Mapping[str, str], what: str = ""
    ) -> AsyncIterator[WatchEvent]: ...


class RESTResource:
    """One resource type over HTTP (implements ``ResourceClient``). ``namespace`` is ignored
    for cluster-scoped types."""

    def __init__(self, client: Requester, resource_type: ResourceType, namespace: str | None = None) -> None:
        self._client = client
        self._rt = resource_type
        self._namespace = namespace if resource_type.namespaced and namespace else None
        group = resource_type.group
        self._prefix = f"/apis/{group}/{resource_type.version}" if group else f"/api/{resource_type.version}"

    @property
    def resource_type(self) -> ResourceType:
        return self._rt

    @property
    def namespace(self) -> str | None:
        return self._namespace

    def __repr__(self) -> str:
        return f"RESTResource({self._rt.qualified_resource}, namespace={self._namespace!r})"

    # paths

    def collection_path(self, namespace: str | None = None) -> str:
        """The collection URL path in ``namespace`` (all namespaces, or cluster scope, if None)."""
        if self._rt.namespaced and namespace:
            return f"{self._prefix}/namespaces/{quote(namespace, safe='')}/{self._rt.resource}"
        return f"{self._prefix}/{self._rt.resource}"

    def item_path(self, name: str, namespace: str | None = None, subresource: str = "") -> str:
        path = f"{self.collection_path(namespace)}/{quote(name, safe='')}"
        return f"{path}/{subresource}" if subresource else path

    def _what(self, verb: str, name: str = "") -> str:
        return f"{verb} {self._rt.qualified_resource} {name}".rstrip()

    def _object_target(self, obj: Mapping[str, Any], verb: str) -> tuple[str, str | None]:
        """(name, namespace) a write of ``obj`` goes to."""
        metadata = obj.get("metadata") or {}
        name = str(metadata.get("name") or "")
        namespace = self._namespace
        if self._rt.namespaced and namespace is None:
            namespace = str(metadata.get("namespace") or "") or None
            if namespace is None:
                raise ApiError(
                    400,
                    "BadRequest",
                    f"cannot {verb} {self._rt.qualified_resource} {name!r}: "
                    "neither the client nor metadata.namespace names a namespace",
                )
        return name, namespace

    # ListerWatcher

    async def list(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str | None = None,
        limit: int = 0,
        continue_: str = "",
    ) -> Object:
        params = _selectors(label_selector, field_selector)
        if resource_version is not None:
            params["resourceVersion"] = resource_version
        if limit > 0:
            params["limit"] = str(limit)
        if continue_:
            params["continue"] = continue_
        path = self.collection_path(self._namespace)
        return await self._client.request("GET", path, params=params, what=self._what("list"))

    def watch(
        self,
        *,
        resource_version: str = "",
        label_selector: str = "",
        field_selector: str = "",
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
    ) -> AsyncIterator[WatchEvent]:
        """The watch stream (see ``RESTClient.stream_watch``): close it (``aclosing``) when done."""
        params = {"watch": "true", **_selectors(label_selector, field_selector)}
        if resource_version:
            params["resourceVersion"] = resource_version
        if allow_bookmarks:
            params["allowWatchBookmarks"] = "true"
        if timeout_seconds is not None:
            params["timeoutSeconds"] = str(timeout_seconds)
        path = self.collection_path(self._namespace)
        return self._client.stream_watch(path, params, self._what("watch"))

    # ResourceClient

    async def get(self, name: str, *, subresource: str = "") -> Object:
        path = self.item_path(name, self._namespace, subresource)
        return await self._client.request("GET", path, what=self._what("get", name))

    async def create(self, obj: Mapping[str, Any], *, field_manager: str | None = None) -> Object:
        name, namespace = self._object_target(obj, "create")
        return await self._client.request(
            "POST",
            self.collection_path(namespace),
            params=_manager(field_manager),
            body=dumps(obj),
            content_type=JSON,
            what=self._what("post", name),
        )

    async def update(
        self, obj: Mapping[str, Any], *, field_manager: str | None = None, subresource: str = ""
    ) -> Object:
        name, namespace = self._object_target(obj, "update")
        return await self._client.request(
            "PUT",
            self.item_path(name, namespace, subresource),
            params=_manager(field_manager),
            body=dumps(obj),
            content_type=JSON,
            what=self._what("put", name),
        )

    async def update_status(self, obj: Mapping[str, Any]) -> Object:
        name, namespace = self._object_target(obj, "update")
        return await self._client.request(
            "PUT",
            self.item_path(name, namespace, "status"),
            body=dumps(obj),
            content_type=JSON,
            what=self._what("put", name),
        )

    async def patch(
        self,
        name: str,
        body: Any,
        *,
        patch_type: str = MERGE_PATCH,
        subresource: str = "",
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> Object:
        """PATCH with ``patch_type`` as the Content-Type; ``body`` is sent as is when bytes or
        str, else as JSON (which is YAML too, for apply). An apply patch needs ``field_manager``;
        ``force`` takes its conflicting fields over."""
        params = _manager(field_manager)
        if force is not None:
            params["force"] = "true" if force else "false"
        content = body.encode() if isinstance(body, str) else body if isinstance(body, bytes) else dumps(body)
        return await self._client.request(
            "PATCH",
            self.item_path(name, self._namespace, subresource),
            params=params,
            body=content,
            content_type=patch_type,
            what=self._what("patch", name),
        )

    async def delete(
        self,
        name: str,
        *,
        propagation_policy: str | None = None,
        grace_period_seconds: int | None = None,
        preconditions: Mapping[str, str] | None = None,
    ) -> Object:
        options: dict[str, Any] = {}
        if propagation_policy is not None:
            options["propagationPolicy"] = propagation_policy
        if grace_period_seconds is not None:
            options["gracePeriodSeconds"] = grace_period_seconds
        if preconditions:
            options["preconditions"] = dict(preconditions)
        body = None
        if options:
            body = dumps({"kind": "DeleteOptions", "apiVersion": "v1", **options})
        return await self._client.request(
            "DELETE",
            self.item_path(name, self._namespace),
            body=body,
            content_type=JSON if body is not None else None,
            what=self._what("delete", name),
        )

    async def create_subresource(self, name: str, subresource: str, body: Mapping[str, Any]) -> Object:
        namespace = self._namespace
        if self._rt.namespaced and namespace is None:
            namespace = str((body.get("metadata") or {}).get("namespace") or "") or None
        return await self._client.request(
            "POST",
            self.item_path(name, namespace, subresource),
            body=dumps(body),
            content_type=JSON,
            what=self._what("post", name),
        )


def _selectors(label_selector: str, field_selector: str) -> dict[str, str]:
    params: dict[str, str] = {}
    if label_selector:
        params["labelSelector"] = label_selector
    if field_selector:
        params["fieldSelector"] = field_selector
    return params


def _manager(field_manager: str | None) -> dict[str, str]:
    return {"fieldManager": field_manager} if field_manager else {}

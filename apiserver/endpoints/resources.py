"""The resource endpoints: every verb on every resource of the catalog, one ASGI app.

``/api/v1/...`` and ``/apis/{group}/{version}/...`` requests arrive with their ``RequestInfo``;
this module picks the store, decodes, calls the registry and encodes (JSON object or list, a
Table when asked, or a watch stream). Every failure is an ``ApiError`` rendered as a Status.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from apiserver.admission import warnings as admission_warnings
from apiserver.authn.config import SETUP_KEY, AuthenticationSetup
from apiserver.endpoints import body as bodies
from apiserver.endpoints import metrics, podconnect, proxy, subresources, tokenrequest
from apiserver.endpoints.encoding import ENCODED, JSONResponse, list_body, with_type
from apiserver.endpoints.ephemeralcontainers import ephemeral_containers
from apiserver.endpoints.fieldvalidation import FieldValidation
from apiserver.endpoints.finalize import finalize
from apiserver.endpoints.listing import list_options, resource_version_error
from apiserver.endpoints.ownership import ApplyRequest, apply_to_store, field_manager, manager_name, tracker
from apiserver.endpoints.patching import APPLY_PATCH
from apiserver.endpoints.pretty import prettify, wants_pretty
from apiserver.endpoints.requestbody import read_body
from apiserver.endpoints.reviews import create_review
from apiserver.endpoints.table import table_version, to_table
from apiserver.endpoints.typecheck import typed_object, typed_patch
from apiserver.endpoints.warningheaders import add_warnings
from apiserver.endpoints.watch import OpenWatches, watch_response
from apiserver.nodeproxy import SCOPE_KEY, NodeConnection
from apiserver.registry.catalog import Catalog
from apiserver.registry.reviews import Creater
from apiserver.registry.store import GenericStore
from apiserver.request.context import current_request_info
from apiserver.request.info import RequestInfo, request_info
from apiserver.request.queryparams import first_values
from apiserver.serving import MIN_REQUEST_TIMEOUT
from apiserver.storage.interface import ObjectList
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

log = logging.getLogger("apiserver")

NOT_FOUND = "the server could not find the requested resource"
# Subresources with their own handlers: (request, store, verb, namespace, name) -> Response.
ACTIONS: dict[str, subresources.Handler] = {
    "scale": subresources.scale,
    "binding": subresources.binding,
    "eviction": subresources.eviction,
    "log": podconnect.log,
    "exec": podconnect.exec_,
    "attach": podconnect.attach,
    "portforward": podconnect.portforward,
    "proxy": proxy.proxy,
    "finalize": finalize,
    "token": tokenrequest.token_request,
    "ephemeralcontainers": ephemeral_containers,
}
SERVED_SUBRESOURCES = ("status", *ACTIONS)


def status_json(err: errors.ApiError) -> Response:
    headers = {"Retry-After": str(err.retry_after)} if err.retry_after else None
    return JSONResponse(err.status(), status_code=err.code, headers=headers)


class ResourceEndpoints:
    """ASGI app serving resource requests (``RequestInfo.is_resource_request``). ``nodes`` is
    how the pod connection subresources reach node agents (``podconnect``); a watch without
    ``timeoutSeconds`` lasts ``min_request_timeout`` to twice that (``watch``). ``reviews`` are
    the create-only review resources by (group, version, resource); ``authentication`` is what
    ``serviceaccounts/token`` signs with (``tokenrequest``)."""

    def __init__(
        self,
        catalog: Catalog,
        watches: OpenWatches | None = None,
        nodes: NodeConnection | None = None,
        *,
        min_request_timeout: float = MIN_REQUEST_TIMEOUT,
        reviews: Mapping[tuple[str, str, str], Creater] | None = None,
        authentication: AuthenticationSetup | None = None,
    ) -> None:
        self.catalog = catalog
        self.reviews = reviews or {}
        self.authentication = authentication
        self.watches = watches or OpenWatches()
        self.min_request_timeout = min_request_timeout
        self.nodes = (nodes or NodeConnection()).with_nodes(self._get_node)
        self.metrics = metrics.MetricsAPI(catalog, self.nodes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[SCOPE_KEY] = self.nodes
        scope[proxy.CATALOG_KEY] = self.catalog
        scope[SETUP_KEY] = self.authentication
        request = Request(scope, receive)
        info = current_request_info.get() or request_info(
            request.method, request.url.path, first_values(request.query_params.multi_items())
        )
        review = self.reviews.get((info.api_group, info.api_version, info.resource))
        if review is not None:  # create-only, stored nowhere: its storage answers
            try:
                response = await create_review(request, info, review)
            except errors.ApiError as err:
                response = status_json(err)
            await response(scope, receive, send)
            return
        warned = admission_warnings.collect()
        try:
            response = await self.dispatch(request, info)
        except errors.ApiError as err:
            response = status_json(err)
        except Exception as err:  # a bug must still answer with a Status, never a bare 500
            log.exception("%s %s failed", request.method, request.url.path)
            response = status_json(errors.internal(f"{type(err).__name__}: {err}"))
        add_warnings(response, warned)
        if wants_pretty(
            scope.get("query_string", b"").decode("latin-1"), request.headers.get("user-agent", "")
        ):
            response = prettify(response)
        await response(scope, receive, send)

    async def dispatch(self, request: Request, info: RequestInfo) -> Response:
        if info.api_group == metrics.GROUP:  # computed from the node agents, stored nowhere
            return await self.metrics.serve(request, info)
        store = self._store(info)
        query = first_values(request.query_params.multi_items())
        namespace = info.namespace if store.rt.namespaced else ""
        if info.subresource in ACTIONS:
            handler = ACTIONS[info.subresource]
            return await handler(request, store, info.verb, namespace, info.name)
        if info.verb == "list":
            return await self._list(request, store, namespace, query)
        if info.verb == "watch":
            if info.name:  # a watch of one object: upstream adds a metadata.name selector
                selector = f"metadata.name={info.name}"
                query["fieldSelector"] = ",".join(filter(None, [query.get("fieldSelector"), selector]))
            return watch_response(request, store, namespace, query, self.watches, self.min_request_timeout)
        if info.verb == "create":
            return await self._create(request, store, namespace, query)
        if info.verb == "get":
            rv = query.get("resourceVersion", "")
            if (problem := resource_version_error(rv)) is not None:
                raise errors.bad_request(str(problem))  # upstream: its storage error, unconverted (500)
            obj = await store.get(namespace, info.name, rv)
            return self._encode(request, store, obj)
        if info.verb in ("update", "patch"):
            return await self._update(request, store, info, namespace, query)
        if info.verb == "delete":
            return await self._delete(request, store, namespace, info.name, query)
        if info.verb == "deletecollection" and "deletecollection" in store.rt.verbs:
            return await self._delete_collection(request, store, namespace, query)
        raise errors.method_not_supported(store.rt.resource, store.rt.group, info.verb)

    async def _delete(
        self, request: Request, store: GenericStore, namespace: str, name: str, query: dict[str, str]
    ) -> Response:
        """The object kept, or the one removed (a ``Status`` for most kinds, never a Table)."""
        options = bodies.delete_options(await read_body(request), query, request.headers.get("content-type"))
        done = await store.delete_reporting(namespace, name, options)
        accepted = not done.deleted and options.orphan_dependents is False  # upstream's only 202
        code = 202 if accepted else 200
        if done.status is not None:
            return JSONResponse(done.status, status_code=code)
        return self._encode(request, store, done.object, status_code=code)

    async def _delete_collection(
        self, request: Request, store: GenericStore, namespace: str, query: dict[str, str]
    ) -> Response:
        """Delete every object the selectors match (one list, then one delete each); the answer
        is that list, as listed (upstream's ``DeleteCollection``)."""
        options = bodies.delete_options(await read_body(request), query, request.headers.get("content-type"))
        listed = await store.list(namespace, list_options(query, store.strategy))
        for obj in listed.items:
            meta = obj["metadata"]
            try:
                await store.delete(meta.get("namespace", ""), meta["name"], options)
            except errors.ApiError as err:
                if err.reason != "NotFound":
                    raise
        return self._list_response(store, listed)

    async def _get_node(self, name: str) -> Object:
        nodes = self.catalog.store("", "v1", "nodes")
        if nodes is None:
            raise errors.not_found("nodes", name)
        return await nodes.get("", name)

    def _store(self, info: RequestInfo) -> GenericStore:
        store = self.catalog.store(info.api_group, info.api_version, info.resource)
        if store is None:
            raise errors.ApiError(404, "NotFound", NOT_FOUND)
        if info.subresource and info.subresource not in SERVED_SUBRESOURCES:
            raise errors.ApiError(404, "NotFound", NOT_FOUND)
        if info.subresource and store.rt.subresource(info.subresource) is None:
            raise errors.ApiError(404, "NotFound", NOT_FOUND)
        if store.rt.namespaced and info.name and not info.namespace:
            raise errors.ApiError(404, "NotFound", NOT_FOUND)
        if not store.rt.namespaced and info.namespace and info.resource != "namespaces":
            raise errors.ApiError(404, "NotFound", NOT_FOUND)  # never served under /namespaces/
        if store.rt.namespaced and not info.namespace and info.verb not in ("list", "watch"):
            raise errors.method_not_supported(store.rt.resource, store.rt.group, info.verb)
        if info.name and not info.subresource and info.verb == "create":
            raise errors.method_not_supported(store.rt.resource, store.rt.group, info.verb)
        if info.subresource == "status" and info.verb not in ("get", "update", "patch"):
            raise errors.method_not_supported(store.rt.resource, store.rt.group, info.verb)
        return store

    async def _list(
        self, request: Request, store: GenericStore, namespace: str, query: dict[str, str]
    ) -> Response:
        result = await store.list(namespace, list_options(query, store.strategy))
        version = table_version(request.headers.get("accept", ""))
        if version is not None:
            table = to_table(
                store.strategy,
                result.items,
                version=version,
                include_object=query.get("includeObject", ""),
                resource_version=result.resource_version,
                continue_token=result.continue_token,
            )
            return JSONResponse(table)
        return self._list_response(store, result)

    def _list_response(self, store: GenericStore, result: ObjectList) -> Response:
        meta: dict[str, Any] = {"resourceVersion": result.resource_version}
        if result.continue_token:
            meta["continue"] = result.continue_token
        if result.remaining_item_count is not None:
            meta["remainingItemCount"] = result.remaining_item_count
        encode, api_version, kind = ENCODED.encode, store.rt.api_version, store.rt.kind
        items = [encode(obj, api_version, kind) for obj in result.items]
        body = list_body(store.rt.list_kind, store.rt.api_version, meta, items)
        return Response(body, media_type="application/json")

    async def _create(
        self, request: Request, store: GenericStore, namespace: str, query: dict[str, str]
    ) -> Response:
        dry_run = bodies.dry_run(query, "CreateOptions")
        fields = FieldValidation(store.rt, query, "CreateOptions")
        raw = await read_body(request)
        obj = typed_object(store.rt, raw, request.headers.get("content-type"))
        fields.check_object(obj)
        track = tracker(field_manager(store), manager_name(request, query, "CreateOptions"))
        created = await store.create(namespace, obj, dry_run=dry_run, track=track)
        return fields.respond(self._encode(request, store, created, status_code=201))

    async def _update(
        self,
        request: Request,
        store: GenericStore,
        info: RequestInfo,
        namespace: str,
        query: dict[str, str],
    ) -> Response:
        raw = await read_body(request)
        options_kind = "PatchOptions" if info.verb == "patch" else "UpdateOptions"
        dry_run = bodies.dry_run(query, options_kind)
        fields = FieldValidation(store.rt, query, options_kind)
        if info.verb == "patch" and bodies.media_type(request.headers.get("content-type")) == APPLY_PATCH:
            return await self._apply(request, store, info, namespace, query, raw)
        manager = manager_name(request, query, options_kind)
        if info.verb == "patch":
            mutate = fields.check_patch(typed_patch(store.rt, request.headers.get("content-type"), raw), raw)
        else:
            mutate = fields.check_update(typed_object(store.rt, raw, request.headers.get("content-type")))

        updated = await store.update(
            namespace,
            info.name,
            mutate,
            subresource=info.subresource,
            dry_run=dry_run,
            track=tracker(field_manager(store, info.subresource), manager),
        )
        return fields.respond(self._encode(request, store, updated))

    async def _apply(
        self,
        request: Request,
        store: GenericStore,
        info: RequestInfo,
        namespace: str,
        query: dict[str, str],
        raw: bytes,
    ) -> Response:
        """Server-side apply (``ownership``): 201 when it created the object, else 200."""
        apply = ApplyRequest.parse(store, info.subresource, request, query, raw)
        dry_run = bodies.dry_run(query, "PatchOptions")
        obj, created = await apply_to_store(store, namespace, info.name, info.subresource, apply, dry_run)
        return self._encode(request, store, obj, status_code=201 if created else 200)

    def _encode(self, request: Request, store: GenericStore, obj: Object, status_code: int = 200) -> Response:
        version = table_version(request.headers.get("accept", ""))
        if version is not None:
            include = request.query_params.get("includeObject", "")
            return JSONResponse(
                to_table(store.strategy, [obj], version=version, include_object=include),
                status_code=status_code,
            )
        return JSONResponse(_with_kind(store, obj), status_code=status_code)


def _with_kind(store: GenericStore, obj: Object) -> Object:
    return with_type(obj, store.rt.api_version, store.rt.kind)

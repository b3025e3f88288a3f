"""Routes ``/api`` and ``/apis`` requests: discovery for the group and version paths, the
resource endpoints for the rest. Everything else goes to the non-resource app (health,
version, OpenAPI)."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.authn.config import AuthenticationSetup
from apiserver.endpoints import discovery
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.pretty import prettify, wants_pretty
from apiserver.endpoints.resources import NOT_FOUND, ResourceEndpoints, status_json
from apiserver.endpoints.watch import OpenWatches
from apiserver.nodeproxy import NodeConnection
from apiserver.registry.catalog import Catalog
from apiserver.registry.reviews import Creater
from apiserver.request.context import current_request_info
from apiserver.request.info import request_info
from apiserver.request.queryparams import first_values
from apiserver.serving import MIN_REQUEST_TIMEOUT
from minikube_py.api import errors


class APIRouter:
    def __init__(
        self,
        catalog: Catalog,
        other: ASGIApp,
        watches: OpenWatches | None = None,
        nodes: NodeConnection | None = None,
        *,
        min_request_timeout: float = MIN_REQUEST_TIMEOUT,
        reviews: Mapping[tuple[str, str, str], Creater] | None = None,
        authentication: AuthenticationSetup | None = None,
    ) -> None:
        self.catalog = catalog
        self.resources = ResourceEndpoints(
            catalog,
            watches,
            nodes,
            min_request_timeout=min_request_timeout,
            reviews=reviews,
            authentication=authentication,
        )
        self.other = other

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path in ("/api", "/apis") or path.startswith(("/api/", "/apis/"))):
            await self.other(scope, receive, send)
            return
        info = current_request_info.get()
        if info is None:  # served without the request info filter (tests of the endpoints alone)
            request = Request(scope)
            info = request_info(request.method, path, first_values(request.query_params.multi_items()))
            current_request_info.set(info)
        if info.is_resource_request:
            await self.resources(scope, receive, send)
            return
        request = Request(scope, receive)
        response = self.discover(request, path)
        if wants_pretty(
            scope.get("query_string", b"").decode("latin-1"), request.headers.get("user-agent", "")
        ):
            response = prettify(response)
        await response(scope, receive, send)

    def discover(self, request: Request, path: str) -> Response:
        if request.method not in ("GET", "HEAD"):
            return status_json(
                errors.ApiError(
                    405, "MethodNotAllowed", "the server does not allow this method on the requested resource"
                )
            )
        scheme = self.catalog.scheme
        parts = [p for p in path.strip("/").split("/") if p]
        if parts == ["api"]:
            return discovery.discovery_response(scheme, request, legacy=True)
        if parts == ["apis"]:
            return discovery.discovery_response(scheme, request, legacy=False)
        if parts[0] == "api" and len(parts) == 2:
            body = discovery.api_resource_list(scheme, "", parts[1])
        elif parts[0] == "apis" and len(parts) == 3:
            body = discovery.api_resource_list(scheme, parts[1], parts[2])
        elif parts[0] == "apis" and len(parts) == 2:
            group = discovery.api_group_list(scheme)["groups"]
            body = next(
                (dict(g, kind="APIGroup", apiVersion="v1") for g in group if g["name"] == parts[1]), None
            )
        else:
            body = None
        if body is None:
            return status_json(errors.ApiError(404, "NotFound", NOT_FOUND))
        return JSONResponse(body)

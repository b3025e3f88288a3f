"""The ``proxy`` subresources of pods, services and nodes (upstream's ``ProxyREST`` of each
registry): ``/api/v1/namespaces/{ns}/pods/{[scheme:]name[:port]}/proxy[/{path}]``, the same
for ``services``, and ``/api/v1/nodes/{[scheme:]name[:port]}/proxy[/{path}]``.

Every method upstream proxies is served (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS),
authorized like any request on the subresource: ``get`` (GET, HEAD), ``create``, ``update``,
``patch``, ``delete`` or ``options`` on ``pods/proxy`` and the name as written in the URL
(``web:8080``). A request goes:

1. to its target (``proxylocation``: the pod's IP, a ready endpoint of the Service, the node
   agent), or the Status of why not (404 for a missing object, 400 ``address not allowed``,
   503 ``no endpoints available for service "web"``...);
2. at the path after ``/proxy``, cleaned as Go's ``path.Join`` cleans it, its trailing slash
   kept, with the request's query as it came (a ``path`` parameter is ignored, as upstream
   ignores it when the URL has a path). A GET or HEAD of ``.../proxy`` itself, with no path at
   all, is upstream's ``301`` to ``.../proxy/``;
3. through the reverse proxy (``proxyforward``): streamed both ways, links rewritten, upgrades
   tunnelled.
"""

from __future__ import annotations

import posixpath

from starlette.requests import Request
from starlette.responses import Response

from apiserver.endpoints.proxyforward import forward, is_upgrade_request
from apiserver.endpoints.proxylocation import ProxyTarget, node_location, pod_location, service_location
from apiserver.nodeproxy import node_connection
from apiserver.registry.catalog import Catalog
from apiserver.registry.store import GenericStore
from apiserver.request.context import current_request_info
from apiserver.request.info import request_info
from minikube_py.api import errors

# The key under which ResourceEndpoints hands its catalog to this subresource (services/proxy
# reads the Service, its Endpoints and their pods).
CATALOG_KEY = "proxy_catalog"
# upstream's proxyMethods, by the verb the request info gives each
PROXY_VERBS = {"get", "create", "update", "patch", "delete", "options"}


async def proxy(request: Request, store: GenericStore, verb: str, namespace: str, name: str) -> Response:
    if verb not in PROXY_VERBS:
        raise errors.ApiError(
            405, "MethodNotAllowed", "the server does not allow this method on the requested resource"
        )
    target = await _locate(request, store, namespace, name)
    request_path = request.url.path
    path = join_preserving_trailing_slash(_subpath(request))
    if request_path.endswith("/") and not path.endswith("/"):
        path += "/"
    upgrade = is_upgrade_request(request)
    if not path and request.method in ("GET", "HEAD") and not upgrade:
        query = f"?{request.url.query}" if request.url.query else ""
        return Response(status_code=301, headers={"Location": f"{request_path}/{query}"})
    suffix = path + ("/" if request_path.endswith("/") and not path.endswith("/") else "")
    prefix = request_path.removesuffix(suffix) if suffix else request_path
    return await forward(request, target, path, prefix)


async def _locate(request: Request, store: GenericStore, namespace: str, name: str) -> ProxyTarget:
    resource = store.rt.resource
    if resource == "pods":
        return await pod_location(store, namespace, name)
    if resource == "services":
        catalog = request.scope.get(CATALOG_KEY)
        if not isinstance(catalog, Catalog):
            raise errors.internal("no catalog for this request")
        return await service_location(catalog, namespace, name)
    if resource == "nodes":
        return await node_location(node_connection(request.scope), name)
    raise errors.ApiError(404, "NotFound", "the server could not find the requested resource")


def _subpath(request: Request) -> str:
    """Upstream's subpath option: the request info's parts after the subresource, with a
    leading slash, and a trailing one when the request path has one."""
    info = current_request_info.get()
    if info is None or info.subresource != "proxy":
        info = request_info(request.method, request.url.path, {})
    rest = "/".join(info.parts[3:])
    if rest and not rest.startswith("/"):
        rest = "/" + rest
    if request.url.path.endswith("/") and not rest.endswith("/"):
        rest += "/"
    return rest


def join_preserving_trailing_slash(path: str) -> str:
    """Go's ``path.Join("", path)`` (cleaned: ``..`` and ``//`` resolved; ``""`` stays empty)
    with the trailing slash put back (upstream's ``JoinPreservingTrailingSlash``)."""
    if not path:
        return ""
    cleaned = posixpath.normpath(path)
    if cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")
    if path.endswith("/") and not cleaned.endswith("/"):
        cleaned += "/"
    return cleaned

"""The create handler of the review resources (``apiserver.registry.reviews``): POST to the
collection only (404 for a name, a subresource or the wrong scope; 405 for another method),
the body decoded as any create's (JSON, YAML, protobuf), its kind checked, 201 with the
answered review. Nothing is stored, so nothing else of a create applies."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from apiserver.endpoints import body as bodies
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.requestbody import read_body
from apiserver.registry.reviews import Creater
from apiserver.request.info import RequestInfo
from minikube_py.api import errors

NOT_FOUND = "the server could not find the requested resource"
METHOD_NOT_ALLOWED = "the server does not allow this method on the requested resource"


async def create_review(request: Request, info: RequestInfo, storage: Creater) -> Response:
    if info.name or info.subresource or bool(info.namespace) != storage.namespaced:
        raise errors.ApiError(404, "NotFound", NOT_FOUND)
    if request.method != "POST":
        raise errors.ApiError(405, "MethodNotAllowed", METHOD_NOT_ALLOWED)
    obj = bodies.decode_object(await read_body(request), request.headers.get("content-type"))
    bodies.check_kind(obj, f"{info.api_group}/{info.api_version}", storage.kind)
    return JSONResponse(await storage.create(obj, info.namespace), status_code=201)

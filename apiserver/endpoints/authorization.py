"""The ``authorization.k8s.io`` endpoints: the four access reviews (``apiserver.authz.reviews``),
create-only and stored nowhere. ``AuthorizationAPI`` sits innermost in the chain, after the
authorization filter, answers these resources itself and hands everything else on."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.authz import reviews
from apiserver.authz.factory import Authz
from apiserver.endpoints import body as bodies
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.requestbody import read_body
from apiserver.endpoints.resources import NOT_FOUND, status_json
from apiserver.request.context import current_request_info, current_user
from apiserver.request.info import RequestInfo
from minikube_py.api import errors

GROUP = reviews.GROUP
# resource -> (kind, namespaced)
REVIEWS = {
    "subjectaccessreviews": ("SubjectAccessReview", False),
    "selfsubjectaccessreviews": ("SelfSubjectAccessReview", False),
    "localsubjectaccessreviews": ("LocalSubjectAccessReview", True),
    "selfsubjectrulesreviews": ("SelfSubjectRulesReview", False),
}
METHOD_NOT_ALLOWED = "the server does not allow this method on the requested resource"


class AuthorizationAPI:
    def __init__(self, app: ASGIApp, authz: Authz) -> None:
        self.app = app
        self.authz = authz

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        info = current_request_info.get()
        review = REVIEWS.get(info.resource) if info is not None and info.api_group == GROUP else None
        if scope["type"] != "http" or info is None or not info.is_resource_request or review is None:
            await self.app(scope, receive, send)
            return
        try:
            response = await self._review(Request(scope, receive), info, *review)
        except errors.ApiError as err:
            response = status_json(err)
        await response(scope, receive, send)

    async def _review(self, request: Request, info: RequestInfo, kind: str, namespaced: bool) -> Response:
        if info.api_version != "v1" or info.name or info.subresource or bool(info.namespace) != namespaced:
            raise errors.ApiError(404, "NotFound", NOT_FOUND)
        if request.method != "POST":
            raise errors.ApiError(405, "MethodNotAllowed", METHOD_NOT_ALLOWED)
        obj = bodies.decode_object(await read_body(request), request.headers.get("content-type"))
        bodies.check_kind(obj, f"{GROUP}/v1", kind)
        user = current_user.get()
        await self.authz.catch_up()  # answer from the policy as stored now, not as cached
        if kind == "SelfSubjectRulesReview":
            answered = reviews.rules_review(self.authz, obj, user)
        else:
            answered = reviews.access_review(self.authz, kind, obj, user, info.namespace)
        return JSONResponse(answered, status_code=201)

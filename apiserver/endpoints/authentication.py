"""The ``authentication.k8s.io`` endpoints: ``TokenReview`` (is this token valid, and whose
is it) and ``SelfSubjectReview`` (who am I), both create-only and stored nowhere (upstream's
``pkg/registry/authentication``). ``AuthenticationAPI`` sits innermost in the chain, after
authorization, answers these two resources itself and hands everything else on, with the
``AuthenticationSetup`` (the service-account token generator) in the scope for ``serviceaccounts/token``
(``apiserver.endpoints.tokenrequest``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.authn.authenticator import INVALID_BEARER_TOKEN, AuthenticationError, with_authenticated_group
from apiserver.authn.config import SETUP_KEY, AuthenticationSetup, build_authentication
from apiserver.endpoints import body as bodies
from apiserver.endpoints.encoding import JSONResponse
from apiserver.endpoints.requestbody import read_body
from apiserver.endpoints.resources import NOT_FOUND, status_json
from apiserver.lookup import Lookup
from apiserver.request.context import current_request_info, current_user
from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo
from apiserver.security import SecurityConfig
from minikube_py.api import errors

GROUP = "authentication.k8s.io"
REVIEWS = {("v1", "tokenreviews"): "TokenReview", ("v1", "selfsubjectreviews"): "SelfSubjectReview"}
REVIEWS[("v1beta1", "selfsubjectreviews")] = "SelfSubjectReview"
METHOD_NOT_ALLOWED = "the server does not allow this method on the requested resource"


def user_info(user: UserInfo) -> dict[str, Any]:
    """An ``authentication.k8s.io`` UserInfo (empty fields left out)."""
    out: dict[str, Any] = {}
    if user.name:
        out["username"] = user.name
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {k: list(v) for k, v in user.extra.items()}
    return out


class AuthenticationAPI:
    def __init__(
        self,
        app: ASGIApp,
        security: SecurityConfig | None = None,
        lookup: Lookup | None = None,
        *,
        setup: AuthenticationSetup | None = None,
    ) -> None:
        self.app = app
        self.setup = setup or build_authentication(security or SecurityConfig(), lookup)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        info = current_request_info.get()
        if scope["type"] != "http" or info is None or not info.is_resource_request or info.api_group != GROUP:
            scope[SETUP_KEY] = self.setup
            await self.app(scope, receive, send)
            return
        kind = REVIEWS.get((info.api_version, info.resource))
        if kind is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        try:
            response = await self._review(request, info, kind)
        except errors.ApiError as err:
            response = status_json(err)
        await response(scope, receive, send)

    async def _review(self, request: Request, info: RequestInfo, kind: str) -> Response:
        if info.name or info.subresource or info.namespace:
            raise errors.ApiError(404, "NotFound", NOT_FOUND)
        if request.method != "POST":
            raise errors.ApiError(405, "MethodNotAllowed", METHOD_NOT_ALLOWED)
        obj = bodies.decode_object(await read_body(request), request.headers.get("content-type"))
        api_version = f"{GROUP}/{info.api_version}"
        bodies.check_kind(obj, api_version, kind)
        if kind == "TokenReview":
            return JSONResponse(await self.token_review(obj), status_code=201)
        user = current_user.get()
        return JSONResponse(self_subject_review(api_version, user), status_code=201)

    async def token_review(self, review: dict[str, Any]) -> dict[str, Any]:
        """The review with its status (upstream: the request authenticator on a request that
        carries nothing but the token)."""
        spec = review.get("spec") or {}
        token = spec.get("token") or ""
        if not isinstance(token, str) or not token:
            raise errors.bad_request("token is required for TokenReview in authentication")
        audiences = list(spec.get("audiences") or []) or list(self.setup.api_audiences)
        status: dict[str, Any] = {"user": {}}
        try:
            result = await self.setup.tokens.authenticate_token(token, audiences)
            if result is None:
                raise AuthenticationError(INVALID_BEARER_TOKEN)
        except AuthenticationError as err:
            status["error"] = str(err)
        else:
            if audiences and not set(audiences) & set(result.audiences):
                raise errors.internal("error validating audiences")
            status = {"authenticated": True, "user": user_info(with_authenticated_group(result.user))}
            if result.audiences:
                status["audiences"] = list(result.audiences)
        metadata = dict(review.get("metadata") or {})
        metadata.setdefault("creationTimestamp", None)
        out_spec = {k: spec[k] for k in ("token", "audiences") if spec.get(k)}
        return {
            "kind": "TokenReview",
            "apiVersion": review["apiVersion"],
            "metadata": metadata,
            "spec": out_spec,
            "status": status,
        }


def self_subject_review(api_version: str, user: UserInfo) -> dict[str, Any]:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "kind": "SelfSubjectReview",
        "apiVersion": api_version,
        "metadata": {"creationTimestamp": now},
        "status": {"userInfo": user_info(user)},
    }

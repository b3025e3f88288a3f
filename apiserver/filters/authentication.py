"""Authentication: who is asking (upstream's ``WithAuthentication``). Sets ``current_user``
(the request context) to the ``UserInfo`` that ``apiserver.authn`` established, and drops the
``Authorization`` header once it has served (no handler ever sees the credential). A
presented credential that is not valid, or no credential while anonymous requests are off,
is a 401 ``Unauthorized`` Status, as upstream writes it."""

from __future__ import annotations

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.authn.authenticator import AuthenticationError
from apiserver.authn.config import AuthenticationSetup, build_authentication
from apiserver.filters.audit import audit_failed_authentication
from apiserver.lookup import Lookup
from apiserver.request.context import current_user
from apiserver.security import SecurityConfig
from minikube_py.jsonutil import dumps_document

UNAUTHORIZED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Unauthorized",
    "reason": "Unauthorized",
    "code": 401,
}


def unauthorized() -> Response:
    return Response(dumps_document(UNAUTHORIZED), status_code=401, media_type="application/json")


class Authentication:
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
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            user = await self.setup.requests.authenticate(scope)
        except AuthenticationError:
            user = None
        if user is None:
            await unauthorized()(scope, receive, audit_failed_authentication(scope, send))
            return
        current_user.set(user)
        headers = scope.get("headers") or []
        scope["headers"] = [(k, v) for k, v in headers if k.lower() != b"authorization"]
        await self.app(scope, receive, send)

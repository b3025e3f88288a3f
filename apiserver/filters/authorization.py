"""Authorization: may the request's user do what it asks? Asks the configured authorizer union
(``apiserver.authz``) with the request's attributes; a request no authorizer allows ends here
with upstream's 403. The decision and its reason (which binding, role and rule allowed it) are
recorded as the audit annotations ``authorization.k8s.io/decision`` and ``.../reason``.

It also makes the authorizer available to the handler for the request (``current_authz``):
the RBAC strategies' escalation checks and the access reviews ask it.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.authz.attributes import Attributes, attributes_for
from apiserver.authz.factory import Authz, current_authz, lookup_caches, new_authz
from apiserver.authz.forbidden import forbidden_error
from apiserver.authz.policycache import RBAC_GROUP
from apiserver.endpoints.encoding import JSONResponse
from apiserver.lookup import Lookup
from apiserver.request.context import annotate, current_request_info, current_user
from apiserver.request.info import request_info
from apiserver.security import SecurityConfig
from minikube_py.api.errors import ApiError

DECISION = "authorization.k8s.io/decision"
REASON = "authorization.k8s.io/reason"
RBAC_WRITES = ("create", "update", "patch")
NO_MATCH = "no authorizer allowed the request (no RBAC rule matched)"


def request_attributes(scope: Scope) -> Attributes:
    query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
    info = current_request_info.get() or request_info(scope["method"], scope["path"], query)
    return attributes_for(current_user.get(), info, query)


async def send_status(err: ApiError, scope: Scope, receive: Receive, send: Send) -> None:
    await JSONResponse(err.status(), status_code=err.code)(scope, receive, send)


class Authorization:
    def __init__(self, app: ASGIApp, authz: Authz) -> None:
        self.app = app
        self.authz = authz

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        attrs = request_attributes(scope)
        result = self.authz.authorizer.authorize(attrs)
        if not result.allowed and await self.authz.catch_up():
            result = self.authz.authorizer.authorize(attrs)
        if not result.allowed:
            annotate(DECISION, "forbid")
            annotate(REASON, result.reason or NO_MATCH)
            await send_status(forbidden_error(attrs, result.reason), scope, receive, send)
            return
        annotate(DECISION, "allow")
        annotate(REASON, result.reason)
        if attrs.api_group == RBAC_GROUP and attrs.verb in RBAC_WRITES:
            await self.authz.catch_up()  # the escalation checks read roles written just before
        token = current_authz.set(self.authz)
        try:
            await self.app(scope, receive, send)
        finally:
            current_authz.reset(token)


def new_authorizer(security: SecurityConfig, lookup: Lookup | None) -> Authz:
    """The configured union; modes other than AlwaysAllow/AlwaysDeny read watch caches."""
    modes = security.authorization_modes
    if lookup is None:
        if set(modes) - {"AlwaysAllow", "AlwaysDeny"}:
            raise ValueError(f"authorization modes {','.join(modes)} need the resource catalog")
        return new_authz(modes, {})
    return new_authz(modes, lookup_caches(lookup))

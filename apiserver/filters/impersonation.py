"""Impersonation: a request with ``Impersonate-User`` (and ``-Group``, ``-Uid``,
``-Extra-<key>``) acts as that user when its own user may ``impersonate`` each part
(``apiserver.authz.impersonation``); otherwise upstream's 403 for the first part refused. The
headers are removed, and the rest of the chain sees the impersonated user; the scope that
audit (outside this filter) holds keeps the requester as ``user`` and gets the impersonated one
as ``impersonated_user``, as upstream's audit events record both."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.authz.factory import Authz
from apiserver.authz.forbidden import forbidden_error
from apiserver.authz.impersonation import EXTRA_PREFIX, Impersonation
from apiserver.filters.authorization import send_status
from apiserver.request.context import current_user
from minikube_py.api.errors import ApiError

WITHOUT_USER = "requested impersonation of groups, uid or extra without impersonating a user"
HEADERS = ("impersonate-user", "impersonate-group", "impersonate-uid")


def _is_impersonation_header(name: bytes) -> bool:
    lowered = name.decode("latin-1").lower()
    return lowered in HEADERS or lowered.startswith(EXTRA_PREFIX)


class ImpersonationFilter:
    def __init__(self, app: ASGIApp, authz: Authz) -> None:
        self.app = app
        self.authz = authz

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        wanted = Impersonation.from_headers(scope.get("headers", [])) if scope["type"] == "http" else None
        if wanted is None:
            await self.app(scope, receive, send)
            return
        requester = current_user.get()
        if not wanted.user:
            message = f"Internal error occurred: {WITHOUT_USER}"
            await send_status(ApiError(500, "InternalError", message), scope, receive, send)
            return
        for attrs in wanted.checks(requester):
            result = self.authz.authorizer.authorize(attrs)
            if not result.allowed and await self.authz.catch_up():
                result = self.authz.authorizer.authorize(attrs)
            if not result.allowed:
                await send_status(forbidden_error(attrs, result.reason), scope, receive, send)
                return
        user = scope["impersonated_user"] = wanted.user_info()
        headers = [(k, v) for k, v in scope.get("headers", []) if not _is_impersonation_header(k)]
        inner = {**scope, "headers": headers}
        current_user.set(user)
        await self.app(inner, receive, send)

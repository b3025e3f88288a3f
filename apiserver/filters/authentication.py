"""Authentication: who is asking. Sets ``scope["user"]`` to a ``UserInfo``.

For now one authenticator: the x509 client certificate that the TLS layer verified against the
cluster CA (CN = user, O = groups), as delivered by the ASGI TLS extension (see
``apiserver.tls``); everyone else is ``system:anonymous``. The security issue adds the union of
authenticators (tokens, bootstrap tokens, service accounts) and 401s.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from apiserver.authn.user import ANONYMOUS_USER, AUTHENTICATED, UserInfo
from apiserver.context import current_user


def x509_user(scope: Scope) -> UserInfo | None:
    tls = scope.get("extensions", {}).get("tls", {})
    subject = tls.get("client_subject")
    if not subject:
        return None
    names = [value for key, value in subject if key == "commonName"]
    groups = tuple(value for key, value in subject if key == "organizationName")
    if not names:
        return None
    return UserInfo(names[0], (*groups, AUTHENTICATED))


class Authentication:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope["user"] = user = x509_user(scope) or ANONYMOUS_USER
            current_user.set(user)
        await self.app(scope, receive, send)

"""Authentication: who is asking. Sets ``scope["user"]`` to a ``UserInfo``.

For now one authenticator: the x509 client certificate that the TLS layer verified against the
cluster CA (CN = user, O = groups), as delivered by the ASGI TLS extension (see
``apiserver.tls``); everyone else is ``system:anonymous``. The security issue adds the union of
authenticators (tokens, bootstrap tokens, service accounts) and 401s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.types import ASGIApp, Receive, Scope, Send

ANONYMOUS = "system:anonymous"


@dataclass(frozen=True, slots=True)
class UserInfo:
    name: str
    groups: tuple[str, ...] = ()
    extra: dict[str, list[str]] = field(default_factory=dict)


def x509_user(scope: Scope) -> UserInfo | None:
    tls = scope.get("extensions", {}).get("tls", {})
    subject = tls.get("client_subject")
    if not subject:
        return None
    names = [value for key, value in subject if key == "commonName"]
    groups = tuple(value for key, value in subject if key == "organizationName")
    if not names:
        return None
    return UserInfo(names[0], (*groups, "system:authenticated"))


class Authentication:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope["user"] = x509_user(scope) or UserInfo(ANONYMOUS, ("system:unauthenticated",))
        await self.app(scope, receive, send)

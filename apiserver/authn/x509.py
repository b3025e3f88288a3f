"""Client certificates: the certificate the TLS handshake verified against the cluster CA
(``minikube_py.clientcert`` hands its subject over as the ASGI TLS extension) names the user: the
common name is the user name, each organization a group (upstream's
``CommonNameUserConversion``)."""

from __future__ import annotations

from starlette.types import Scope

from apiserver.request.user import UserInfo


class X509Authenticator:
    async def authenticate(self, scope: Scope) -> UserInfo | None:
        tls = (scope.get("extensions") or {}).get("tls") or {}
        subject = tls.get("client_subject")
        if not subject:
            return None
        names = [value for key, value in subject if key == "commonName"]
        if not names:
            return None
        groups = tuple(value for key, value in subject if key == "organizationName")
        return UserInfo(names[0], groups)

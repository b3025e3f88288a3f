"""The verified client certificate, handed to the ASGI app (uvicorn does not do it); used by
the apiserver and the node agents' API servers alike.

``ClientCertHttpToolsProtocol`` is uvicorn's httptools protocol, hijackable for connection
upgrades (``minikube_py.hijack``, used by the apiserver's upgrade proxy) (its C parser: ~20% less CPU per
request than the pure-Python h11 one, measured on a 1,000-pod rollout in one process) plus,
per connection, the ASGI TLS
extension (``scope["extensions"]["tls"]``) with the subject of the peer certificate that the
TLS handshake verified against the cluster CA. Pass it as ``uvicorn.Config(http=...)``.
Only certificates the handshake verified reach here (``CERT_OPTIONAL`` with the CA loaded).
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from minikube_py.hijack import HijackingHttpToolsProtocol


def request_client_subject(scope: Scope) -> list[tuple[str, str]] | None:
    """The verified client certificate's subject in this request, None without one."""
    subject = ((scope.get("extensions") or {}).get("tls") or {}).get("client_subject")
    return list(subject) if subject is not None else None


def client_subject(transport: asyncio.BaseTransport) -> list[tuple[str, str]] | None:
    """The peer certificate's subject as (attribute, value) pairs, or None without one."""
    ssl_object = transport.get_extra_info("ssl_object")
    cert: Any = ssl_object.getpeercert() if ssl_object is not None else None
    if not cert:
        return None
    return [(key, value) for rdn in cert.get("subject", ()) for key, value in rdn]


class ClientCertHttpToolsProtocol(HijackingHttpToolsProtocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        subject = client_subject(transport)
        if subject is not None:
            self.app = _with_tls_extension(self.app, subject)


def _with_tls_extension(app: ASGIApp, subject: list[tuple[str, str]]) -> ASGIApp:
    async def with_tls(scope: Scope, receive: Receive, send: Send) -> None:
        extensions = dict(scope.get("extensions") or {})
        extensions["tls"] = {**extensions.get("tls", {}), "client_subject": subject}
        await app({**scope, "extensions": extensions}, receive, send)

    return with_tls

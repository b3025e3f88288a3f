"""TLS for the agent's HTTPS API: its serving certificate and the verified client identity.

``ensure_serving_certificate`` issues ``<directory>/kubelet.crt``/``kubelet.key`` from the cluster
CA for ``127.0.0.1`` and ``localhost`` (the names the apiserver dials) and writes the CA to
``client-ca.crt`` for verifying callers. Without a CA the caller passes the files
(``--tls-cert-file``/``--tls-private-key-file`` plus the client CA file).

``ClientCertHttpToolsProtocol`` is uvicorn's httptools protocol (hijackable for connection
upgrades: ``minikube_py.hijack``) that hands the subject of the
client certificate the handshake verified (``CERT_OPTIONAL`` with the client CA loaded) to the
ASGI app as ``scope["extensions"]["tls"]["client_subject"]``, like ``apiserver/tls.py`` (which
the node agent may not import).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from starlette.types import ASGIApp, Receive, Scope, Send

from minikube_py.hijack import HijackingHttpToolsProtocol
from minikube_py.pki import CertificateAuthority, CertKeyPair, issue_serving_certificate, write_file

SERVING_DNS_NAMES = ("localhost",)
SERVING_IP_ADDRESSES = ("127.0.0.1",)


def ensure_serving_certificate(ca: CertificateAuthority, directory: Path) -> tuple[CertKeyPair, Path]:
    """Issue the serving pair (always afresh: it is cheap) and write the client CA; returns the
    pair and the client CA file."""
    directory.mkdir(parents=True, exist_ok=True)
    certificate, key = issue_serving_certificate(
        ca, dns_names=SERVING_DNS_NAMES, ip_addresses=SERVING_IP_ADDRESSES
    )
    pair = CertKeyPair(directory / "kubelet.crt", directory / "kubelet.key")
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    write_file(pair.key, key_pem)
    write_file(pair.cert, certificate.public_bytes(serialization.Encoding.PEM), mode=0o644)
    client_ca = directory / "client-ca.crt"
    write_file(client_ca, ca.certificate.public_bytes(serialization.Encoding.PEM), mode=0o644)
    return pair, client_ca


def client_subject(scope: Scope) -> list[tuple[str, str]] | None:
    """The verified client certificate's subject in this request, None without one."""
    subject = ((scope.get("extensions") or {}).get("tls") or {}).get("client_subject")
    return list(subject) if subject is not None else None


def _peer_subject(transport: asyncio.BaseTransport) -> list[tuple[str, str]] | None:
    ssl_object = transport.get_extra_info("ssl_object")
    cert: Any = ssl_object.getpeercert() if ssl_object is not None else None
    if not cert:
        return None
    return [(key, value) for rdn in cert.get("subject", ()) for key, value in rdn]


class ClientCertHttpToolsProtocol(HijackingHttpToolsProtocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        subject = _peer_subject(transport)
        if subject is not None:
            self.app = _with_subject(self.app, subject)


def _with_subject(app: ASGIApp, subject: list[tuple[str, str]]) -> ASGIApp:
    async def with_tls(scope: Scope, receive: Receive, send: Send) -> None:
        extensions = dict(scope.get("extensions") or {})
        extensions["tls"] = {**extensions.get("tls", {}), "client_subject": subject}
        await app({**scope, "extensions": extensions}, receive, send)

    return with_tls

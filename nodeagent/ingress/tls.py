"""TLS termination: the certificate of each served Ingress host comes from the
``kubernetes.io/tls`` Secret its ``spec.tls`` names (in the Ingress's namespace), chosen by
the client's SNI name (exact hosts first, then ``*.`` wildcards of one label); a name without
one, or a Secret that is missing or unusable, gets the controller's own self-signed "fake"
certificate, as ingress-nginx serves its "Kubernetes Ingress Controller Fake Certificate".

``ssl`` loads certificates from files only: a Secret's pair is written to a private temporary
directory, loaded, and removed at once; contexts are cached by the Secret's resourceVersion."""

from __future__ import annotations

import base64
import binascii
import logging
import ssl
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from minikube_py.api.unstructured import Object
from minikube_py.pkiutil import issue_serving_certificate, key_pem, new_certificate_authority

FAKE_CERTIFICATE_NAME = "Kubernetes Ingress Controller Fake Certificate"
TLS_SECRET_TYPE = "kubernetes.io/tls"
SSL_REDIRECT_ANNOTATION = "nginx.ingress.kubernetes.io/ssl-redirect"  # ingress-nginx's opt-out
log = logging.getLogger("ingress")


def context_from_pem(cert: bytes, key: bytes) -> ssl.SSLContext:
    """A server context with this PEM pair (``ssl.SSLError`` when they are not a pair)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.set_alpn_protocols(["http/1.1"])
    with tempfile.TemporaryDirectory(prefix="ingress-tls-") as directory:
        cert_file, key_file = Path(directory, "tls.crt"), Path(directory, "tls.key")
        cert_file.write_bytes(cert)
        key_file.touch(mode=0o600)
        key_file.write_bytes(key)
        context.load_cert_chain(cert_file, key_file)
    return context


def fake_context() -> ssl.SSLContext:
    ca = new_certificate_authority(FAKE_CERTIFICATE_NAME)
    certificate, key = issue_serving_certificate(ca, dns_names=["ingress.local"], ip_addresses=[])
    return context_from_pem(certificate.public_bytes(serialization.Encoding.PEM), key_pem(key))


class Certificates:
    """SNI name -> SSL context, from the served Ingresses (``update``) and the TLS Secrets
    ``secret(namespace, name)`` reads from the cache."""

    def __init__(self, secret: Callable[[str, str], Object | None]) -> None:
        self._secret = secret
        self.default = fake_context()
        self.default.sni_callback = self._choose
        self._hosts: dict[str, tuple[str, str]] = {}  # host or "*.suffix" -> (namespace, secret)
        self._redirected: set[str] = set()  # hosts (or "*.suffix") whose HTTP goes to HTTPS
        self._contexts: dict[tuple[str, str, str], ssl.SSLContext] = {}
        self._unusable: dict[tuple[str, str], str] = {}

    def update(self, ingresses: Iterable[Object]) -> None:
        """The hosts of the Ingresses' ``spec.tls`` (the oldest Ingress wins a host)."""
        hosts: dict[str, tuple[str, str]] = {}
        redirected: set[str] = set()
        for ing in sorted(ingresses, key=lambda i: str(i["metadata"].get("creationTimestamp") or "")):
            namespace = ing["metadata"].get("namespace", "")
            annotations = ing["metadata"].get("annotations") or {}
            redirect = annotations.get(SSL_REDIRECT_ANNOTATION, "true") != "false"
            for entry in (ing.get("spec") or {}).get("tls") or []:
                for host in entry.get("hosts") or []:
                    if redirect:
                        redirected.add(str(host).lower())
                    if entry.get("secretName"):
                        hosts.setdefault(str(host).lower(), (namespace, str(entry["secretName"])))
        self._hosts, self._redirected = hosts, redirected

    def redirects(self, host: str) -> bool:
        """Whether plain HTTP for ``host`` is redirected to HTTPS (its Ingress has TLS for it
        and does not opt out with ``nginx.ingress.kubernetes.io/ssl-redirect: "false"``)."""
        return host in self._redirected or ("." in host and "*." + host.split(".", 1)[1] in self._redirected)

    def context_for(self, server_name: str) -> ssl.SSLContext | None:
        name = server_name.lower()
        found = self._hosts.get(name)
        if found is None and "." in name:
            found = self._hosts.get("*." + name.split(".", 1)[1])
        return None if found is None else self._load(*found)

    def _choose(self, sslobj: ssl.SSLObject, server_name: str | None, context: ssl.SSLContext) -> None:
        chosen = self.context_for(server_name) if server_name else None
        if chosen is not None:
            sslobj.context = chosen

    def _load(self, namespace: str, name: str) -> ssl.SSLContext | None:
        secret = self._secret(namespace, name)
        if secret is None:
            # the cache holds only kubernetes.io/tls Secrets (a field-selected watch)
            return self._refuse(namespace, name, f"does not exist or is not of type {TLS_SECRET_TYPE}")
        version = str(secret["metadata"].get("resourceVersion", ""))
        cached = self._contexts.get((namespace, name, version))
        if cached is not None:
            return cached
        data = secret.get("data") or {}
        if secret.get("type") != TLS_SECRET_TYPE or "tls.crt" not in data or "tls.key" not in data:
            return self._refuse(
                namespace, name, f"is not a {TLS_SECRET_TYPE} Secret with tls.crt and tls.key"
            )
        try:
            context = context_from_pem(base64.b64decode(data["tls.crt"]), base64.b64decode(data["tls.key"]))
        except (ssl.SSLError, binascii.Error, ValueError) as err:
            return self._refuse(namespace, name, f"holds no usable certificate and key ({err})")
        self._contexts = {k: v for k, v in self._contexts.items() if k[:2] != (namespace, name)}
        self._contexts[(namespace, name, version)] = context
        self._unusable.pop((namespace, name), None)
        return context

    def _refuse(self, namespace: str, name: str, why: str) -> ssl.SSLContext | None:
        if self._unusable.get((namespace, name)) != why:  # once until it changes
            self._unusable[(namespace, name)] = why
            log.warning('ingress: TLS secret "%s/%s" %s; serving the fake certificate', namespace, name, why)
        return None

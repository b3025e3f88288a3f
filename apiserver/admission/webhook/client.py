"""The HTTPS call to a webhook (upstream's ``webhookutil.ClientManager`` and rest client).

``clientConfig.url`` is dialled as given. ``clientConfig.service`` is upstream's
``https://<name>.<namespace>.svc:<port><path>``: the certificate must be valid for
``<name>.<namespace>.svc``, which is also the TLS server name sent. No kube-proxy exists here to
route a cluster IP, so the call goes to the first ready address of the Service's Endpoints and
the target port of the Service port named by ``port`` (default 443); a Service without ready
endpoints is dialled at its cluster IP, which fails unless something routes it.

The server certificate is verified against ``caBundle`` (PEM), or the system roots when it is
empty. The whole call is bounded by ``timeoutSeconds``, which is also sent to the webhook as
``?timeout=<n>s``, as upstream does. Failures raise ``CallError`` with Go-like reasons
(``Post "<url>": context deadline exceeded``, ``dial tcp <addr>: connect: connection refused``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import json
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from apiserver.admission.webhook.errors import CallError
from apiserver.lookup import Lookup
from minikube_py.api.field_errors import go_quote

# OpenSSL's verify codes for a chain that does not lead to a trusted root (Go: "certificate
# signed by unknown authority"): self-signed leaf, self-signed in chain, no local issuer.
UNKNOWN_AUTHORITY = frozenset({18, 19, 20, 21})


@dataclass(frozen=True, slots=True)
class Target:
    """Where to POST: the URL dialled, the URL reported, and the TLS server name."""

    url: str
    shown: str
    server_name: str


@functools.lru_cache(maxsize=64)
def tls_context(ca_bundle: str) -> ssl.SSLContext:
    """A client context trusting ``ca_bundle`` (base64 PEM, as in JSON) or the system roots."""
    if not ca_bundle:
        return ssl.create_default_context()
    try:
        pem = base64.b64decode(ca_bundle).decode()
        return ssl.create_default_context(cadata=pem)
    except (binascii.Error, UnicodeDecodeError, ssl.SSLError, ValueError) as err:
        raise ValueError(f"unable to load root certificates: {err}") from None


async def resolve(config: dict[str, Any], lookup: Lookup, timeout: int) -> Target:
    query = f"?timeout={timeout}s"
    if "url" in config:
        url = str(config["url"]) + query
        return Target(url, url, "")
    ref = config.get("service") or {}
    name, namespace = ref.get("name", ""), ref.get("namespace", "")
    port, path = int(ref.get("port") or 443), ref.get("path") or ""
    host = f"{name}.{namespace}.svc"
    shown = f"https://{host}:{port}{path}{query}"
    address, target_port = await _service_address(lookup, namespace, name, port)
    return Target(f"https://{address}:{target_port}{path}{query}", shown, host)


async def _get(lookup: Lookup, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
    if not lookup.serves("", "v1", resource):
        return None
    return await lookup.lister("", "v1", resource).get(namespace, name)


async def _service_address(lookup: Lookup, namespace: str, name: str, port: int) -> tuple[str, int]:
    service = await _get(lookup, "services", namespace, name)
    if service is None:
        raise LookupError(f'service "{name}" not found')
    ports = (service.get("spec") or {}).get("ports") or []
    service_port = next((p for p in ports if p.get("port") == port), None)
    if service_port is None:
        raise LookupError(f"service {namespace}/{name} has no port {port}")
    endpoints = await _get(lookup, "endpoints", namespace, name) or {}
    for subset in endpoints.get("subsets") or []:
        addresses = subset.get("addresses") or []
        for endpoint_port in subset.get("ports") or []:
            if addresses and endpoint_port.get("name", "") == service_port.get("name", ""):
                return addresses[0]["ip"], int(endpoint_port["port"])
    target = service_port.get("targetPort", port)
    cluster_ip = (service.get("spec") or {}).get("clusterIP", "")
    return cluster_ip, target if isinstance(target, int) else port


def _causes(err: BaseException) -> list[BaseException]:
    """``err`` and everything behind it (causes, contexts, exception group members)."""
    found: list[BaseException] = []
    pending = [err]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        found.append(current)
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]
        if isinstance(current, BaseExceptionGroup):
            pending += list(current.exceptions)
    return found


def _dial_reason(err: httpx.TransportError, url: str) -> str:
    """Go's wording for the usual failures (refused, certificate not trusted)."""
    parts = urlsplit(url)
    address = f"{parts.hostname}:{parts.port or 443}"
    causes = _causes(err)
    for cause in causes:
        if isinstance(cause, ssl.SSLCertVerificationError):
            unknown = cause.verify_code in UNKNOWN_AUTHORITY
            why = "certificate signed by unknown authority" if unknown else cause.verify_message
            return f"tls: failed to verify certificate: x509: {why}"
    if any(isinstance(c, ConnectionRefusedError) for c in causes) or "refused" in str(err).lower():
        return f"dial tcp {address}: connect: connection refused"
    return str(err) or type(err).__name__


def _server_error(answer: httpx.Response) -> str:
    """client-go's error for a non-2xx answer: the Status it carries, else a generic one."""
    try:
        status = json.loads(answer.content)
    except ValueError:
        status = None
    if isinstance(status, dict) and status.get("kind") == "Status" and status.get("message"):
        return str(status["message"])
    if answer.status_code == 404:
        return "the server could not find the requested resource"
    body = answer.text.strip()
    if answer.status_code >= 500 and body:
        return f"an error on the server ({go_quote(body)}) has prevented the request from succeeding"
    return (
        f"the server responded with the status code {answer.status_code} but did not return more information"
    )


async def post(
    config: dict[str, Any], review: dict[str, Any], lookup: Lookup, timeout: int, webhook: str
) -> dict[str, Any]:
    """POST ``review``; the decoded JSON answer. ``CallError`` for anything that went wrong."""
    try:
        target = await resolve(config, lookup, timeout)
        context = tls_context(str(config.get("caBundle") or ""))
    except (LookupError, ValueError) as err:
        raise CallError(webhook, f"failed to call webhook: {err}") from None
    prefix = f'failed to call webhook: Post "{target.shown}"'
    extensions = {"sni_hostname": target.server_name} if target.server_name else {}
    try:
        async with asyncio.timeout(timeout):
            async with httpx.AsyncClient(verify=context, timeout=timeout, trust_env=False) as client:
                answer = await client.post(target.url, json=review, extensions=extensions)
    except (TimeoutError, httpx.TimeoutException):
        raise CallError(webhook, f"{prefix}: context deadline exceeded") from None
    except httpx.TransportError as err:
        raise CallError(webhook, f"{prefix}: {_dial_reason(err, target.url)}") from None
    if not 200 <= answer.status_code < 300:
        raise CallError(webhook, f"failed to call webhook: {_server_error(answer)}")
    try:
        decoded = json.loads(answer.content)
    except ValueError as err:
        raise CallError(webhook, f"received invalid webhook response: {err}") from None
    if not isinstance(decoded, dict):
        raise CallError(webhook, "received invalid webhook response: not a JSON object")
    return decoded

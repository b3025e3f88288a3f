"""The request facts an audit event records, read from the ASGI scope the way upstream reads
them from the ``http.Request``: request URI, source IPs, user agent, user info, object
reference, and (for a failed authentication) the credentials that were attempted."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import time
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import Scope

from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo
from apiserver.request.user import user_json as user_fields

MAX_USER_AGENT = 1024
TRUNCATED = "...TRUNCATED"


def micro_time(seconds: float) -> str:
    """``metav1.MicroTime`` in JSON: RFC 3339 in UTC with microseconds (truncated, as Go).

    The date and time of day are formatted once per second: ``strftime`` re-reads the time
    zone on every call (tens of microseconds), and every event needs two timestamps."""
    global _second, _second_text
    whole = int(seconds)
    if whole != _second:
        _second, _second_text = whole, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{_second_text}.{int((seconds - whole) * 1_000_000):06d}Z"


_second, _second_text = -1, ""


def request_uri(scope: Scope) -> str:
    """The path as sent (still escaped) plus the raw query, like Go's ``URL.RequestURI()``."""
    raw = scope.get("raw_path")
    path = raw.decode("latin-1") if raw else scope.get("path", "/")
    query = scope.get("query_string", b"")
    return f"{path}?{query.decode('latin-1')}" if query else path


def header(scope: Scope, name: bytes) -> str:
    """The first value of a (lower-case) header, or ``""``."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def client_headers(scope: Scope) -> tuple[str, list[str]]:
    """The user agent and the source IPs, from one pass over the headers."""
    agent = forwarded = real_ip = b""
    for key, value in scope.get("headers", ()):
        if key == b"user-agent":
            agent = agent or value
        elif key == b"x-forwarded-for":
            forwarded = forwarded or value
        elif key == b"x-real-ip":
            real_ip = real_ip or value
    text = agent.decode("latin-1")
    if len(text) > MAX_USER_AGENT:
        text = text[:MAX_USER_AGENT] + TRUNCATED
    return text, source_ips(scope, forwarded.decode("latin-1"), real_ip.decode("latin-1"))


def source_ips(scope: Scope, forwarded_for: str = "", real_ip: str = "") -> list[str]:
    """``X-Forwarded-For`` (every valid entry), ``X-Real-Ip`` unless already listed, then the
    peer address unless it repeats the last one (upstream's ``utilnet.SourceIPs``)."""
    ips = [ip for part in forwarded_for.split(",") if (ip := _ip(part))] if forwarded_for else []
    real = _ip(real_ip) if real_ip else ""
    if real and real not in ips:
        ips.append(real)
    client = scope.get("client")
    peer = str(client[0]) if client else ""  # the server's own rendering of the peer address
    if peer and (not ips or ips[-1] != peer):
        ips.append(peer)
    return ips


def _ip(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return ""


def user_json(user: UserInfo | None) -> dict[str, Any]:
    """``authentication/v1 UserInfo`` (empty fields left out; no user is ``{}``)."""
    return {} if user is None else user_fields(user)


def object_ref(info: RequestInfo) -> dict[str, str] | None:
    """The ``objectRef`` of a resource request (None for non-resource requests)."""
    if not info.is_resource_request:
        return None
    ref = {
        "resource": info.resource,
        "namespace": info.namespace,
        "name": info.name,
        "apiGroup": info.api_group,
        "apiVersion": info.api_version,
        "subresource": info.subresource,
    }
    return {key: value for key, value in ref.items() if value}


def attempted_credentials(scope: Scope) -> str:
    """Upstream's message for a failed authentication: which credentials were tried."""
    methods = []
    auth = header(scope, b"authorization").strip()
    if _is_basic(auth):
        methods.append("basic")
    parts = auth.split(" ")
    if len(parts) > 1 and parts[0].lower() == "bearer":
        methods.append("bearer")
    query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
    if query.get("access_token", "").strip():
        methods.append("access_token")
    if scope.get("extensions", {}).get("tls", {}).get("client_subject"):
        methods.append("x509")
    if methods:
        return "Authentication failed, attempted: " + ", ".join(methods)
    return "Authentication failed, no credentials provided"


def _is_basic(auth: str) -> bool:
    scheme, _, encoded = auth.partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        return b":" in base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return False

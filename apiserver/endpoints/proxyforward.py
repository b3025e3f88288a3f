"""The reverse proxy behind ``pods/proxy``, ``services/proxy`` and ``nodes/proxy``: upstream's
``UpgradeAwareHandler`` with its wrapped transport (Go's ``httputil.ReverseProxy``, the proxy
``Transport`` and the CORS-removing one).

* The request goes out with the client's method, headers and body, the body streamed as it
  arrives (no size limit: upstream decodes nothing here). Hop-by-hop headers (``Connection``
  and those it names, ``Keep-Alive``, ``Proxy-*``, ``TE``, ``Trailer``, ``Transfer-Encoding``,
  ``Upgrade``) stay behind, as do the client's credentials (``Authorization`` and
  ``Impersonate-*``, which upstream's authentication and impersonation filters remove). The
  client's ``Host`` is kept; ``X-Forwarded-For`` gets the client's address appended and
  ``X-Forwarded-Uri`` is the request's path as the client sent it.
* The response is relayed as it arrives, chunk by chunk, undecoded, without hop-by-hop and
  ``Access-Control-Allow-*`` headers (and without the backend's ``Date``: the apiserver's
  server always writes its own); ``Location`` and HTML pages have their links rewritten to
  go through the proxy (``proxyrewrite``), the page read whole for that.
* Failures: a backend that cannot be reached, or answers nothing, is a 503
  ``ServiceUnavailable`` ``error trying to reach service: <Go's error>``, e.g. ``dial tcp
  127.128.0.5:80: connect: connection refused``. A backend that breaks off mid-response cuts
  the client's response (its connection is closed, so the client sees a truncated body, never a
  complete-looking one), with one log line.
* Connection upgrades (WebSocket...) are tunnelled (``upgradeproxy``): the backend is dialled
  (500 ``error dialing backend: ...`` when that fails) and bytes relayed both ways.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import posixpath
import ssl
from collections.abc import Callable
from urllib.parse import quote

import httpx
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from apiserver.endpoints.proxylocation import ProxyTarget, UnknownPort
from apiserver.endpoints.proxyrewrite import PATH_SAFE, rewrite_html, rewrite_url
from apiserver.endpoints.requestbody import unbounded_body
from apiserver.nodeproxy import NodeLocation, dial_failure, unreachable
from apiserver.upgradeproxy import TunnelResponse, request_head
from minikube_py.api import errors
from minikube_py.hijack import can_hijack

logger = logging.getLogger("apiserver")

DIAL_TIMEOUT = 30.0  # upstream's proxy transport dials for 30 s
HOP_BY_HOP = frozenset(
    {
        "connection",
        "proxy-connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
CREDENTIALS = frozenset({"authorization"})
CREDENTIAL_PREFIXES = ("impersonate-",)
CORS = frozenset(
    {
        "access-control-allow-credentials",
        "access-control-allow-headers",
        "access-control-allow-methods",
        "access-control-allow-origin",
    }
)
MAX_HTML = 64 << 20  # a page larger than this is passed on without rewriting its links


def _insecure() -> ssl.SSLContext:
    """Upstream's proxy transport to pods and services: TLS without verifying the backend."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


_INSECURE: ssl.SSLContext | None = None


def insecure_tls() -> ssl.SSLContext:
    global _INSECURE
    if _INSECURE is None:
        _INSECURE = _insecure()
    return _INSECURE


def target_url(target: ProxyTarget, port: int, path: str, query: str) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    location = f"{target.scheme or 'http'}://{host}:{port}{quote(path, safe=PATH_SAFE)}"
    return location + (f"?{query}" if query else "")


async def forward(request: Request, target: ProxyTarget, path: str, prefix: str) -> Response:
    """Proxy ``request`` to ``target`` at ``path`` (see the module docstring)."""
    try:
        port = target.dial_port
    except UnknownPort as err:
        raise errors.unavailable(f"error trying to reach service: dial tcp: {err}") from None
    url = target_url(target, port, path or "/", request.url.query)
    if is_upgrade_request(request):
        return await _tunnel(request, target, port, url)
    headers = _outgoing_headers(request, forwarded_uri=_join(prefix, path or "/"))
    tls = target.tls if target.tls is not None else insecure_tls()
    timeout = httpx.Timeout(DIAL_TIMEOUT, read=None, write=None, pool=None)
    client = httpx.AsyncClient(verify=tls, timeout=timeout, trust_env=False)
    body = unbounded_body(request) if _has_body(request) else None
    outgoing = httpx.Request(request.method, url, headers=headers, content=body)
    try:
        response = await client.send(outgoing, stream=True)
    except httpx.HTTPError as err:
        await client.aclose()
        raise errors.unavailable(f"error trying to reach service: {_failure(err, target, port)}") from None
    except BaseException:
        await client.aclose()
        raise
    request_host = request.headers.get("host", "")

    def rewrite(link: str) -> str:
        return rewrite_url(link, target.netloc, request_host, prefix)

    raw = _response_headers(response, rewrite)
    if _is_html(response) and not _has_header(raw, b"location"):
        return await _rewritten_page(client, response, raw, rewrite)
    return ProxiedResponse(response.status_code, raw, client, response)


class ProxiedResponse(Response):
    """Relays the backend's response as it arrives; a broken backend cuts the connection."""

    def __init__(
        self,
        status: int,
        headers: list[tuple[bytes, bytes]],
        client: httpx.AsyncClient,
        backend: httpx.Response | None,
        body: bytes = b"",
    ) -> None:
        super().__init__(status_code=status)
        self.raw_headers = headers
        self._client, self._backend, self._body = client, backend, body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await send(
                {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
            )
            relay = asyncio.ensure_future(self._relay(send))
            gone = asyncio.ensure_future(_disconnected(receive))
            await asyncio.wait((relay, gone), return_when=asyncio.FIRST_COMPLETED)
            gone.cancel()
            if not relay.done():  # the client went away: stop reading the backend
                relay.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                complete = await relay
            if relay.cancelled() or not complete:
                return  # uvicorn closes the connection of an incomplete response
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            if self._backend is not None:
                await self._backend.aclose()
            await self._client.aclose()

    async def _relay(self, send: Send) -> bool:
        if self._backend is None:
            await send({"type": "http.response.body", "body": self._body, "more_body": True})
            return True
        try:
            async for chunk in self._backend.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except httpx.HTTPError as err:
            logger.warning("proxied response from %s broke off: %s", self._backend.url, _reason(err))
            return False
        return True


async def _rewritten_page(
    client: httpx.AsyncClient,
    response: httpx.Response,
    raw: list[tuple[bytes, bytes]],
    rewrite: Callable[[str], str],
) -> Response:
    """An HTML page read whole and its links rewritten (a page over ``MAX_HTML``, or one in an
    encoding upstream does not decode, as it came)."""
    body = bytearray()
    try:
        async for chunk in response.aiter_raw():
            body += chunk
    except httpx.HTTPError as err:
        await client.aclose()
        raise errors.unavailable(f"error trying to reach service: {_reason(err)}") from None
    finally:
        await response.aclose()
    encoding = response.headers.get("content-encoding", "").strip().lower()
    page = rewrite_html(bytes(body), encoding, rewrite) if len(body) <= MAX_HTML else None
    content = bytes(body) if page is None else page
    headers = [(k, v) for k, v in raw if k != b"content-length"]
    headers.append((b"content-length", str(len(content)).encode()))
    return ProxiedResponse(response.status_code, headers, client, None, content)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _outgoing_headers(request: Request, *, forwarded_uri: str) -> list[tuple[bytes, bytes]]:
    named = _connection_tokens(request.headers.getlist("connection"))
    headers: list[tuple[bytes, bytes]] = []
    forwarded: list[str] = []
    for key, value in request.headers.raw:
        name = key.decode("latin-1").lower()
        if name in HOP_BY_HOP or name in named or name in CREDENTIALS or name.startswith(CREDENTIAL_PREFIXES):
            continue
        if name in ("x-forwarded-for", "x-forwarded-uri"):
            if name == "x-forwarded-for":
                forwarded.append(value.decode("latin-1"))
            continue
        headers.append((key, value))
    if request.client and request.client.host:
        forwarded.append(request.client.host)
    if forwarded:
        headers.append((b"X-Forwarded-For", ", ".join(forwarded).encode("latin-1")))
    headers.append((b"X-Forwarded-Uri", forwarded_uri.encode()))  # decoded, as Go sets it
    return headers


def _response_headers(response: httpx.Response, rewrite: Callable[[str], str]) -> list[tuple[bytes, bytes]]:
    """The backend's headers without hop-by-hop and CORS ones, ``Location`` rewritten."""
    named = _connection_tokens(response.headers.get_list("connection"))
    out: list[tuple[bytes, bytes]] = []
    for key, value in response.headers.raw:
        name = key.decode("latin-1").lower()
        if name in HOP_BY_HOP or name in named or name in CORS or name == "date":
            continue  # (the apiserver's server writes its own Date: one, not two)
        if name == "location":
            value = rewrite(value.decode("latin-1")).encode("latin-1")
        out.append((name.encode("latin-1"), value))
    return out


def _connection_tokens(values: list[str]) -> frozenset[str]:
    return frozenset(token.strip().lower() for value in values for token in value.split(",") if token.strip())


def _has_header(headers: list[tuple[bytes, bytes]], name: bytes) -> bool:
    return any(key == name for key, _ in headers)


def _is_html(response: httpx.Response) -> bool:
    media = response.headers.get("content-type", "").split(";", 1)[0].strip()
    return media == "text/html" and response.request.method != "HEAD"


def _has_body(request: Request) -> bool:
    return "transfer-encoding" in request.headers or request.headers.get("content-length", "0") not in (
        "",
        "0",
    )


def _join(prefix: str, path: str) -> str:
    """Go's ``path.Join(prefix, path)``, keeping a trailing slash."""
    joined = posixpath.normpath(f"{prefix}/{path}")
    joined = "/" + joined.lstrip("/") if joined.startswith("/") else joined
    return joined + "/" if path.endswith("/") and not joined.endswith("/") else joined


def _failure(err: httpx.HTTPError, target: ProxyTarget, port: int) -> str:
    """Go's error for a request that got no response."""
    if isinstance(err, httpx.ConnectError | httpx.ConnectTimeout):
        return dial_failure(err, NodeLocation(target.host, port))
    return _reason(err)


def _reason(err: httpx.HTTPError) -> str:
    """Go's wording for a connection that broke after it was made."""
    if isinstance(err, httpx.RemoteProtocolError) and "without sending" in str(err):
        return "EOF"
    for cause in (err.__cause__, err.__context__):
        if isinstance(cause, OSError) and cause.errno:
            return f"read: {os.strerror(cause.errno).lower()}"
    return str(err) or type(err).__name__


async def _tunnel(request: Request, target: ProxyTarget, port: int, url: str) -> Response:
    """The upgrade path: dial, then relay bytes both ways (``upgradeproxy.TunnelResponse``)."""
    tls = (
        None if (target.scheme or "http") == "http" and target.tls is None else (target.tls or insecure_tls())
    )
    try:
        backend = await asyncio.wait_for(asyncio.open_connection(target.host, port, ssl=tls), DIAL_TIMEOUT)
    except (OSError, TimeoutError) as err:
        raise unreachable("error dialing backend", err, NodeLocation(target.host, port)) from None
    if not can_hijack(request.scope):
        backend[1].close()
        raise errors.ApiError(500, "", "error dialing backend: this server cannot hijack the connection")
    return TunnelResponse(request_head(request, url), backend)


def is_upgrade_request(request: Request) -> bool:
    """Upstream's ``httpstream.IsUpgradeRequest``: a ``Connection`` header naming ``upgrade``."""
    return "upgrade" in _connection_tokens(request.headers.getlist("connection"))

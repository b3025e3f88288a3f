"""The tunnel for connection upgrades to node agents (upstream's ``UpgradeAwareHandler`` as the
pod connection subresources use it: ``exec``, ``attach``, ``portforward``).

The apiserver speaks neither SPDY nor WebSocket. Once the request passed the filter chain and
the endpoint found the node agent, ``open_tunnel`` dials it over TLS with the apiserver's
client certificate (a failure is upstream's ``error dialing backend`` Status, still an ordinary
response) and returns a ``TunnelResponse``. That response hijacks the client connection
(``minikube_py.hijack``: the server protocol hands over the raw transport), writes the request
head to the node agent with the node agent's path and host (the client's credentials stay
behind: ``Authorization`` and impersonation headers are dropped; ``X-Forwarded-For`` is added),
then relays bytes both ways, the node agent's ``101`` or error answer included, until either
side closes; then both are closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from apiserver.nodeproxy import NodeConnection, NodeLocation, unreachable
from minikube_py.api import errors
from minikube_py.hijack import HIJACK, RawConnection, can_hijack

logger = logging.getLogger("apiserver")

CHUNK = 65536
DROPPED_HEADERS = ("host", "authorization", "proxy-authorization")
DROPPED_PREFIXES = ("impersonate-",)


class TunnelResponse(Response):
    """Hijacks the client connection and relays it to an open node agent connection."""

    def __init__(self, head: bytes, backend: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
        super().__init__(status_code=101)
        self._head = head
        self._reader, self._writer = backend

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": HIJACK, "run": self._relay})

    async def _relay(self, client: RawConnection) -> None:
        try:
            self._writer.write(self._head)
            async with asyncio.TaskGroup() as tasks:
                up = tasks.create_task(_pump(client.read, self._send_backend))
                down = tasks.create_task(_pump(self._read_backend, client.write))
                up.add_done_callback(lambda _: down.cancel())
                down.add_done_callback(lambda _: up.cancel())
        finally:
            self._writer.close()
            with contextlib.suppress(OSError, ssl.SSLError):
                await self._writer.wait_closed()

    async def _send_backend(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def _read_backend(self) -> bytes:
        return await self._reader.read(CHUNK)


async def open_tunnel(request: Request, nodes: NodeConnection, location: NodeLocation, url: str) -> Response:
    """Dial the node agent for ``url`` and answer with the tunnel (see the module docstring)."""
    try:
        backend = await asyncio.wait_for(
            asyncio.open_connection(location.host, location.port, ssl=nodes.ssl_context()),
            nodes.dial_timeout,
        )
    except (OSError, TimeoutError) as err:
        raise unreachable("error dialing backend", err, location) from None
    if not can_hijack(request.scope):
        backend[1].close()
        raise errors.ApiError(500, "", "error dialing backend: this server cannot hijack the connection")
    return TunnelResponse(request_head(request, url), backend)


def request_head(request: Request, url: str) -> bytes:
    """The request line and headers for the node agent: its path and host, the client's other
    headers (credentials dropped) and ``X-Forwarded-For``."""
    target = urlsplit(url)
    path = target.path + (f"?{target.query}" if target.query else "")
    lines = [f"{request.method} {path} HTTP/1.1", f"Host: {target.netloc}"]
    forwarded = ""
    for name, value in request.headers.items():
        if name in DROPPED_HEADERS or name.startswith(DROPPED_PREFIXES):
            continue
        if name == "x-forwarded-for":
            forwarded = value
            continue
        lines.append(f"{name}: {value}")
    client = request.client.host if request.client else ""
    if client:
        lines.append(f"X-Forwarded-For: {forwarded + ', ' if forwarded else ''}{client}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _pump(read: Callable[[], Awaitable[bytes]], write: Callable[[bytes], Awaitable[None]]) -> None:
    """Copy until EOF or a broken connection."""
    try:
        while data := await read():
            await write(data)
    except (OSError, ssl.SSLError) as err:
        logger.debug("tunnel closed: %s", err)

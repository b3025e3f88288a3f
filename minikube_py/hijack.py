"""Connection hijacking for uvicorn's httptools protocol (Go's ``http.Hijacker``): an ASGI app
may take over the raw connection of a request that asks for a connection upgrade.

The apiserver tunnels ``pods/exec``, ``attach`` and ``portforward`` upgrades to node agents, and
the node agent speaks WebSocket and SPDY on the connection itself: neither fits ASGI's
request/response (or websocket) messages, so both servers run ``HijackingHttpToolsProtocol``.

The mechanism, per request, with no global state:

1. A request with ``Connection: Upgrade`` gets ``scope["extensions"][EXTENSION] = {}``; it runs
   through the ASGI app like any other (authentication, authorization, audit ...). uvicorn's
   own websocket handling is off: websocket upgrades reach the app as plain HTTP requests.
2. The app (after its checks) hijacks by sending ``{"type": HIJACK, "run": run}`` through
   ``send`` in place of ``http.response.start``. The protocol marks the response complete (uvicorn
   writes nothing more for it), stops parsing HTTP and awaits ``run(connection)`` with a
   ``RawConnection`` inside that ``send`` call, so the request's task (and every filter around
   it) lasts as long as the connection. The connection is closed when ``run`` returns; an
   exception from ``run`` is logged (``uvicorn.error``), not raised: no answer is possible.
3. Bytes the client sent after the request head come first from ``RawConnection.read``.

An app that answers normally instead (an error) gets a normal response and the connection is
closed after it. Without the extension (another server, a test over ``ASGITransport``) an app
must answer normally.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httptools
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

from minikube_py.httphead import BoundedHeadHttpToolsProtocol

EXTENSION = "minikube.io/hijack"
HIJACK = "minikube.io.hijack"
READ_LIMIT = 1 << 20  # buffered client bytes before reading from the socket pauses

Tunnel = Callable[["RawConnection"], Awaitable[None]]


def can_hijack(scope: Any) -> bool:
    """Whether this request's server supports ``HIJACK`` (see the module docstring)."""
    return EXTENSION in (scope.get("extensions") or {})


class RawConnection:
    """The client connection after the request head: bytes in, bytes out."""

    def __init__(self, transport: asyncio.Transport, flow: FlowControl, pending: bytes) -> None:
        self._transport = transport
        self._flow = flow
        self._buffer = bytearray(pending)
        self._eof = transport.is_closing()
        self._ready = asyncio.Event()

    def feed(self, data: bytes) -> None:
        self._buffer += data
        self._ready.set()
        if len(self._buffer) > READ_LIMIT:
            self._flow.pause_reading()

    def feed_eof(self) -> None:
        self._eof = True
        self._ready.set()

    async def read(self, limit: int = 65536) -> bytes:
        """Up to ``limit`` bytes; ``b""`` once the client closed the connection."""
        while not self._buffer and not self._eof:
            self._ready.clear()
            await self._ready.wait()
        data = bytes(self._buffer[:limit])
        del self._buffer[:limit]
        if len(self._buffer) < READ_LIMIT:
            self._flow.resume_reading()
        return data

    async def write(self, data: bytes) -> None:
        """Send ``data``, waiting while the transport's buffer is full; raises
        ``ConnectionResetError`` once the connection is closed."""
        if self._transport.is_closing():
            raise ConnectionResetError("the client connection is closed")
        self._transport.write(data)
        if self._flow.write_paused:
            await self._flow.drain()

    def close(self) -> None:
        self._transport.close()


class HijackingHttpToolsProtocol(BoundedHeadHttpToolsProtocol):
    """uvicorn's httptools protocol, heads bounded (``httphead``), whose upgrade requests may
    be hijacked (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._upgrade_pending: bytearray | None = None
        self._raw: RawConnection | None = None

    def _should_upgrade(self) -> bool:
        return False  # no uvicorn websockets: the app sees every upgrade request

    def data_received(self, data: bytes) -> None:
        if self._raw is not None:
            self._raw.feed(data)
            return
        if self._upgrade_pending is not None:
            self._upgrade_pending += data
            return
        try:
            super().data_received(data)
        except httptools.HttpParserUpgrade as upgrade:
            offset = int(upgrade.args[0]) if upgrade.args else len(data)
            self._upgrade_pending = bytearray(data[offset:])
            if self.cycle is not None:
                self.cycle.keep_alive = False  # unless hijacked: close after the answer

    def connection_lost(self, exc: Exception | None) -> None:
        if self._raw is not None:
            self._raw.feed_eof()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        if self._get_upgrade() is not None:
            self.scope["extensions"] = {**self.scope.get("extensions", {}), EXTENSION: {}}
        super().on_headers_complete()

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        if can_hijack(cycle.scope):
            app = self._hijackable(cycle, app)
        super()._start_asgi_task(cycle, app)

    def _hijackable(self, cycle: RequestResponseCycle, app: Any) -> Any:
        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            async def hijacking_send(message: Any) -> None:
                if message["type"] == HIJACK:
                    await self._hijack(cycle, message["run"])
                else:
                    await send(message)

            await app(scope, receive, hijacking_send)

        return asgi

    async def _hijack(self, cycle: RequestResponseCycle, run: Tunnel) -> None:
        cycle.response_started = cycle.response_complete = True
        cycle.keep_alive = False
        self._unset_keepalive_if_required()
        self._raw = RawConnection(self.transport, self.flow, bytes(self._upgrade_pending or b""))
        if self.parser is None:  # the connection is already gone
            self._raw.feed_eof()
        try:
            await run(self._raw)
        except Exception as err:  # nothing can be answered any more: log and hang up
            self.logger.error("hijacked connection failed", exc_info=err)
        finally:
            self.transport.close()

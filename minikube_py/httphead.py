"""Bounded request heads for uvicorn's httptools protocol, as Go's ``net/http`` server bounds
them for the kube-apiserver and the kubelet (``http.Server`` ``MaxHeaderBytes`` and
``ReadHeaderTimeout``); used by the apiserver and the node agents' API servers alike.

- **Size.** A request line plus headers over ``max_header_bytes`` (upstream 1 MiB, plus the
  4 KiB Go allows for its read buffer) is answered as Go answers it, ``431 Request Header
  Fields Too Large`` in plain text, and the connection is closed. The count is taken on the
  bytes as they arrive, before the parser has buffered more than one read beyond the limit:
  httptools keeps a header in memory until it is complete, so without this a 64 MiB header
  was 64 MiB (and more) of memory per connection, before authentication.
- **Time.** The head must arrive within ``read_header_timeout`` (upstream's apiserver: 32 s):
  from the connection's start for its first request, from the first byte of each later one
  (idle keep-alive connections are uvicorn's ``timeout_keep_alive``). A client that is too
  slow is disconnected without an answer, as Go does.
- **Unread bodies.** A response that starts while the request body is still arriving (a 413,
  a 401, a timeout) says ``Connection: close`` and the connection is closed after it, as Go
  does when a handler left a large body unread: otherwise the server would read and discard
  the rest of a body it already refused (400 MiB of it, for a 413).
- **Lingering.** Closing a connection while the client is still sending makes the kernel
  answer with a reset, which can destroy the answer before the client reads it. So after a
  431, or a response to a request whose body is still arriving, the connection stays open
  for ``LINGER_SECONDS`` (Go's ``rstAvoidanceDelay``), everything the client still sends is
  dropped unread, and then it is closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

MAX_HEADER_BYTES = 1 << 20  # upstream's apiserver and kubelet servers: MaxHeaderBytes
HEADER_SLOP_BYTES = 4096  # Go reads MaxHeaderBytes plus this much before refusing
LINGER_SECONDS = 0.5  # Go's rstAvoidanceDelay
READ_HEADER_TIMEOUT = 32.0  # upstream apiserver ReadHeaderTimeout (shy of its 34 s request bound)
# Go's answer, byte for byte: an HTTP/1.0 status line and no Content-Length (the body ends
# with the connection).
TOO_LARGE = b"431 Request Header Fields Too Large"
TOO_LARGE_RESPONSE = (
    b"HTTP/1.0 "
    + TOO_LARGE
    + b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
    + TOO_LARGE
)


class _HeadTooLarge(Exception):
    """Raised from the parser's callback to stop parsing a head over the limit."""


class BoundedHeadHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with bounded request heads (see the module docstring).
    ``configured`` makes a subclass with other limits (tests use short ones)."""

    max_header_bytes: int = MAX_HEADER_BYTES
    read_header_timeout: float = READ_HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reading_head = True  # between requests too: the next byte starts a head
        self._head_bytes = 0
        self._head_deadline: asyncio.TimerHandle | None = None
        self._refused = False

    @classmethod
    def configured(
        cls, *, max_header_bytes: int, read_header_timeout: float
    ) -> type[BoundedHeadHttpToolsProtocol]:
        attributes = {"max_header_bytes": max_header_bytes, "read_header_timeout": read_header_timeout}
        return type(cls.__name__, (cls,), attributes)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Parse ``data``, counting it while a head is being read. ``HttpParserUpgrade``
        propagates (subclasses handle upgrades)."""
        if self._refused:
            return
        if self._reading_head:
            self._head_bytes += len(data)
            if self._head_deadline is None:
                self._arm_head_deadline()
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as err:
            if isinstance(err.__context__, _HeadTooLarge):
                self._refuse_head()
                return
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        if self._reading_head and self._head_bytes > self.max_header_bytes + HEADER_SLOP_BYTES:
            self._refuse_head()

    def on_headers_complete(self) -> None:
        self._reading_head = False
        self._disarm_head_deadline()
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.max_header_bytes + HEADER_SLOP_BYTES:
            raise _HeadTooLarge  # stops the parser before any body callback
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._reading_head, self._head_bytes = True, 0

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        cycle.transport = _LingeringTransport(cycle, self)  # type: ignore[assignment]
        super()._start_asgi_task(cycle, _closing_after_unread_body(cycle, app))

    def _refuse_head(self) -> None:
        if not self.transport.is_closing():
            self.transport.write(TOO_LARGE_RESPONSE)
        self.linger_then_close()

    def linger_then_close(self) -> None:
        """Drop whatever the client still sends, and close in ``LINGER_SECONDS``."""
        self._refused = True
        self._disarm_head_deadline()
        if not self.transport.is_closing():
            self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def _arm_head_deadline(self) -> None:
        self._disarm_head_deadline()
        self._head_deadline = self.loop.call_later(self.read_header_timeout, self._head_timed_out)

    def _disarm_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        if self._reading_head and not self.transport.is_closing():
            self.transport.close()


class _LingeringTransport:
    """The connection's transport as one request's cycle sees it: closing it while that
    request's body is still arriving lingers first (``linger_then_close``)."""

    def __init__(self, cycle: RequestResponseCycle, protocol: BoundedHeadHttpToolsProtocol) -> None:
        self._transport = cycle.transport
        self._cycle, self._protocol = cycle, protocol

    def close(self) -> None:
        if self._cycle.more_body and not self._transport.is_closing():
            self._protocol.linger_then_close()
        else:
            self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _closing_after_unread_body(cycle: RequestResponseCycle, app: Any) -> Any:
    """``app`` whose response says ``Connection: close`` when it starts before the request
    body has all arrived (uvicorn then closes the connection after it)."""

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        async def send_closing(message: Any) -> None:
            if message["type"] == "http.response.start" and cycle.more_body:
                message = {**message, "headers": [*message.get("headers", ()), (b"connection", b"close")]}
            await send(message)

        await app(scope, receive, send_closing)

    return asgi

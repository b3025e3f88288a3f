"""TCP forwarding: one accepted client connection spliced to one backend connection, with
asyncio protocols (no streams) and flow control both ways: when one side's write buffer fills
(``pause_writing``), the other side stops reading until it drains (``resume_writing``).

A client's connection is read only once a backend answered: the candidates are dialled in
order, a refusal skips to the next (refusals on loopback are immediate). When none answers,
the client is reset at once (upstream REJECTs such packets). A half close is passed on
(``write_eof``); a reset from either side resets the other (``SO_LINGER`` 0), so nothing is
left open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import Callable
from typing import cast

from nodeagent.proxy.metrics import Traffic
from nodeagent.proxy.network import Network
from nodeagent.proxy.routes import RouteRef, source_address

log = logging.getLogger("proxy")

DIAL_TIMEOUT = 2.0  # a loopback backend that neither accepts nor refuses in 2 s is skipped
_LINGER_ZERO = struct.pack("ii", 1, 0)


def reset(transport: asyncio.Transport) -> None:
    """Close with a TCP RST rather than a FIN (what a refused or reset connection looks like)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_ZERO)
    transport.abort()


class Connections:
    """The open client connections of one proxy (closed all together when it stops)."""

    def __init__(self, network: Network, traffic: Traffic) -> None:
        self.network = network
        self.traffic = traffic
        self.open: set[ClientSide] = set()

    def close_all(self) -> None:
        for connection in list(self.open):
            connection.close()


class ClientSide(asyncio.Protocol):
    """The accepted connection; it owns the dial and the backend side."""

    def __init__(self, ref: RouteRef, connections: Connections) -> None:
        self._ref = ref
        self._connections = connections
        self._traffic = connections.traffic
        self.transport: asyncio.Transport | None = None
        self.backend: BackendSide | None = None
        self._dial: asyncio.Task[None] | None = None
        self._eof = False
        self._closed = False
        self._early: list[bytes] = []  # data that came before the backend answered
        self._send: Callable[[bytes], None] | None = None  # the backend's write, once connected

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass
        transport.pause_reading()  # nothing is read until a backend answered
        self._connections.open.add(self)
        self._traffic.connections += 1
        self._traffic.active += 1
        peer = transport.get_extra_info("peername")
        client_ip = peer[0] if peer else "127.0.0.1"
        self._dial = asyncio.get_running_loop().create_task(self._connect(client_ip))

    async def _connect(self, client_ip: str) -> None:
        route = self._ref.route
        for backend in route.candidates(client_ip):
            side = BackendSide(self)
            try:
                async with asyncio.timeout(DIAL_TIMEOUT):
                    await self._connections.network.connect_tcp(
                        _factory(side),
                        backend.ip,
                        backend.port,
                        source_address(client_ip, backend.ip),
                    )
            except (OSError, TimeoutError) as err:
                self._traffic.dial_failures += 1
                log.debug("proxy: %s: backend %s: %s; trying the next", route.name, backend.address, err)
                continue
            if self._closed:  # the client left while we dialled
                side.close()
                return
            route.balancer.chosen(client_ip, backend)
            self.backend = side
            if side.transport is not None:
                self._send = side.transport.write
            for data in self._early:
                self.data_received(data)
            self._early.clear()
            if self._eof:
                side.write_eof()
            elif self.transport is not None:
                self.transport.resume_reading()
            return
        self._traffic.rejected += 1
        log.debug("proxy: %s: no backend answered %s", route.name, client_ip)
        self.close(reset_client=True)

    def data_received(self, data: bytes) -> None:
        send = self._send
        if send is not None:  # the hot path: one call, one counter
            send(data)
            self._traffic.bytes_to_backends += len(data)
        elif self.backend is None:
            # uvloop starts reading after connection_made even when it paused: hold the data
            self._early.append(data)
            if self.transport is not None:
                self.transport.pause_reading()

    def eof_received(self) -> bool:
        self._eof = True
        if self.backend is not None:
            self.backend.write_eof()
            if self.backend.eof:
                self.close()
        return True  # keep the client's direction open for the backend's answer

    def pause_writing(self) -> None:
        if self.backend is not None and self.backend.transport is not None:
            self.backend.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.backend is not None and self.backend.transport is not None:
            self.backend.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.close(reset_backend=exc is not None)

    def write_eof(self) -> None:
        if self.transport is not None and not self.transport.is_closing() and self.transport.can_write_eof():
            self.transport.write_eof()

    def close(self, *, reset_client: bool = False, reset_backend: bool = False) -> None:
        """Close both sides once (a reset, when asked, instead of a FIN)."""
        if self._closed:
            return
        self._closed = True
        self._connections.open.discard(self)
        self._traffic.active -= 1
        if self._dial is not None and not self._dial.done() and self.backend is None:
            self._dial.cancel()
        if self.transport is not None:
            if reset_client:
                reset(self.transport)
            else:
                self.transport.close()
        if self.backend is not None:
            self.backend.close(abort=reset_backend)


class BackendSide(asyncio.Protocol):
    def __init__(self, client: ClientSide) -> None:
        self._client = client
        self.transport: asyncio.Transport | None = None
        self.eof = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        client = self._client.transport
        self._send = client.write if client is not None else None
        self._traffic = self._client._traffic

    def data_received(self, data: bytes) -> None:
        if self._send is not None:
            self._send(data)
            self._traffic.bytes_to_clients += len(data)

    def eof_received(self) -> bool:
        self.eof = True
        self._client.write_eof()
        if self._client._eof:
            self._client.close()
        return True

    def pause_writing(self) -> None:
        if self._client.transport is not None:
            self._client.transport.pause_reading()

    def resume_writing(self) -> None:
        if self._client.transport is not None:
            self._client.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._client.backend is self:
            self._client.close(reset_client=exc is not None)

    def write_eof(self) -> None:
        if self.transport is not None and not self.transport.is_closing() and self.transport.can_write_eof():
            self.transport.write_eof()

    def close(self, *, abort: bool = False) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        if abort:
            reset(self.transport)
        else:
            self.transport.close()


def _factory(protocol: asyncio.Protocol) -> Callable[[], asyncio.Protocol]:
    return lambda: protocol

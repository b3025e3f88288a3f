"""The proxy's only door to sockets (a seam: unit tests pass a fake). ``listen_tcp`` and
``listen_udp`` bind a frontend; ``connect_tcp`` and ``connect_udp`` dial a backend from a
given source address, so the backend sees the client's loopback address rather than the
proxy's. Binding never sets ``SO_REUSEPORT``: an address another process serves is an error
(``OSError`` with ``EADDRINUSE``), not a silent share."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Protocol

# Linux: choose the source port at connect(), not at bind(), so binding a source address does
# not use up one ephemeral port per address for every destination
IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)
BACKLOG = 1024


class Closable(Protocol):
    def close(self) -> None: ...


class Network(Protocol):
    async def listen_tcp(self, factory: Callable[[], asyncio.Protocol], host: str, port: int) -> Closable: ...

    async def listen_udp(
        self, factory: Callable[[], asyncio.DatagramProtocol], host: str, port: int
    ) -> asyncio.DatagramTransport: ...

    async def connect_tcp(
        self, factory: Callable[[], asyncio.Protocol], host: str, port: int, source: str
    ) -> asyncio.Transport: ...

    async def connect_udp(
        self, factory: Callable[[], asyncio.DatagramProtocol], host: str, port: int, source: str
    ) -> asyncio.DatagramTransport: ...


class AsyncioNetwork:
    """Real loopback sockets through the running event loop."""

    async def listen_tcp(self, factory: Callable[[], asyncio.Protocol], host: str, port: int) -> Closable:
        sock = _socket(host, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT only, not a share
            sock.bind((host, port))
            sock.listen(BACKLOG)
        except OSError:
            sock.close()
            raise
        return await asyncio.get_running_loop().create_server(factory, sock=sock)

    async def listen_udp(
        self, factory: Callable[[], asyncio.DatagramProtocol], host: str, port: int
    ) -> asyncio.DatagramTransport:
        sock = _socket(host, socket.SOCK_DGRAM)
        try:
            sock.bind((host, port))
        except OSError:
            sock.close()
            raise
        transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(factory, sock=sock)
        return transport

    async def connect_tcp(
        self, factory: Callable[[], asyncio.Protocol], host: str, port: int, source: str
    ) -> asyncio.Transport:
        loop = asyncio.get_running_loop()
        sock = _socket(host, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if sock.family == socket.AF_INET:
                sock.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
            sock.bind((source, 0))
            await loop.sock_connect(sock, (host, port))
        except BaseException:
            sock.close()
            raise
        transport, _ = await loop.create_connection(factory, sock=sock)
        return transport

    async def connect_udp(
        self, factory: Callable[[], asyncio.DatagramProtocol], host: str, port: int, source: str
    ) -> asyncio.DatagramTransport:
        sock = _socket(host, socket.SOCK_DGRAM)
        try:
            sock.bind((source, 0))
            sock.connect((host, port))
        except OSError:
            sock.close()
            raise
        transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(factory, sock=sock)
        return transport


def _socket(host: str, kind: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, kind)
    sock.setblocking(False)
    return sock

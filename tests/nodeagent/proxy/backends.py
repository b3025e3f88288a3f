"""Real backend servers on loopback for the proxy's integration tests: a TCP echo server that
records its clients' addresses, one that accepts and resets, a UDP echo server and an HTTP
server naming itself."""

from __future__ import annotations

import asyncio
import random
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


def unique_ip(prefix: str = "127.60") -> str:
    """A loopback address unlikely to be used by a concurrent test (xdist workers), in
    127.60-63.x.y: outside the default service and pod ranges, the test clusters' network
    slots (127.64-95) and 127.0.0.0/16, so a developer's running cluster is never hit."""
    return f"{prefix}.{random.randrange(1, 255)}.{random.randrange(2, 255)}"


class _Echo(asyncio.Protocol):
    def __init__(self, peers: list[str]) -> None:
        self._peers = peers

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self._peers.append(transport.get_extra_info("peername")[0])

    def data_received(self, data: bytes) -> None:
        self.transport.write(data)  # type: ignore[attr-defined]

    def eof_received(self) -> bool:
        return False  # close after the echo is flushed


class _Reset(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()  # type: ignore[attr-defined]


class _HTTP(asyncio.Protocol):
    def __init__(self, name: str) -> None:
        self._name = name.encode()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self._buffer = b""

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while b"\r\n\r\n" in self._buffer:
            _, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
            head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n" % len(
                self._name
            )
            self.transport.write(head + self._name)  # type: ignore[attr-defined]


class _UdpEcho(asyncio.DatagramProtocol):
    def __init__(self, peers: list[str]) -> None:
        self._peers = peers

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self._peers.append(addr[0])
        self.transport.sendto(data, addr)  # type: ignore[attr-defined]


@asynccontextmanager
async def tcp_server(
    kind: str = "echo", host: str | None = None, name: str = ""
) -> AsyncIterator[tuple[str, int, list[str]]]:
    """(host, port, peers) of a running server: ``echo``, ``reset`` or ``http``."""
    host = host or unique_ip("127.61")
    peers: list[str] = []
    factories = {"echo": lambda: _Echo(peers), "reset": _Reset, "http": lambda: _HTTP(name or host)}
    server = await asyncio.get_running_loop().create_server(factories[kind], host, 0)
    try:
        yield host, server.sockets[0].getsockname()[1], peers
    finally:
        server.close()


@asynccontextmanager
async def udp_server(host: str | None = None) -> AsyncIterator[tuple[str, int, list[str]]]:
    host = host or unique_ip("127.61")
    peers: list[str] = []
    transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
        lambda: _UdpEcho(peers), (host, 0)
    )
    try:
        yield host, transport.get_extra_info("sockname")[1], peers
    finally:
        transport.close()


def refused_address() -> tuple[str, int]:
    """A loopback address and port nobody serves (a connect there is refused at once)."""
    host = unique_ip("127.62")
    with socket.socket() as probe:
        probe.bind((host, 0))
        return host, probe.getsockname()[1]

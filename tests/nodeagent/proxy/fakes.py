"""Fake sockets for the proxy's unit tests: a ``Network`` whose listeners, dials and
transports are in memory. A test accepts a client on a listener (``accept``), plays the
backend through the recorded dial (``dials``), and reads what each transport was sent."""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Key = tuple[str, str, int]  # (protocol, host, port)


class FakeTransport(asyncio.Transport):
    def __init__(self, peer: tuple[str, int]) -> None:
        super().__init__()
        self.peer = peer
        self.written = bytearray()
        self.eof_written = False
        self.closed = False
        self.aborted = False
        self.reading = True
        self.protocol: asyncio.Protocol | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        assert not self.closed, "write after close"
        self.written += data

    def write_eof(self) -> None:
        self.eof_written = True

    def can_write_eof(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.protocol is not None:
                asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    def abort(self) -> None:
        self.aborted = True
        self.close()

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_reading(self) -> bool:
        return self.reading

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.peer if name == "peername" else default


class FakeDatagramTransport(asyncio.DatagramTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[bytes, Any]] = []
        self.closed = False

    def sendto(self, data: bytes | bytearray | memoryview, addr: Any = None) -> None:
        self.sent.append((bytes(data), addr))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


@dataclass
class Dial:
    host: str
    port: int
    source: str
    transport: Any = None
    protocol: Any = None


@dataclass
class _Server:
    network: FakeNetwork
    key: Key
    closed: bool = False

    def close(self) -> None:
        self.closed = True
        self.network.listeners.pop(self.key, None)


@dataclass
class FakeNetwork:
    """``refused``: backend addresses that refuse; ``in_use``/``denied``: frontend addresses
    that fail to bind (EADDRINUSE/EACCES)."""

    refused: set[tuple[str, int]] = field(default_factory=set)
    in_use: set[tuple[str, int]] = field(default_factory=set)
    denied: set[tuple[str, int]] = field(default_factory=set)
    listeners: dict[Key, Callable[[], Any]] = field(default_factory=dict)
    udp: dict[Key, tuple[Any, FakeDatagramTransport]] = field(default_factory=dict)
    dials: list[Dial] = field(default_factory=list)
    bind_attempts: list[Key] = field(default_factory=list)

    def _check(self, key: Key) -> None:
        self.bind_attempts.append(key)
        if key[1:] in self.in_use:
            raise OSError(errno.EADDRINUSE, "Address already in use")
        if key[1:] in self.denied:
            raise PermissionError(errno.EACCES, "Permission denied")

    async def listen_tcp(self, factory: Callable[[], asyncio.Protocol], host: str, port: int) -> _Server:
        key = ("TCP", host, port)
        self._check(key)
        self.listeners[key] = factory
        return _Server(self, key)

    async def listen_udp(
        self, factory: Callable[[], asyncio.DatagramProtocol], host: str, port: int
    ) -> FakeDatagramTransport:
        key = ("UDP", host, port)
        self._check(key)
        protocol, transport = factory(), FakeDatagramTransport()
        protocol.connection_made(transport)
        self.udp[key] = (protocol, transport)
        return transport

    async def connect_tcp(
        self, factory: Callable[[], asyncio.Protocol], host: str, port: int, source: str
    ) -> FakeTransport:
        dial = Dial(host, port, source)
        self.dials.append(dial)
        if (host, port) in self.refused:
            raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
        dial.protocol, dial.transport = factory(), FakeTransport((host, port))
        dial.transport.protocol = dial.protocol
        dial.protocol.connection_made(dial.transport)
        return dial.transport  # type: ignore[no-any-return]

    async def connect_udp(
        self, factory: Callable[[], asyncio.DatagramProtocol], host: str, port: int, source: str
    ) -> FakeDatagramTransport:
        dial = Dial(host, port, source)
        self.dials.append(dial)
        dial.protocol, dial.transport = factory(), FakeDatagramTransport()
        dial.protocol.connection_made(dial.transport)
        return dial.transport  # type: ignore[no-any-return]

    def accept(self, host: str, port: int, peer: tuple[str, int] = ("127.0.0.7", 40000)) -> FakeTransport:
        """A client connects to the TCP listener on ``host:port``; its transport."""
        protocol = self.listeners[("TCP", host, port)]()
        transport = FakeTransport(peer)
        transport.protocol = protocol
        protocol.connection_made(transport)
        return transport


async def settle() -> None:
    """Let the proxy's tasks (dials) run to their next wait."""
    for _ in range(10):
        await asyncio.sleep(0)

"""The DNS server's sockets: UDP and TCP on one address (asyncio), both answered by one
``QueryHandler``.

UDP: a cached answer is sent from ``datagram_received`` itself (no task, no parse); anything
else is answered by a task. TCP (RFC 7766): messages with a two-byte length prefix, any
number per connection, answered in order; a connection idle for 10 s (CoreDNS's default) or
sending a bad prefix is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections import Counter
from typing import cast

from nodeagent.dns.handler import QueryHandler, Reply

log = logging.getLogger("dns")

TCP_IDLE = 10.0


class DNSMetrics:
    """Counters CoreDNS's ``prometheus`` plugin exports (``coredns_dns_requests_total`` by
    proto and type, ``coredns_dns_responses_total`` by rcode), kept as plain counters so the
    hot path stays a dictionary increment."""

    def __init__(self) -> None:
        self.requests: Counter[tuple[str, str]] = Counter()  # (proto, qtype)
        self.responses: Counter[str] = Counter()  # rcode
        self.dropped = 0

    def count(self, proto: str, reply: Reply) -> None:
        self.requests[(proto, reply.qtype or "other")] += 1
        self.responses[reply.rcode] += 1


class _UDP(asyncio.DatagramProtocol):
    def __init__(self, handler: QueryHandler, metrics: DNSMetrics) -> None:
        self.handler = handler
        self.metrics = metrics
        self.transport: asyncio.DatagramTransport | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        hit = self.handler.cached(data, False)
        if hit is not None and self.transport is not None:
            self.transport.sendto(data[:2] + hit.wire, addr)
            self.metrics.count("udp", hit)
            return
        task = asyncio.ensure_future(self._answer(data, addr))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, data: bytes, addr: tuple[str, int]) -> None:
        reply = await self.handler.handle(data, False)
        if reply is None:
            self.metrics.dropped += 1
            return
        if self.transport is not None and not self.transport.is_closing():
            self.transport.sendto(reply.wire, addr)
        self.metrics.count("udp", reply)

    def error_received(self, exc: Exception) -> None:  # ICMP errors of a client gone: nothing to do
        log.debug("dns: udp error %s", exc)

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()


class DNSServer:
    """UDP and TCP on ``host:port`` (0: a free port, the same for both) until ``close``."""

    def __init__(self, handler: QueryHandler, host: str = "127.0.0.1", port: int = 0) -> None:
        self.handler = handler
        self.host = host
        self.port = port
        self.metrics = DNSMetrics()
        self._udp: asyncio.DatagramTransport | None = None
        self._udp_protocol: _UDP | None = None
        self._tcp: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        tcp_sock, udp_sock = _bind_pair(self.host, self.port)
        self.port = tcp_sock.getsockname()[1]
        self._tcp = await asyncio.start_server(self._serve_connection, sock=tcp_sock)
        protocol = _UDP(self.handler, self.metrics)
        transport, _ = await loop.create_datagram_endpoint(lambda: protocol, sock=udp_sock)
        self._udp, self._udp_protocol = transport, protocol
        log.info("dns: serving on %s:%d (udp and tcp)", self.host, self.port)

    async def close(self) -> None:
        if self._udp is not None:
            self._udp.close()
        if self._udp_protocol is not None:
            self._udp_protocol.close()
        if self._tcp is not None:
            self._tcp.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while True:
                prefix = await asyncio.wait_for(reader.readexactly(2), TCP_IDLE)
                data = await asyncio.wait_for(reader.readexactly(int.from_bytes(prefix, "big")), TCP_IDLE)
                reply = await self.handler.handle(data, True)
                if reply is None:
                    self.metrics.dropped += 1
                    break
                writer.write(len(reply.wire).to_bytes(2, "big") + reply.wire)
                await writer.drain()
                self.metrics.count("tcp", reply)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


def _bind_pair(host: str, port: int) -> tuple[socket.socket, socket.socket]:
    """A TCP and a UDP socket on the same port (port 0: retry until a free port is free for both)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for _ in range(20):
        tcp = socket.socket(family, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        udp = socket.socket(family, socket.SOCK_DGRAM)
        try:
            tcp.bind((host, port))
            udp.bind((host, tcp.getsockname()[1]))
        except OSError:
            tcp.close()
            udp.close()
            if port:
                raise
            continue
        tcp.setblocking(False)
        udp.setblocking(False)
        return tcp, udp
    raise OSError(f"no port free for both udp and tcp on {host}")

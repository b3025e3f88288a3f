"""Connections to backend endpoints: opened on demand (a refusal says to try the next
endpoint), kept alive after a complete exchange and reused (nginx's ``keepalive`` to
upstreams), dropped when the backend closed them or they idled too long."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import h11

CONNECT_TIMEOUT = 5.0  # ingress-nginx's proxy-connect-timeout
IDLE_TIMEOUT = 50.0  # below the 60 s most servers keep an idle connection
MAX_IDLE_PER_ENDPOINT = 32
READ_CHUNK = 65536


@dataclass
class Upstream:
    """One connection to an endpoint, with its HTTP/1.1 client state."""

    address: tuple[str, int]
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    conn: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))
    reused: bool = False
    idle_since: float = 0.0

    async def send(self, event: h11.Event) -> None:
        data = self.conn.send(event)
        if data:
            self.writer.write(data)
            await self.writer.drain()

    async def next_event(self, timeout: float) -> h11.Event | type[h11.PAUSED]:
        """The backend's next event; EOF becomes h11's ConnectionClosed (or its error when a
        message was cut short)."""
        while True:
            event = self.conn.next_event()
            if event is not h11.NEED_DATA:
                return event  # type: ignore[return-value]
            data = await asyncio.wait_for(self.reader.read(READ_CHUNK), timeout)
            self.conn.receive_data(data)

    def reusable(self) -> bool:
        return self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE

    def close(self) -> None:
        self.writer.close()

    def abort(self) -> None:
        self.writer.transport.abort()


class UpstreamPool:
    """Idle keep-alive connections by endpoint."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[Upstream]] = {}

    async def connect(self, address: tuple[str, int]) -> Upstream:
        """A live idle connection to ``address``, else a new one (``OSError`` or
        ``TimeoutError`` when the endpoint does not accept)."""
        idle = self._idle.get(address, [])
        while idle:
            upstream = idle.pop()
            fresh = time.monotonic() - upstream.idle_since < IDLE_TIMEOUT
            if fresh and not upstream.reader.at_eof() and not upstream.writer.is_closing():
                upstream.reused = True
                return upstream
            upstream.close()
        reader, writer = await asyncio.wait_for(asyncio.open_connection(*address), CONNECT_TIMEOUT)
        return Upstream(address, reader, writer)

    def release(self, upstream: Upstream) -> None:
        """Keep ``upstream`` for the next request if its exchange completed, else close it."""
        idle = self._idle.setdefault(upstream.address, [])
        if not upstream.reusable() or len(idle) >= MAX_IDLE_PER_ENDPOINT:
            upstream.close()
            return
        upstream.conn.start_next_cycle()
        upstream.idle_since = time.monotonic()
        idle.append(upstream)

    def close(self) -> None:
        for idle in self._idle.values():
            for upstream in idle:
                upstream.close()
        self._idle.clear()

"""Real HTTP/1.1 backends on loopback for the ingress tests: each answers with its name, the
request line and the headers it got (JSON), keeps connections alive and counts them; some
misbehave on purpose (reset mid-response, upgrade to an echo pipe)."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from dataclasses import dataclass, field


@dataclass
class Backend:
    """``mode``: ``ok``, ``close`` (closes after each answer, announcing nothing), ``drop-second``
    (closes, unanswered, the second request on a connection), ``reset`` (headers and part of
    the body, then a TCP reset) or ``upgrade`` (101, then echo)."""

    name: str
    mode: str = "ok"
    connections: int = 0
    requests: list[dict[str, object]] = field(default_factory=list)
    server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def start(self) -> Backend:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while await self._one(reader, writer):
                if self.mode == "drop-second":  # the race of a keep-alive timeout: the next
                    await reader.readuntil(b"\r\n\r\n")  # request arrives as it closes
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        line, *lines = head.decode("latin-1").split("\r\n")[:-2]
        headers = {k.lower(): v.strip() for k, v in (h.split(":", 1) for h in lines)}
        body = await _read_body(reader, headers)
        seen = {"backend": self.name, "line": line, "headers": headers, "body": body.decode()}
        self.requests.append(seen)
        if self.mode == "upgrade":
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
            while data := await reader.read(65536):
                writer.write(data.upper())
            return False
        payload = json.dumps(seen).encode()
        if self.mode == "reset":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 1000)
            await writer.drain()
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(payload)
        )
        writer.write(payload)
        await writer.drain()
        return self.mode != "close"  # "close": as a server whose keep-alive timed out


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if headers.get("transfer-encoding") == "chunked":
        out = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                return out
            out += chunk[:-2]
    return await reader.readexactly(int(headers.get("content-length", "0")))


def refused_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])

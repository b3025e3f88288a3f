"""A real HTTP/1.1 server on loopback standing in for a pod, for the proxy subresource tests:
it records what arrives and answers by path.

* ``/echo...``: a JSON of the method, path (raw), query, headers and body it got;
* ``/stream``: a chunked response, one chunk now, the next once ``release`` is set (or
  ``hung_up`` set when the proxy closes the connection first);
* ``/reset``: headers and half of a declared body, then a TCP reset; ``/hangup``: no answer;
* ``/redirect``: ``302`` to ``/login``; ``/page``: an HTML page with links;
* ``/big``: ``BIG`` bytes; ``/upgrade``: ``101`` then an echo of the raw bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

BIG = 8 << 20
PAGE = (
    b'<html><head><link rel="stylesheet" href="/static/app.css"></head><body>'
    b'<a href="/docs/">docs</a> <a href="relative">rel</a> <a href="http://example.com/x">ext</a>'
    b"<img src='/img.png' alt=\"a &amp; b\"/><p>text &amp; more</p></body></html>"
)


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Backend:
    host: str = "127.0.0.1"
    port: int = 0
    seen: list[Seen] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    hung_up: asyncio.Event = field(default_factory=asyncio.Event)
    connections: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                key = name.strip().lower()
                headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        body = await _read_body(reader, headers)
        self.seen.append(Seen(method, target, headers, body))
        path = target.split("?", 1)[0]
        if path.startswith("/upgrade"):
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
            while data := await reader.read(65536):
                writer.write(data)
            return False
        if path.startswith("/stream"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
            writer.write(b"6\r\nfirst\n\r\n")
            await writer.drain()
            released = asyncio.ensure_future(self.release.wait())
            eof = asyncio.ensure_future(reader.read(1))
            await asyncio.wait((released, eof), return_when=asyncio.FIRST_COMPLETED)
            released.cancel()
            if eof.done():  # the proxy hung up on us
                self.hung_up.set()
                return False
            eof.cancel()
            writer.write(b"7\r\nsecond\n\r\n0\r\n\r\n")
            await writer.drain()
            return True
        if path.startswith("/hangup"):  # accepts, reads the request, answers nothing
            return False
        if path.startswith("/reset"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 500)
            await writer.drain()
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        if path.startswith("/redirect"):
            _answer(writer, 302, b"", [("Location", "/login"), ("Access-Control-Allow-Origin", "*")])
        elif path.startswith("/page"):
            _answer(writer, 200, PAGE, [("Content-Type", "text/html; charset=utf-8")])
        elif path.startswith("/big"):
            _answer(writer, 200, b"y" * BIG, [("Content-Type", "application/octet-stream")])
        else:
            echo = {"method": method, "target": target, "headers": headers, "body": body.decode("latin-1")}
            extra = [("Content-Type", "application/json"), ("X-Backend", "yes"), ("Keep-Alive", "timeout=5")]
            _answer(writer, 200, json.dumps(echo).encode(), extra, head_only=method == "HEAD")
        await writer.drain()
        return True


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return bytes(body)
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    length = int(headers.get("content-length", "0") or 0)
    return await reader.readexactly(length) if length else b""


def _answer(
    writer: asyncio.StreamWriter,
    code: int,
    body: bytes,
    headers: list[tuple[str, str]],
    *,
    head_only: bool = False,
) -> None:
    lines = [f"HTTP/1.1 {code} X", f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers)]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (b"" if head_only else body))


@contextlib.asynccontextmanager
async def running_backend(host: str = "127.0.0.1") -> AsyncIterator[Backend]:
    backend = Backend(host)
    server = await asyncio.start_server(backend.handle, host, 0)
    backend.port = server.sockets[0].getsockname()[1]
    try:
        yield backend
    finally:
        backend.release.set()
        server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 5)

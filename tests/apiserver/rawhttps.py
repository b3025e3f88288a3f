"""A raw HTTPS connection for tests of what an HTTP client library would not send: huge or
slow heads, bodies that trickle, stop halfway or never end. Bytes in, bytes out."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from minikube_py.pki import CertKeyPair, ClusterPKI

WAIT = 10.0  # generous: the machine is shared; nothing waits this long when the server is right


class RawHTTPS:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def send(self, data: bytes) -> bool:
        """Write ``data``; False once the server has closed the connection."""
        if self.writer.is_closing():
            return False
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (ConnectionError, ssl.SSLError):
            return False
        return True

    async def trickle(self, data: bytes, interval: float) -> None:
        """Send ``data`` a byte at a time until it is sent or the server hangs up."""
        for index in range(len(data)):
            if not await self.send(data[index : index + 1]):
                return
            await asyncio.sleep(interval)

    async def until_closed(self, timeout: float = WAIT) -> bytes:
        """Everything the server sends until it closes the connection."""
        received = bytearray()
        async with asyncio.timeout(timeout):
            while True:
                try:
                    chunk = await self.reader.read(65536)
                except (ConnectionError, ssl.SSLError):
                    break
                if not chunk:
                    break
                received += chunk
        return bytes(received)


@contextlib.asynccontextmanager
async def raw_https(url: str, pki: ClusterPKI, cert: CertKeyPair | None = None) -> AsyncIterator[RawHTTPS]:
    """A TLS connection to ``url``, verified against the cluster CA, presenting ``cert``."""
    context = ssl.create_default_context(cafile=str(pki.ca.cert))
    if cert is not None:
        context.load_cert_chain(cert.cert, cert.key)
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port, ssl=context)
    try:
        yield RawHTTPS(reader, writer)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            await writer.wait_closed()


def head(method: str, path: str, *headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: apiserver", *headers, "", ""]
    return "\r\n".join(lines).encode()


def parse_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Status code, headers (lower-case names) and body of one response; a chunked body is
    decoded."""
    top, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = top.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        decoded = bytearray()
        while body:
            size_line, _, rest = body.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            decoded += rest[:size]
            body = rest[size + 2 :]
        body = bytes(decoded)
    return int(status_line.split()[1]), headers, body


def status_of(raw: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    """A response whose body is a JSON Status."""
    code, headers, body = parse_response(raw)
    return code, headers, json.loads(body)

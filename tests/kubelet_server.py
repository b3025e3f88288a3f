"""A stand-in node agent for tests: a tiny real HTTPS server on loopback that answers what a
test scripts and records what it was asked.

``FakeKubelet(ca, workdir)`` serves on ``127.0.0.1`` (a free port) with a certificate for
``127.0.0.1`` and ``localhost`` issued by ``ca``, and asks for client certificates that chain to
``ca`` (optional, so a client without one is recorded rather than refused), as a kubelet with
``--client-ca-file`` does. Every request is kept in ``seen`` with the verified client subject.

Each response is the current ``reply``: a status, a content type and body chunks, sent with
chunked transfer encoding. With ``hold`` set, the server sends the first chunk, then waits for
the event before sending the rest, so a test can observe a follow stream in flight; a client
that hangs up meanwhile is counted in ``hangups``. It speaks
just enough HTTP/1.1 for one request per connection (no bodies, ``Connection: close``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization

from minikube_py.pki import CertificateAuthority, PrivateKey, issue_serving_certificate, write_file


@dataclass
class Seen:
    """One request: method, path, raw query string and the client certificate's subject
    (``{"commonName": ..., "organizationName": ...}``; empty without a certificate)."""

    method: str
    path: str
    query: str
    client: dict[str, str]


@dataclass
class Reply:
    status: int = 200
    content_type: str = "text/plain"
    chunks: list[bytes] = field(default_factory=list)
    hold: asyncio.Event | None = None


class FakeKubelet:
    def __init__(self, ca: CertificateAuthority, workdir: Path) -> None:
        certificate, key = issue_serving_certificate(
            ca, dns_names=("localhost",), ip_addresses=("127.0.0.1",)
        )
        self.cert_file, self.key_file, self.ca_file = (
            workdir / "kubelet.crt",
            workdir / "kubelet.key",
            workdir / "ca.crt",
        )
        write_file(self.cert_file, certificate.public_bytes(serialization.Encoding.PEM))
        write_file(self.key_file, _key_pem(key))
        write_file(self.ca_file, ca.certificate.public_bytes(serialization.Encoding.PEM))
        self.reply = Reply()
        self.seen: list[Seen] = []
        self.connections = 0
        self.hangups = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> FakeKubelet:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_file, self.key_file)
        context.load_verify_locations(self.ca_file)
        context.verify_mode = ssl.CERT_OPTIONAL
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def stop(self) -> None:
        """Stop listening: the port refuses connections from now on."""
        if self._server is not None:
            self._server.close()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            writer.close()  # a client that only dialled, or gave up
            return
        method, target, _version = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
        url = urlsplit(target)
        self.seen.append(Seen(method, url.path, url.query, _subject(writer.get_extra_info("peercert"))))
        reply = self.reply
        writer.write(
            f"HTTP/1.1 {reply.status} X\r\nContent-Type: {reply.content_type}\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()
        )
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            for index, chunk in enumerate(reply.chunks):
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
                if index == 0 and reply.hold is not None and await _hung_up(reply.hold, reader):
                    self.hangups += 1
                    writer.close()
                    return
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            writer.close()
            await writer.wait_closed()


async def _hung_up(hold: asyncio.Event, reader: asyncio.StreamReader) -> bool:
    """Wait for ``hold``; True when the client closed the connection first."""
    released, closed = asyncio.ensure_future(hold.wait()), asyncio.ensure_future(reader.read(1))
    done, pending = await asyncio.wait({released, closed}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    return released not in done


def _subject(peercert: object) -> dict[str, str]:
    if not isinstance(peercert, dict):
        return {}
    return {key: value for rdn in peercert.get("subject", ()) for key, value in rdn}


def _key_pem(key: PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )

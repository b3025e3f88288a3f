"""A real admission webhook for tests: an HTTPS ``AdmissionReview`` server on loopback.

``WebhookServer()`` makes its own test CA and a serving certificate for ``127.0.0.1``,
``localhost`` and any ``dns_names`` given (a ``service`` reference needs
``<name>.<namespace>.svc``); ``ca_bundle`` is the CA as a webhook's ``clientConfig.caBundle``
wants it (base64 PEM). Each path answers with its handler (``handle(path, fn)``): ``fn`` gets
the review's ``request`` and returns the ``response`` (the server adds ``uid`` and wraps it in
an ``admission.k8s.io/v1`` review; a handler may also return a whole review as ``raw``). Async
handlers may sleep, to make the apiserver time out. Every request is kept in ``seen`` (path,
query string, the review received). Unknown paths answer 404.

Use it inside a running event loop (``async with WebhookServer() as server``), or from
synchronous tests (an apiserver in another process) with ``with server.in_thread():``, which
serves from a loop of its own in a background thread.

Handlers for the common answers: ``allow``, ``deny(message, code, reason)``,
``patch(operations)`` (a base64 JSONPatch), ``slow(seconds, then)``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import json
import ssl
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization

from minikube_py.pki import issue_serving_certificate, new_certificate_authority, write_file

Review = dict[str, Any]


@dataclass
class Seen:
    path: str
    query: str
    review: Review


@dataclass
class Raw:
    """A handler's answer sent as is (a whole review, or anything else as JSON)."""

    body: Any
    status: int = 200


Answer = Review | Raw
Handler = Callable[[Review], Answer | Awaitable[Answer]]


def allow(request: Review) -> Answer:
    return {"allowed": True}


def deny(message: str, code: int = 403, reason: str = "Forbidden") -> Handler:
    def handler(request: Review) -> Answer:
        return {"allowed": False, "status": {"message": message, "code": code, "reason": reason}}

    return handler


def patch(operations: list[dict[str, Any]], **extra: Any) -> Handler:
    encoded = base64.b64encode(json.dumps(operations).encode()).decode()

    def handler(request: Review) -> Answer:
        return {"allowed": True, "patchType": "JSONPatch", "patch": encoded, **extra}

    return handler


def slow(seconds: float, then: Handler = allow) -> Handler:
    async def handler(request: Review) -> Answer:
        await asyncio.sleep(seconds)
        answer = then(request)
        return await answer if inspect.isawaitable(answer) else answer

    return handler


class WebhookServer:
    def __init__(self, dns_names: Sequence[str] = ()) -> None:
        self.ca = new_certificate_authority("webhook-test-ca")
        certificate, key = issue_serving_certificate(
            self.ca, dns_names=("localhost", *dns_names), ip_addresses=("127.0.0.1",)
        )
        self._dir = tempfile.TemporaryDirectory(prefix="webhook-server-")
        workdir = Path(self._dir.name)
        self.cert_file, self.key_file = workdir / "webhook.crt", workdir / "webhook.key"
        write_file(self.cert_file, certificate.public_bytes(serialization.Encoding.PEM))
        write_file(
            self.key_file,
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ),
        )
        self.ca_pem = self.ca.certificate.public_bytes(serialization.Encoding.PEM)
        self.handlers: dict[str, Handler] = {}
        self.seen: list[Seen] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    @property
    def ca_bundle(self) -> str:
        return base64.b64encode(self.ca_pem).decode()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def handle(self, path: str, handler: Handler) -> None:
        self.handlers[path] = handler

    def reviews(self, path: str) -> list[Review]:
        return [seen.review for seen in self.seen if seen.path == path]

    async def __aenter__(self) -> WebhookServer:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_file, self.key_file)
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, ssl=context)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        self._dir.cleanup()

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[WebhookServer]:
        """Serve from a private event loop in a daemon thread until the block ends."""
        loop = asyncio.new_event_loop()
        started = threading.Event()
        stop = asyncio.Event()

        async def run() -> None:
            async with self:
                started.set()
                await stop.wait()

        thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
        thread.start()
        started.wait(10)
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(stop.set)
            thread.join(10)
            loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {
                k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)
            }
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            target = urlsplit(lines[0].split(" ")[1])
            status, answer = await self._answer(target.path, target.query, body)
            payload = json.dumps(answer).encode()
            writer.write(
                f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                await writer.wait_closed()

    async def _answer(self, path: str, query: str, body: bytes) -> tuple[int, Any]:
        review = json.loads(body)
        self.seen.append(Seen(path, query, review))
        handler = self.handlers.get(path)
        if handler is None:
            return 404, {"error": f"no handler for {path}"}
        answer = handler(review.get("request") or {})
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, Raw):
            return answer.status, answer.body
        response = {"uid": (review.get("request") or {}).get("uid", ""), **answer}
        return 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}

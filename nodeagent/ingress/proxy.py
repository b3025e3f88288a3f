"""The ingress controller's HTTP/1.1 front: one asyncio server on ``127.0.0.1:<port>``.

Per client connection, requests are read in turn (keep-alive, pipelining as HTTP/1.1 allows);
each is routed (``Router``), forwarded to a ready endpoint with ingress-nginx's headers
(``X-Forwarded-For``/``-Host``/``-Port``/``-Proto``/``-Scheme``, ``X-Real-IP``,
``X-Request-ID``; the client's own ``X-Forwarded-*`` are replaced, as ingress-nginx does when
``use-forwarded-headers`` is off), its body streamed up and the response streamed back (h11
keeps both framings right). An endpoint that refuses is skipped for the next; when all refuse
the answer is 502. A backend that fails once its response has begun makes the client
connection close (the client must not take a cut response for a whole one). A 101 answer to
an ``Upgrade`` request (WebSocket) turns both connections into a byte pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import h11

from nodeagent.ingress.pages import error_response
from nodeagent.ingress.routes import Backend, host_name
from nodeagent.ingress.upstream import READ_CHUNK, Upstream, UpstreamPool

log = logging.getLogger("ingress")

CLIENT_IDLE_TIMEOUT = 75.0  # nginx's keepalive_timeout
READ_TIMEOUT = 60.0  # ingress-nginx's proxy-read-timeout
HOP_BY_HOP = frozenset(
    b"connection keep-alive proxy-connection proxy-authenticate proxy-authorization te trailer "
    b"upgrade".split()
)
REPLACED = frozenset(
    b"x-forwarded-for x-forwarded-host x-forwarded-port x-forwarded-proto x-forwarded-scheme "
    b"x-real-ip x-request-id x-scheme".split()
)
Headers = list[tuple[bytes, bytes]]


@dataclass(frozen=True, slots=True)
class Route:
    """Where a request goes: no backend is the 404; a backend without endpoints the 503;
    ``https_port`` a 308 to the same URL over HTTPS on that port."""

    backend: Backend | None
    endpoints: tuple[tuple[str, int], ...] = ()
    https_port: int | None = None


Router = Callable[[str, str, str], Route]  # (host, path, scheme) -> Route


class Closed(Exception):
    """The client connection must close (it is cut, or no longer in step)."""


class IngressProxy:
    """Serves ``router``'s routes; ``port`` and ``scheme`` are where and how it listens (for
    ``X-Forwarded-Port``/``-Proto``)."""

    def __init__(self, router: Router, port: int = 80, scheme: str = "http") -> None:
        self.router = router
        self.port = port
        self.scheme = scheme
        self.pool = UpstreamPool()
        self._turn = itertools.count()
        self._clients: set[asyncio.StreamWriter] = set()
        self._refusing: set[tuple[str, int]] = set()

    def close(self) -> None:
        """Drop every client connection and idle backend connection (the server is closed)."""
        for writer in list(self._clients):
            writer.transport.abort()
        self.pool.close()

    async def serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER)
        peer = writer.get_extra_info("peername") or ("", 0)
        self._clients.add(writer)
        try:
            while True:
                event = await _next_event(conn, reader, CLIENT_IDLE_TIMEOUT)
                if not isinstance(event, h11.Request):
                    break
                await self._exchange(conn, reader, writer, event, str(peer[0]))
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    break
                conn.start_next_cycle()
        except h11.RemoteProtocolError:
            await _answer_bad_request(conn, writer)
        except (Closed, OSError, TimeoutError, h11.LocalProtocolError):
            writer.transport.abort()
        finally:
            self._clients.discard(writer)
            writer.close()

    async def _exchange(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        client_ip: str,
    ) -> None:
        host = _header(request.headers, b"host")
        path = request.target.split(b"?", 1)[0].decode("latin-1")
        route = self.router(host, path, self.scheme)
        if route.https_port is not None:
            await _drain(conn, reader)
            await _send_redirect(conn, writer, _https_url(host, route.https_port, request.target))
            return
        if route.backend is None or not route.endpoints:
            await _drain(conn, reader)
            await _send_error(conn, writer, 404 if route.backend is None else 503)
            return
        headers = self._upstream_headers(request, host, client_ip)
        upstream = await self._connect(route)
        if upstream is None:
            await _drain(conn, reader)
            await _send_error(conn, writer, 502)
            return
        try:
            await self._forward(conn, reader, writer, request, headers, upstream)
        except BaseException:
            upstream.abort()
            raise

    async def _connect(self, route: Route) -> Upstream | None:
        """A connection to one of the endpoints, trying each in turn from a rotating start."""
        start = next(self._turn) % len(route.endpoints)
        for address in route.endpoints[start:] + route.endpoints[:start]:
            try:
                upstream = await self.pool.connect(address)
            except (OSError, TimeoutError) as err:
                if address not in self._refusing:  # once until it accepts again, not per request
                    self._refusing.add(address)
                    log.warning("ingress: endpoint %s:%d of %s refused: %s", *address, _named(route), err)
                continue
            self._refusing.discard(address)
            return upstream
        return None

    def _upstream_headers(self, request: h11.Request, host: str, client_ip: str) -> Headers:
        upgrade = _header(request.headers, b"upgrade")
        kept = [
            (name, value)
            for name, value in request.headers
            if name not in HOP_BY_HOP and name not in REPLACED and name != b"expect"
        ]
        kept += [
            (b"x-request-id", secrets.token_hex(16).encode()),
            (b"x-real-ip", client_ip.encode()),
            (b"x-forwarded-for", client_ip.encode()),
            (b"x-forwarded-host", host.encode("latin-1")),
            (b"x-forwarded-port", str(self.port).encode()),
            (b"x-forwarded-proto", self.scheme.encode()),
            (b"x-forwarded-scheme", self.scheme.encode()),
            (b"x-scheme", self.scheme.encode()),
        ]
        if upgrade:
            kept += [(b"upgrade", upgrade.encode("latin-1")), (b"connection", b"upgrade")]
        if not host:  # an HTTP/1.0 request may have none; HTTP/1.1 to the backend needs one
            kept.append((b"host", f"127.0.0.1:{self.port}".encode()))
        return kept

    async def _forward(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        headers: Headers,
        upstream: Upstream,
    ) -> None:
        if conn.they_are_waiting_for_100_continue:
            await _send(conn, writer, h11.InformationalResponse(status_code=100, headers=[]))
        forwarded = h11.Request(method=request.method, target=request.target, headers=headers)
        try:
            await upstream.send(forwarded)
        except OSError:
            await self._retry_or_fail(conn, reader, writer, request, headers, upstream)
            return
        await _pump_request_body(conn, reader, upstream)
        await self._relay_response(conn, reader, writer, request, headers, upstream)

    async def _retry_or_fail(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        headers: Headers,
        upstream: Upstream,
    ) -> None:
        """A kept-alive connection the backend had closed: once more on a new connection when
        nothing of the request's body has been read yet; else 502."""
        upstream.abort()
        if upstream.reused and not _has_body(request):
            try:
                fresh = await self.pool.connect(upstream.address)
            except (OSError, TimeoutError):
                fresh = None
            if fresh is not None:
                await self._forward(conn, reader, writer, request, headers, fresh)
                return
        await _drain(conn, reader)
        await _send_error(conn, writer, 502)

    async def _relay_response(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        headers: Headers,
        upstream: Upstream,
    ) -> None:
        started = False
        try:
            while True:
                event = await upstream.next_event(READ_TIMEOUT)
                if isinstance(event, h11.InformationalResponse) and event.status_code != 101:
                    continue  # the client already had its 100 Continue from us
                if isinstance(event, h11.InformationalResponse):
                    await self._switch_protocols(conn, reader, writer, event, upstream)
                    return
                if isinstance(event, h11.Response):
                    started = True
                    await _send(conn, writer, _client_response(event))
                elif isinstance(event, h11.Data):
                    await _send(conn, writer, h11.Data(data=event.data))
                elif isinstance(event, h11.EndOfMessage):
                    await _send(conn, writer, h11.EndOfMessage())
                    self.pool.release(upstream)
                    return
                else:  # closed before a response: as a refusal
                    raise ConnectionResetError("backend closed the connection")
        except TimeoutError:
            upstream.abort()
            if started:
                raise Closed from None
            await _send_error(conn, writer, 504)
        except (OSError, h11.RemoteProtocolError) as err:
            upstream.abort()
            if started:
                log.warning("ingress: backend %s:%d failed mid-response: %s", *upstream.address, err)
                raise Closed from None
            if upstream.reused and not _has_body(request):
                await self._retry_or_fail(conn, reader, writer, request, headers, upstream)
                return
            await _send_error(conn, writer, 502)

    async def _switch_protocols(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        event: h11.InformationalResponse,
        upstream: Upstream,
    ) -> None:
        """101: pass the bytes both ways until either side closes, then close both."""
        await _send(
            conn,
            writer,
            h11.InformationalResponse(status_code=101, headers=event.headers, reason=event.reason),
        )
        client_rest, _ = conn.trailing_data
        upstream_rest, _ = upstream.conn.trailing_data
        if upstream_rest:
            writer.write(upstream_rest)
        if client_rest:
            upstream.writer.write(client_rest)
        await asyncio.gather(
            _pipe(reader, upstream.writer), _pipe(upstream.reader, writer), return_exceptions=True
        )
        upstream.close()
        raise Closed


def _named(route: Route) -> str:
    backend = route.backend
    return "" if backend is None else f"{backend.ingress} backend {backend.service}:{backend.port}"


def _https_url(host: str, port: int, target: bytes) -> str:
    name = host_name(host)
    return f"https://{name}{'' if port == 443 else f':{port}'}{target.decode('latin-1')}"


def _header(headers: Sequence[tuple[bytes, bytes]], name: bytes) -> str:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return ""


def _has_body(request: h11.Request) -> bool:
    length = _header(request.headers, b"content-length")
    return bool(_header(request.headers, b"transfer-encoding")) or (bool(length) and length != "0")


def _client_response(event: h11.Response) -> h11.Response:
    headers = [(n, v) for n, v in event.headers if n not in HOP_BY_HOP]
    return h11.Response(status_code=event.status_code, headers=headers, reason=event.reason)


async def _next_event(conn: h11.Connection, reader: asyncio.StreamReader, timeout: float) -> object:
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        conn.receive_data(await asyncio.wait_for(reader.read(READ_CHUNK), timeout))


async def _send(conn: h11.Connection, writer: asyncio.StreamWriter, event: h11.Event) -> None:
    data = conn.send(event)
    if data:
        writer.write(data)
        await writer.drain()


async def _pump_request_body(conn: h11.Connection, reader: asyncio.StreamReader, upstream: Upstream) -> None:
    """The client's body up to the backend as it arrives (a retried bodiless request's end
    was read already: only the end is sent)."""
    while conn.their_state is h11.SEND_BODY:
        event = await _next_event(conn, reader, READ_TIMEOUT)
        if isinstance(event, h11.Data):
            await upstream.send(h11.Data(data=event.data))
        elif isinstance(event, h11.EndOfMessage):
            break
        else:
            raise Closed  # the client went away mid-body
    await upstream.send(h11.EndOfMessage())


async def _drain(conn: h11.Connection, reader: asyncio.StreamReader) -> None:
    """Read the request's body to its end, so the connection can carry the next request."""
    while conn.their_state is h11.SEND_BODY:
        event = await _next_event(conn, reader, READ_TIMEOUT)
        if not isinstance(event, h11.Data | h11.EndOfMessage):
            raise Closed


async def _send_error(conn: h11.Connection, writer: asyncio.StreamWriter, status: int) -> None:
    response, body = error_response(status)
    await _send(conn, writer, response)
    await _send(conn, writer, h11.Data(data=body))
    await _send(conn, writer, h11.EndOfMessage())


async def _send_redirect(conn: h11.Connection, writer: asyncio.StreamWriter, location: str) -> None:
    response, body = error_response(308, location=location)
    await _send(conn, writer, response)
    await _send(conn, writer, h11.Data(data=body))
    await _send(conn, writer, h11.EndOfMessage())


async def _answer_bad_request(conn: h11.Connection, writer: asyncio.StreamWriter) -> None:
    if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
        return
    with contextlib.suppress(OSError, h11.LocalProtocolError):
        await _send_error(conn, writer, 400)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(READ_CHUNK):
            sink.write(data)
            await sink.drain()
    finally:
        sink.close()

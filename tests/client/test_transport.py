"""The ``Transport`` contract (``minikube_py.client.transport``).

``AiohttpTransport`` against real loopback servers: an ``aiohttp.web`` app that records what
arrives, raw ``asyncio`` servers that misbehave on purpose, and the real HTTPS apiserver for
TLS. Checks that a request goes out as given (encoded URL untouched, our headers once, no
Content-Type we did not set), that a gzip body is decoded once, that aiohttp's failures become
the ``TransportError`` the retry policy reasons about, and that closing a stream or the
transport gives the connections back.

``HttpxTransport`` over ``httpx.MockTransport``: the same contract, with httpx's errors mapped
to the same ``TransportError`` classes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field

import aiohttp
import httpx
import pytest
from aiohttp import web

from minikube_py.client import RetryPolicy
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.transport import (
    AiohttpTransport,
    ConnectError,
    ConnectionLost,
    ConnectTimeout,
    DecodingError,
    HTTPRequest,
    HTTPResponse,
    HttpxTransport,
    ReadTimeout,
    TransportError,
)
from tests.client.apiserver import RunningApiserver

SHORT = 5.0  # seconds: nothing here should take longer; a hang fails instead of blocking


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    raw_path: str
    headers: list[tuple[bytes, bytes]]
    body: bytes

    def values(self, name: str) -> list[bytes]:
        """Every value sent for header ``name`` (any case)."""
        wanted = name.lower().encode()
        return [value for key, value in self.headers if key.lower() == wanted]


@dataclass
class Recorder:
    url: str
    seen: list[Seen] = field(default_factory=list)
    stream_closed: asyncio.Event = field(default_factory=asyncio.Event)


PLAIN = b'{"kind":"ConfigMap","data":{"k":"' + b"v" * 2000 + b'"}}'


def _app(recorder: Recorder) -> web.Application:
    async def echo(request: web.Request) -> web.Response:
        body = await request.read()
        recorder.seen.append(Seen(request.method, request.raw_path, list(request.raw_headers), body))
        return web.Response(
            status=201 if request.method == "POST" else 200,
            body=body or PLAIN,
            headers={"X-Echo-Method": request.method, "Content-Type": "application/json"},
        )

    async def gzipped(request: web.Request) -> web.Response:
        recorder.seen.append(Seen(request.method, request.raw_path, list(request.raw_headers), b""))
        return web.Response(
            body=gzip.compress(PLAIN),
            headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
        )

    async def endless(request: web.Request) -> web.StreamResponse:
        """A watch-like body that never ends on its own (chunked, a line every few ms)."""
        response = web.StreamResponse()
        await response.prepare(request)
        try:
            for n in range(100_000):
                await response.write(b'{"type":"ADDED","n":%d}\n' % n)
                await asyncio.sleep(0.005)
        except (ConnectionError, aiohttp.ClientConnectionResetError):
            pass
        finally:
            recorder.stream_closed.set()
        return response

    app = web.Application()
    app.router.add_route("*", "/echo/{tail:.*}", echo)
    app.router.add_get("/gzip", gzipped)
    app.router.add_get("/endless", endless)
    return app


@pytest.fixture
async def web_server() -> AsyncIterator[Recorder]:
    recorder = Recorder(url="")
    runner = web.AppRunner(_app(recorder), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server = site._server
    assert isinstance(server, asyncio.Server)
    recorder.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        yield recorder
    finally:
        await runner.cleanup()


@pytest.fixture
async def transport() -> AsyncIterator[AiohttpTransport]:
    aio = AiohttpTransport()
    try:
        yield aio
    finally:
        await aio.aclose()


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[str]:
    """A bare TCP server on loopback running ``handler`` per connection; yields its URL."""
    tasks: set[asyncio.Task[None]] = set()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        # cancelled at teardown: end quietly (3.11's start_server logs a cancelled handler)
        with contextlib.suppress(asyncio.CancelledError):
            try:
                await handler(reader, writer)
            finally:
                writer.close()
                with contextlib.suppress(ConnectionError):
                    await writer.wait_closed()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()


async def read_head(reader: asyncio.StreamReader) -> bytes:
    """The request line and headers (the requests here have no body)."""
    return await reader.readuntil(b"\r\n\r\n")


def req(
    url: str,
    method: str = "GET",
    *,
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    read_timeout: float | None = SHORT,
    connect_timeout: float | None = SHORT,
) -> HTTPRequest:
    return HTTPRequest(
        method,
        url,
        headers or {},
        body,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
    )


async def fetch(transport: AiohttpTransport | HttpxTransport, request: HTTPRequest) -> HTTPResponse:
    """``request`` sent with ``stream=False``, bounded by ``SHORT``."""
    return await asyncio.wait_for(transport.send(request, stream=False), SHORT)


async def drain(response: HTTPResponse) -> bytes:
    return b"".join([chunk async for chunk in response.chunks()])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cause_chain(error: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


OURS = {
    "Authorization": "Bearer s3cr3t",
    "Accept": "application/json",
    "User-Agent": "minikube-py/test",
}


# AiohttpTransport: requests and responses


async def test_get_sends_the_url_and_headers_exactly_as_given(
    web_server: Recorder, transport: AiohttpTransport
) -> None:
    raw = "/echo/api/v1/namespaces/default/configmaps?labelSelector=a%3Db,c!%3Dd&limit=5"
    encoded = "/echo/x?labelSelector=a%3Db%2Cc%21%3Dd&q=%C3%A9%20%2F%2B&lower=%3d"
    response = await fetch(transport, req(web_server.url + raw, headers=OURS))
    second = await fetch(transport, req(web_server.url + encoded, headers=OURS))
    assert response.status == 200
    assert response.content == PLAIN
    assert response.headers["x-echo-method"] == "GET"
    assert response.headers["Content-Type"] == "application/json"  # case-insensitive
    assert second.status == 200
    first, other = web_server.seen
    assert first.method == "GET"
    assert first.raw_path == raw  # no re-encoding, no normalization
    assert other.raw_path == encoded
    for name, value in OURS.items():  # each of ours once, as given (none replaced by aiohttp's)
        assert first.values(name) == [value.encode()], name
    names = [name.lower() for name, _ in first.headers]
    assert len(names) == len(set(names)), first.headers  # nothing doubled
    # all aiohttp adds: Host and its Accept-Encoding (no body, no Content-Type)
    assert set(names) - {name.lower().encode() for name in OURS} == {b"host", b"accept-encoding"}
    assert first.values("Host") == [web_server.url.removeprefix("http://").encode()]
    assert first.body == b""


async def test_post_body_and_content_type_round_trip(
    web_server: Recorder, transport: AiohttpTransport
) -> None:
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"\xc3\xa9"}}'
    path = "/echo/api/v1/namespaces/default/configmaps?fieldManager=a%20b"
    headers = {**OURS, "Content-Type": "application/json"}
    response = await fetch(transport, req(web_server.url + path, "POST", headers=headers, body=body))
    assert response.status == 201
    assert response.content == body
    assert response.headers["x-echo-method"] == "POST"
    (seen,) = web_server.seen
    assert seen.method == "POST"
    assert seen.body == body
    assert seen.raw_path == path
    assert seen.values("Content-Length") == [str(len(body)).encode()]
    assert seen.values("Content-Type") == [b"application/json"]
    assert seen.values("Authorization") == [b"Bearer s3cr3t"]
    names = [name.lower() for name, _ in seen.headers]
    assert len(names) == len(set(names)), seen.headers


async def test_no_content_type_unless_the_caller_gives_one(
    web_server: Recorder, transport: AiohttpTransport
) -> None:
    # lower-case names: aiohttp must see them as the headers it would otherwise add itself
    headers = {"authorization": "Bearer x", "user-agent": "ours/1"}
    response = await fetch(
        transport, req(web_server.url + "/echo/raw", "POST", headers=headers, body=b"\x00\x01")
    )
    bare = await fetch(transport, req(web_server.url + "/echo/bare", "POST", body=b"\x02"))
    assert response.status == 201
    assert bare.status == 201
    seen, seen_bare = web_server.seen
    assert seen.body == b"\x00\x01"
    assert seen.values("Content-Type") == []  # not aiohttp's application/octet-stream
    assert seen.values("Content-Length") == [b"2"]
    assert seen.values("User-Agent") == [b"ours/1"]
    assert seen.values("Authorization") == [b"Bearer x"]
    assert seen_bare.body == b"\x02"
    assert seen_bare.values("Content-Type") == []
    # none given: aiohttp sends exactly one User-Agent of its own
    (agent,) = seen_bare.values("User-Agent")
    assert b"aiohttp" in agent


async def test_gzip_body_is_decoded_exactly_once(web_server: Recorder, transport: AiohttpTransport) -> None:
    response = await fetch(transport, req(web_server.url + "/gzip", headers=OURS))
    streamed = await asyncio.wait_for(transport.send(req(web_server.url + "/gzip"), stream=True), SHORT)
    try:
        assert streamed.status == 200
        assert streamed.content == b""  # a streamed body comes from chunks() only
        chunks = await asyncio.wait_for(drain(streamed), SHORT)
    finally:
        await streamed.aclose()
    assert response.status == 200
    assert response.content == PLAIN
    assert chunks == PLAIN
    (accept,) = web_server.seen[0].values("Accept-Encoding")
    assert b"gzip" in accept


# AiohttpTransport: failures become TransportError


async def test_connection_refused_is_a_connect_error_safe_to_retry(transport: AiohttpTransport) -> None:
    with pytest.raises(ConnectError) as caught:
        await fetch(transport, req(f"http://127.0.0.1:{free_port()}/version", "POST", body=b"{}"))
    assert caught.value.not_sent
    assert RetryPolicy().retryable_error("POST", caught.value)  # nothing was sent


async def test_connect_timeout_when_the_server_never_accepts(transport: AiohttpTransport) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)  # never accepted: the queue fills and later SYNs are dropped
        port = listener.getsockname()[1]
        fillers = []
        try:
            for _ in range(4):
                filler = socket.socket()
                filler.setblocking(False)
                fillers.append(filler)
                with contextlib.suppress(BlockingIOError):
                    filler.connect(("127.0.0.1", port))
            start = time.monotonic()
            with pytest.raises(ConnectTimeout) as caught:
                await fetch(transport, req(f"http://127.0.0.1:{port}/", connect_timeout=0.2))
            assert time.monotonic() - start < 2.0
        finally:
            for filler in fillers:
                filler.close()
    assert caught.value.not_sent
    assert RetryPolicy().retryable_error("POST", caught.value)


async def test_certificate_that_fails_verification_is_a_connect_error_not_retried(
    apiserver: RunningApiserver,
) -> None:
    trusted = AiohttpTransport(load_kubeconfig(apiserver.kubeconfig).ssl_context())
    try:
        answer = await fetch(trusted, req(apiserver.url + "/version"))
    finally:
        await trusted.aclose()
    assert answer.status == 200  # the right CA: TLS works
    assert b"gitVersion" in answer.content
    # the system store does not know the cluster CA
    untrusted = AiohttpTransport(ssl.create_default_context())
    try:
        with pytest.raises(ConnectError) as caught:
            await fetch(untrusted, req(apiserver.url + "/version"))
    finally:
        await untrusted.aclose()
    assert any(isinstance(e, ssl.SSLCertVerificationError) for e in cause_chain(caught.value))
    assert not RetryPolicy().retryable_error("GET", caught.value)
    assert not RetryPolicy().retryable_error("POST", caught.value)


@pytest.mark.parametrize("stream", [False, True])
async def test_server_closing_before_answering_is_connection_lost(
    transport: AiohttpTransport, stream: bool
) -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_head(reader)

    async with raw_server(hang_up) as url:
        with pytest.raises(ConnectionLost) as caught:
            await asyncio.wait_for(transport.send(req(url + "/"), stream=stream), SHORT)
    assert not caught.value.not_sent  # the request went out
    assert not RetryPolicy().retryable_error("POST", caught.value)
    assert RetryPolicy().retryable_error("GET", caught.value)


async def test_a_corrupt_gzip_body_is_a_decoding_error_never_retried(transport: AiohttpTransport) -> None:
    async def corrupt(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\nnot gzip!!")
        await writer.drain()

    async with raw_server(corrupt) as url:
        with pytest.raises(DecodingError) as caught:
            await fetch(transport, req(url + "/"))
    assert not RetryPolicy().retryable_error("GET", caught.value)


async def test_server_closing_mid_body_is_connection_lost(transport: AiohttpTransport) -> None:
    async def truncate(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
        writer.write(b'{"partial":')
        await writer.drain()

    async with raw_server(truncate) as url:
        with pytest.raises(ConnectionLost):
            await fetch(transport, req(url + "/"))
        response = await asyncio.wait_for(transport.send(req(url + "/"), stream=True), SHORT)
        try:
            assert response.status == 200  # the head arrived; the body fails
            with pytest.raises(ConnectionLost):
                await asyncio.wait_for(drain(response), SHORT)
        finally:
            await response.aclose()


async def test_read_timeout_before_the_head_and_inside_the_body(transport: AiohttpTransport) -> None:
    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await read_head(reader)
        if head.startswith(b"GET /body"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            await writer.drain()
        await asyncio.sleep(SHORT * 2)

    async with raw_server(stall) as url:
        for path in ("/head", "/body"):
            start = time.monotonic()
            with pytest.raises(ReadTimeout) as caught:
                await fetch(transport, req(url + path, read_timeout=0.2))
            assert time.monotonic() - start < 2.0, path
            assert not caught.value.not_sent
        start = time.monotonic()
        response = await asyncio.wait_for(
            transport.send(req(url + "/body", read_timeout=0.2), stream=True), SHORT
        )
        try:
            assert response.status == 200
            with pytest.raises(ReadTimeout):
                await asyncio.wait_for(drain(response), SHORT)
        finally:
            await response.aclose()
        assert time.monotonic() - start < 2.0


# AiohttpTransport: connections given back


async def test_closing_a_partly_read_stream_frees_its_connection(web_server: Recorder) -> None:
    transport = AiohttpTransport(limit=1)
    try:
        for _ in range(3):  # each time the single connection must come back
            response = await asyncio.wait_for(
                transport.send(req(web_server.url + "/endless", read_timeout=None), stream=True), SHORT
            )
            assert response.status == 200
            first = await asyncio.wait_for(anext(response.chunks()), SHORT)
            assert first.startswith(b'{"type":"ADDED"')
            await response.aclose()
            answer = await fetch(transport, req(web_server.url + "/echo/next"))
            assert answer.status == 200
            await asyncio.wait_for(web_server.stream_closed.wait(), SHORT)  # dropped, not leaked
            web_server.stream_closed.clear()
    finally:
        await transport.aclose()


async def test_aclose_closes_the_session_and_its_connections() -> None:
    hung_up = asyncio.Event()
    connections = 0

    async def keep_alive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        while True:
            try:
                await read_head(reader)
            except asyncio.IncompleteReadError:
                hung_up.set()
                return
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()

    transport = AiohttpTransport()
    await transport.aclose()  # nothing opened yet: a no-op
    async with raw_server(keep_alive) as url:
        try:
            assert (await fetch(transport, req(url + "/"))).content == b"ok"
            assert (await fetch(transport, req(url + "/"))).content == b"ok"
            assert connections == 1  # kept alive, same connection
            session = transport._session
            assert session is not None and not session.closed
            await transport.aclose()
            assert session.closed
            await asyncio.wait_for(hung_up.wait(), SHORT)  # the pooled connection went away too
            # closed is not broken: the next request opens a new session
            assert (await fetch(transport, req(url + "/"))).content == b"ok"
            assert transport._session is not session
            assert connections == 2
        finally:
            await transport.aclose()


# HttpxTransport over httpx.MockTransport


async def test_httpx_transport_passes_request_and_response_through() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            201, headers={"X-Echo-Method": request.method, "Content-Type": "application/json"}, content=PLAIN
        )

    url = "https://apiserver.test/api/v1/namespaces/default/configmaps?labelSelector=a%3Db%2Cc&x=%C3%A9"
    transport = HttpxTransport(httpx.MockTransport(handler))
    headers = {**OURS, "Content-Type": "application/json"}
    request = req(url, "POST", headers=headers, body=b'{"a":1}', connect_timeout=1.5, read_timeout=None)
    response = await fetch(transport, request)
    await transport.aclose()
    assert response.status == 201
    assert response.content == PLAIN
    assert response.headers["x-echo-method"] == "POST"
    assert response.headers["X-ECHO-METHOD"] == "POST"
    assert response.headers["content-type"] == "application/json"
    (sent,) = seen
    assert sent.method == "POST"
    assert str(sent.url) == url
    assert sent.url.raw_path.decode() == url.removeprefix("https://apiserver.test")
    assert sent.content == b'{"a":1}'
    for name, value in headers.items():
        assert sent.headers.get_list(name) == [value], name
    assert sent.extensions["timeout"] == {"connect": 1.5, "pool": 1.5, "read": None, "write": 1.5}


async def test_httpx_transport_streams_chunks() -> None:
    parts = [b'{"type":"ADDED"}\n', b'{"type":"MODIFIED"}\n', b'{"type":"DELETED"}\n']

    async def body() -> AsyncIterator[bytes]:
        for part in parts:
            yield part

    transport = HttpxTransport(httpx.MockTransport(lambda _: httpx.Response(200, content=body())))
    response = await asyncio.wait_for(transport.send(req("https://apiserver.test/watch"), stream=True), SHORT)
    try:
        assert response.status == 200
        assert response.content == b""
        chunks = [chunk async for chunk in response.chunks()]
    finally:
        await response.aclose()
    assert chunks == parts


async def test_httpx_decoding_error_is_a_decoding_error() -> None:
    transport = HttpxTransport(
        httpx.MockTransport(
            lambda _: httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=b"not gzip")
        )
    )
    with pytest.raises(DecodingError) as caught:
        await fetch(transport, req("https://apiserver.test/gzip"))
    assert not caught.value.retryable


async def test_httpx_transport_decodes_gzip_once() -> None:
    transport = HttpxTransport(
        httpx.MockTransport(
            lambda _: httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=gzip.compress(PLAIN))
        )
    )
    response = await fetch(transport, req("https://apiserver.test/gzip"))
    assert response.content == PLAIN


HTTPX_ERRORS: list[tuple[type[httpx.TransportError], type[TransportError], bool]] = [
    (httpx.ConnectError, ConnectError, True),
    (httpx.ConnectTimeout, ConnectTimeout, True),
    (httpx.PoolTimeout, ConnectTimeout, True),
    (httpx.ReadTimeout, ReadTimeout, False),
    (httpx.WriteTimeout, ReadTimeout, False),
    (httpx.RemoteProtocolError, ConnectionLost, False),
    (httpx.ReadError, ConnectionLost, False),
]


@pytest.mark.parametrize(("raised", "expected", "not_sent"), HTTPX_ERRORS)
@pytest.mark.parametrize("stream", [False, True])
async def test_httpx_errors_become_transport_errors(
    raised: type[httpx.TransportError], expected: type[TransportError], not_sent: bool, stream: bool
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise raised("boom", request=request)

    transport = HttpxTransport(httpx.MockTransport(handler))
    with pytest.raises(TransportError) as caught:
        await asyncio.wait_for(transport.send(req("https://apiserver.test/x"), stream=stream), SHORT)
    assert type(caught.value) is expected
    assert caught.value.not_sent is not_sent
    assert isinstance(caught.value.__cause__, raised)
    assert str(caught.value) == "boom"


@pytest.mark.parametrize(("raised", "expected", "not_sent"), HTTPX_ERRORS)
async def test_httpx_errors_mid_body_become_transport_errors(
    raised: type[httpx.TransportError], expected: type[TransportError], not_sent: bool
) -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"partial"
        raise raised("cut")

    transport = HttpxTransport(httpx.MockTransport(lambda _: httpx.Response(200, content=body())))
    with pytest.raises(TransportError) as whole:
        await fetch(transport, req("https://apiserver.test/x"))
    assert type(whole.value) is expected
    response = await asyncio.wait_for(transport.send(req("https://apiserver.test/x"), stream=True), SHORT)
    try:
        assert response.status == 200
        got: list[bytes] = []
        with pytest.raises(TransportError) as streamed:
            async for chunk in response.chunks():
                got.append(chunk)
    finally:
        await response.aclose()
    assert got == [b"partial"]
    assert type(streamed.value) is expected
    assert isinstance(streamed.value.__cause__, raised)


async def test_httpx_transport_aclose_closes_the_wrapped_transport() -> None:
    closed: list[bool] = []

    class Closing(httpx.MockTransport):
        async def aclose(self) -> None:
            closed.append(True)

    transport = HttpxTransport(Closing(lambda _: httpx.Response(204)))
    assert (await fetch(transport, req("https://apiserver.test/x"))).status == 204
    assert closed == []
    await transport.aclose()
    assert closed == [True]

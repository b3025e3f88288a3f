"""``AiohttpTransport`` under httpx against real loopback servers: an ``aiohttp.web`` app that
records what arrives, raw ``asyncio`` servers that misbehave on purpose, and the real HTTPS
apiserver for TLS. Checks that requests go out exactly as httpx built them, that bodies are
decoded once, that aiohttp's failures become the httpx errors the retry policy reasons about,
and that closing a stream or the transport gives the connection back."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import aiohttp
import httpx
import pytest
from aiohttp import web

from minikube_py.client import RetryPolicy
from minikube_py.client.aiotransport import AiohttpTransport
from minikube_py.client.config import load_kubeconfig
from tests.client.apiserver import RunningApiserver

SHORT = 5.0  # seconds: nothing here should take longer; a hang fails instead of blocking


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    raw_path: str
    headers: list[tuple[bytes, bytes]]
    body: bytes


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


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[str]:
    """A bare TCP server on loopback running ``handler`` per connection; yields its URL."""
    tasks: set[asyncio.Task[None]] = set()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
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


def client(
    url: str,
    transport: AiohttpTransport | None = None,
    *,
    headers: dict[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=url,
        transport=transport or AiohttpTransport(),
        headers=headers,
        timeout=timeout or httpx.Timeout(SHORT),
    )


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


# requests and responses


async def test_get_sends_exactly_what_httpx_built(web_server: Recorder) -> None:
    async with client(web_server.url) as http:
        raw = "/echo/api/v1/namespaces/default/configmaps?labelSelector=a%3Db,c!%3Dd&limit=5"
        built = http.build_request("GET", raw, headers={"Authorization": "Bearer s3cr3t"})
        response = await http.send(built)
        encoded = http.build_request("GET", "/echo/x", params={"labelSelector": "a=b,c!=d", "q": "é /+"})
        second = await http.send(encoded)
    assert response.status_code == 200
    assert response.content == PLAIN
    assert response.headers["x-echo-method"] == "GET"
    assert response.headers["content-type"] == "application/json"
    assert response.http_version == "HTTP/1.1"
    assert second.status_code == 200
    first, other = web_server.seen
    assert first.method == "GET"
    assert first.raw_path == raw == built.url.raw_path.decode("ascii")
    assert other.raw_path == encoded.url.raw_path.decode("ascii")
    assert "%3D" in other.raw_path and "%2C" in other.raw_path and "%C3%A9" in other.raw_path
    # every header as httpx built it, nothing added or doubled by aiohttp
    assert first.headers == list(built.headers.raw)
    assert (b"Authorization", b"Bearer s3cr3t") in first.headers
    assert first.body == b""


async def test_post_body_and_headers_round_trip(web_server: Recorder) -> None:
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"\xc3\xa9"}}'
    async with client(web_server.url, headers={"Authorization": "Bearer t0ken"}) as http:
        request = http.build_request(
            "POST", "/echo/api/v1/namespaces/default/configmaps?fieldManager=a%20b", content=body
        )
        request.headers["Content-Type"] = "application/json"
        response = await http.send(request)
    assert response.status_code == 201
    assert response.content == body
    assert response.headers["x-echo-method"] == "POST"
    (seen,) = web_server.seen
    assert seen.method == "POST"
    assert seen.body == body
    assert seen.raw_path == "/echo/api/v1/namespaces/default/configmaps?fieldManager=a%20b"
    assert seen.headers == list(request.headers.raw)
    assert dict(seen.headers)[b"Content-Length"] == str(len(body)).encode()
    assert dict(seen.headers)[b"Content-Type"] == b"application/json"
    assert dict(seen.headers)[b"Authorization"] == b"Bearer t0ken"


async def test_no_header_is_added_that_httpx_left_out(web_server: Recorder) -> None:
    async with client(web_server.url) as http:
        request = http.build_request("POST", "/echo/raw", content=b"\x00\x01")
        for name in ("User-Agent", "Accept-Encoding"):  # (aiohttp would add its own)
            del request.headers[name]
        response = await http.send(request)
    assert response.status_code == 201
    (seen,) = web_server.seen
    assert seen.body == b"\x00\x01"
    assert seen.headers == list(request.headers.raw)
    names = {name.lower() for name, _ in seen.headers}
    assert not names & {b"user-agent", b"accept-encoding", b"content-type"}


async def test_gzip_body_is_decoded_once_by_httpx(web_server: Recorder) -> None:
    async with client(web_server.url) as http:
        response = await http.get("/gzip")
        async with http.stream("GET", "/gzip") as streamed:
            raw = b"".join([chunk async for chunk in streamed.aiter_raw()])
    assert response.headers["content-encoding"] == "gzip"
    assert response.content == PLAIN
    assert response.json()["kind"] == "ConfigMap"
    assert gzip.decompress(raw) == PLAIN  # the transport handed over the encoded bytes
    assert dict(web_server.seen[0].headers)[b"Accept-Encoding"] == b"gzip, deflate"


# failures become httpx errors


async def test_connection_refused_is_connect_error() -> None:
    async with client(f"http://127.0.0.1:{free_port()}") as http:
        with pytest.raises(httpx.ConnectError) as caught:
            await http.get("/version")
    assert RetryPolicy().retryable_error("POST", caught.value)  # nothing was sent


async def test_certificate_that_fails_verification_is_a_connect_error_not_retried(
    apiserver: RunningApiserver,
) -> None:
    trusted = load_kubeconfig(apiserver.kubeconfig).ssl_context()
    async with client(apiserver.url, AiohttpTransport(trusted)) as http:
        assert (await http.get("/version")).status_code == 200  # the right CA: TLS works
    untrusted = ssl.create_default_context()  # the system store does not know the cluster CA
    async with client(apiserver.url, AiohttpTransport(untrusted)) as http:
        with pytest.raises(httpx.ConnectError) as caught:
            await http.get("/version")
    assert any(isinstance(e, ssl.SSLCertVerificationError) for e in cause_chain(caught.value))
    assert not RetryPolicy().retryable_error("GET", caught.value)
    assert not RetryPolicy().retryable_error("POST", caught.value)


async def test_server_closing_before_answering_is_remote_protocol_error() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_head(reader)

    async with raw_server(hang_up) as url, client(url) as http:
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
            await asyncio.wait_for(http.get("/"), SHORT)


async def test_server_closing_mid_body_is_remote_protocol_error() -> None:
    async def truncate(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
        writer.write(b'{"partial":')
        await writer.drain()

    async with raw_server(truncate) as url, client(url) as http:
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
            await asyncio.wait_for(http.get("/"), SHORT)
        async with http.stream("GET", "/") as response:
            assert response.status_code == 200  # the head arrived; the body fails
            with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
                await asyncio.wait_for(response.aread(), SHORT)


async def test_read_timeout_before_the_head_and_inside_the_body() -> None:
    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await read_head(reader)
        if head.startswith(b"GET /body"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            await writer.drain()
        await asyncio.sleep(SHORT * 2)

    timeout = httpx.Timeout(SHORT, read=0.2)
    async with raw_server(stall) as url, client(url, timeout=timeout) as http:
        for path in ("/head", "/body"):
            start = time.monotonic()
            with pytest.raises(httpx.ReadTimeout):
                await asyncio.wait_for(http.get(path), SHORT)
            assert time.monotonic() - start < 2.0, path


# connections given back


async def test_closing_a_partly_read_stream_frees_its_connection(web_server: Recorder) -> None:
    async with client(web_server.url, AiohttpTransport(limit=1)) as http:
        for _ in range(3):  # each time the single connection must come back
            async with http.stream("GET", "/endless") as response:
                async for line in response.aiter_lines():
                    assert line.startswith('{"type":"ADDED"')
                    break
            answer = await asyncio.wait_for(http.get("/echo/next"), SHORT)
            assert answer.status_code == 200
            await asyncio.wait_for(web_server.stream_closed.wait(), SHORT)  # dropped, not leaked
            web_server.stream_closed.clear()


async def test_aclose_closes_the_session_and_its_connections() -> None:
    hung_up = asyncio.Event()

    async def keep_alive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
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
        http = client(url, transport)
        assert (await http.get("/")).content == b"ok"
        assert (await http.get("/")).content == b"ok"  # kept alive, same connection
        session = transport._session
        assert session is not None and not session.closed
        await http.aclose()
        assert session.closed
        await asyncio.wait_for(hung_up.wait(), SHORT)  # the pooled connection went away too

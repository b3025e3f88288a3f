"""pods/proxy through a real apiserver (uvicorn on loopback) to a real HTTP server standing in
for the pod (``proxybackend``): path and query, methods, bodies, streaming, links, upgrades and
each refusal (see apiserver/endpoints/proxy.py)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from apiserver.nodeproxy import NodeConnection
from tests.apiserver.proxybackend import BIG, Backend, running_backend
from tests.apiserver.test_podconnect import closed_port
from tests.apiserver.test_podconnect_node import served

NS = "/api/v1/namespaces/default"
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


@dataclass
class Setup:
    api: httpx.AsyncClient
    backend: Backend

    @property
    def base(self) -> str:
        return f"{NS}/pods/web:{self.backend.port}/proxy"


async def create_pod(api: httpx.AsyncClient, name: str, ip: str | None, ports: Sequence[int] = ()) -> None:
    container: dict[str, Any] = {"name": "app", "image": "i"}
    if ports:
        container["ports"] = [{"containerPort": p} for p in ports]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [container]}}
    created = await api.post(f"{NS}/pods", json=pod)
    assert created.status_code == 201, created.text
    if ip is not None:
        body = created.json()
        body["status"] = {"podIP": ip, "podIPs": [{"ip": ip}], "phase": "Running"}
        updated = await api.put(f"{NS}/pods/{name}/status", json=body)
        assert updated.status_code == 200, updated.text


@pytest.fixture
async def setup() -> AsyncIterator[Setup]:
    async with running_backend() as backend, served(NodeConnection()) as api:
        await create_pod(api, "web", "127.0.0.1", [backend.port])
        yield Setup(api, backend)


def refused(response: httpx.Response, code: int, reason: str, message: str) -> None:
    body = response.json()
    assert (response.status_code, body["kind"], body["reason"], body["message"]) == (
        code,
        "Status",
        reason,
        message,
    ), body


async def test_path_and_query_reach_the_pod_as_sent(setup: Setup) -> None:
    response = await setup.api.get(
        f"{setup.base}/echo/a%20b/c/?q=1&q=2&path=ignored&x=%2F",
        headers={"Authorization": "Bearer secret", "Impersonate-User": "u", "X-Custom": "kept"},
    )
    assert response.status_code == 200, response.text
    echo = response.json()
    assert echo["method"] == "GET"
    assert echo["target"] == "/echo/a%20b/c/?q=1&q=2&path=ignored&x=%2F"
    seen = echo["headers"]
    assert seen["x-custom"] == "kept"
    assert "authorization" not in seen and "impersonate-user" not in seen
    assert seen["x-forwarded-for"] == "127.0.0.1"
    assert seen["x-forwarded-uri"] == f"{setup.base}/echo/a b/c/"  # Go's decoded path
    assert response.headers["x-backend"] == "yes"
    assert "keep-alive" not in response.headers  # hop-by-hop: not relayed


async def test_the_pods_first_container_port_is_the_default(setup: Setup) -> None:
    response = await setup.api.get(f"{NS}/pods/web/proxy/echo")
    assert (response.status_code, response.json()["target"]) == (200, "/echo")


@pytest.mark.parametrize("method", METHODS)
async def test_every_method_is_proxied_with_its_body(setup: Setup, method: str) -> None:
    body = b"" if method in ("GET", "HEAD") else f"body of {method}".encode()
    response = await setup.api.request(method, f"{setup.base}/echo?m={method}", content=body or None)
    assert response.status_code == 200, response.text
    [seen] = setup.backend.seen
    assert (seen.method, seen.target, seen.body) == (method, f"/echo?m={method}", body)
    if method == "HEAD":
        assert response.content == b""
    else:
        assert response.json()["method"] == method


async def test_a_chunked_request_body_is_streamed_to_the_pod(setup: Setup) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for index in range(50):
            yield b"%05d" % index * 2000

    response = await setup.api.post(f"{setup.base}/echo", content=chunks())
    assert response.status_code == 200, response.text
    [seen] = setup.backend.seen
    assert seen.body == b"".join(b"%05d" % i * 2000 for i in range(50))
    assert seen.headers["transfer-encoding"] == "chunked"


async def test_a_slow_response_streams_each_chunk_as_the_pod_writes_it(setup: Setup) -> None:
    async with setup.api.stream("GET", f"{setup.base}/stream") as response:
        assert response.status_code == 200
        chunks = response.aiter_raw()
        assert await asyncio.wait_for(anext(chunks), 5) == b"first\n"
        setup.backend.release.set()
        assert b"".join([chunk async for chunk in chunks]) == b"second\n"


async def test_a_client_that_goes_away_stops_the_relay_to_the_pod(setup: Setup) -> None:
    async with setup.api.stream("GET", f"{setup.base}/stream") as response:
        assert await asyncio.wait_for(anext(response.aiter_raw()), 5) == b"first\n"
    await asyncio.wait_for(setup.backend.hung_up.wait(), 5)


async def test_a_client_that_goes_away_mid_body_is_one_log_line(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    host, port = setup.api.base_url.host, setup.api.base_url.port
    assert port is not None
    caplog.set_level(logging.INFO, logger="apiserver")
    _reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"POST {setup.base}/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial".encode()
    )
    await writer.drain()
    await asyncio.wait_for(_until_backend_connected(setup.backend), 5)
    writer.close()
    await writer.wait_closed()

    def logged() -> bool:
        return any("the client disconnected after" in r.getMessage() for r in caplog.records)

    await asyncio.wait_for(_until(logged), 5)
    assert not [r for r in caplog.records if r.exc_info]
    assert (await setup.api.get(f"{setup.base}/echo")).status_code == 200


async def _until_backend_connected(backend: Backend) -> None:
    await _until(lambda: backend.connections > 0)


async def _until(check: Callable[[], bool]) -> None:
    while not check():
        await asyncio.sleep(0.01)  # the poll interval of a wait bounded by wait_for


async def test_a_large_response_arrives_whole(setup: Setup) -> None:
    response = await setup.api.get(f"{setup.base}/big")
    assert (response.status_code, len(response.content)) == (200, BIG)
    assert response.headers["content-length"] == str(BIG)


async def test_the_proxy_root_without_a_slash_is_redirected_like_upstream(setup: Setup) -> None:
    response = await setup.api.get(f"{setup.base}?a=1")
    assert response.status_code == 301
    assert response.headers["location"] == f"{setup.base}/?a=1"
    assert not setup.backend.seen
    root = await setup.api.get(f"{setup.base}/")
    assert (root.status_code, root.json()["target"]) == (200, "/")
    posted = await setup.api.post(setup.base, content=b"x")  # only GET and HEAD are redirected
    assert (posted.status_code, posted.json()["target"]) == (200, "/")


async def test_dot_segments_are_cleaned_as_go_joins_paths(setup: Setup) -> None:
    response = await setup.api.get(f"{setup.base}/a/b/../echo//x/")
    assert response.json()["target"] == "/a/echo/x/"


async def test_redirects_are_rewritten_through_the_proxy_and_cors_headers_dropped(setup: Setup) -> None:
    response = await setup.api.get(f"{setup.base}/redirect")
    assert response.status_code == 302
    assert response.headers["location"] == f"{setup.base}/login"
    assert "access-control-allow-origin" not in response.headers


async def test_html_links_to_the_pod_are_rewritten_through_the_proxy(setup: Setup) -> None:
    response = await setup.api.get(f"{setup.base}/page")
    assert response.status_code == 200
    page = response.text
    assert f'<link rel="stylesheet" href="{setup.base}/static/app.css">' in page
    assert f'<a href="{setup.base}/docs/">' in page
    assert '<a href="relative">' in page and '<a href="http://example.com/x">' in page
    assert f'<img src="{setup.base}/img.png" alt="a &amp; b"/>' in page
    assert "<p>text &amp; more</p>" in page
    assert response.headers["content-length"] == str(len(response.content))


async def test_an_upgrade_is_tunnelled_to_the_pod(setup: Setup) -> None:
    host, port = setup.api.base_url.host, setup.api.base_url.port
    assert port is not None
    reader, writer = await asyncio.open_connection(host, port)
    head = f"GET {setup.base}/upgrade HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n"
    writer.write(head.encode())
    answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert answer.startswith(b"HTTP/1.1 101 ")
    writer.write(b"ping")
    assert await asyncio.wait_for(reader.readexactly(4), 5) == b"ping"
    writer.close()
    [seen] = setup.backend.seen
    assert seen.target == "/upgrade"


# refusals


async def test_a_missing_pod_is_not_found(setup: Setup) -> None:
    refused(await setup.api.get(f"{NS}/pods/nope/proxy/"), 404, "NotFound", 'pods "nope" not found')


async def test_a_pod_without_an_ip_or_off_loopback_is_not_allowed(setup: Setup) -> None:
    await create_pod(setup.api, "pending", None)
    await create_pod(setup.api, "outside", "192.0.2.7")
    await create_pod(setup.api, "linklocal", "169.254.169.254")
    for name in ("pending", "outside", "linklocal"):
        refused(await setup.api.get(f"{NS}/pods/{name}:80/proxy/"), 400, "BadRequest", "address not allowed")


async def test_a_bad_name_segment_is_a_bad_request(setup: Setup) -> None:
    message = 'invalid pod request "ftp:web:80"'
    refused(await setup.api.get(f"{NS}/pods/ftp:web:80/proxy/"), 400, "BadRequest", message)
    refused(
        await setup.api.get(f"{NS}/pods/a:b:c:d/proxy/"), 400, "BadRequest", 'invalid pod request "a:b:c:d"'
    )


async def test_a_refused_connection_is_upstreams_503(setup: Setup) -> None:
    port = closed_port()
    message = f"error trying to reach service: dial tcp 127.0.0.1:{port}: connect: connection refused"
    refused(await setup.api.get(f"{NS}/pods/web:{port}/proxy/"), 503, "ServiceUnavailable", message)


async def test_a_backend_that_hangs_up_without_answering_is_a_503_eof(setup: Setup) -> None:
    message = "error trying to reach service: EOF"
    refused(await setup.api.get(f"{setup.base}/hangup"), 503, "ServiceUnavailable", message)


async def test_an_unknown_named_port_is_a_503(setup: Setup) -> None:
    message = "error trying to reach service: dial tcp: lookup tcp/nosuchport: unknown port"
    refused(await setup.api.get(f"{NS}/pods/web:nosuchport/proxy/"), 503, "ServiceUnavailable", message)


async def test_a_backend_reset_mid_response_cuts_the_stream(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        await setup.api.get(f"{setup.base}/reset")
    broke = [r for r in caplog.records if "broke off" in r.getMessage()]
    assert len(broke) == 1 and broke[0].exc_info is None
    assert not [r for r in caplog.records if r.exc_info]  # no traceback anywhere
    after = await setup.api.get(f"{setup.base}/echo")  # the apiserver serves on
    assert after.status_code == 200


async def test_a_method_upstream_does_not_proxy_is_refused(setup: Setup) -> None:
    response = await setup.api.request("TRACE", f"{setup.base}/echo")
    assert response.status_code == 405
    assert json.loads(response.text)["reason"] == "MethodNotAllowed"
    assert not setup.backend.seen

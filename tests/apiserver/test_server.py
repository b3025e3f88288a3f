"""apiserver.server.build_app in process: health checks with a failing store, Status errors."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from apiserver.health import StoreCheck
from apiserver.server import build_app
from apiserver.storage.errors import UnavailableError
from apiserver.storage.memory import MemoryKV


class UnreachableKV(MemoryKV):
    async def current_revision(self) -> int:
        raise UnavailableError("etcd: connection refused")


async def client_for(kv: MemoryKV) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=build_app(kv))
    async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
        yield client


@pytest.fixture
async def broken() -> AsyncIterator[httpx.AsyncClient]:
    async for client in client_for(UnreachableKV()):
        yield client


@pytest.fixture
async def healthy() -> AsyncIterator[httpx.AsyncClient]:
    async for client in client_for(MemoryKV()):
        yield client


@pytest.mark.parametrize("endpoint", ["readyz", "healthz"])
async def test_store_failure_fails_readiness_without_the_reason(
    broken: httpx.AsyncClient, endpoint: str
) -> None:
    response = await broken.get(f"/{endpoint}")
    assert response.status_code == 500
    assert response.text == f"[+]ping ok\n[-]etcd failed: reason withheld\n{endpoint} check failed\n"
    assert response.headers["content-type"].startswith("text/plain")


async def test_store_failure_does_not_fail_liveness(broken: httpx.AsyncClient) -> None:
    response = await broken.get("/livez")
    assert (response.status_code, response.text) == (200, "ok")


async def test_single_check_endpoint_gives_the_reason(broken: httpx.AsyncClient) -> None:
    response = await broken.get("/readyz/etcd")
    assert (response.status_code, response.text) == (500, "internal server error: etcd: connection refused\n")
    assert (await broken.get("/readyz/ping")).text == "ok"


async def test_excluded_check_is_skipped(broken: httpx.AsyncClient) -> None:
    response = await broken.get("/readyz", params={"exclude": "etcd"})
    assert (response.status_code, response.text) == (200, "ok")


async def test_unknown_exclusion_is_reported_in_verbose_output(healthy: httpx.AsyncClient) -> None:
    response = await healthy.get("/livez", params=[("verbose", ""), ("exclude", "nope")])
    assert response.text == (
        '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nlivez check passed\n'
    )


async def test_slow_store_times_out() -> None:
    class SlowKV(MemoryKV):
        async def current_revision(self) -> int:
            await asyncio.sleep(10)
            return 0

    with pytest.raises(TimeoutError):
        await StoreCheck(SlowKV(), timeout=0.01).check()


async def test_every_response_is_marked_uncacheable(healthy: httpx.AsyncClient) -> None:
    for path in ("/readyz", "/version", "/missing"):
        assert (await healthy.get(path)).headers["cache-control"] == "no-cache, private"


async def test_framework_pages_do_not_exist(healthy: httpx.AsyncClient) -> None:
    for path in ("/docs", "/redoc", "/openapi.json"):
        response = await healthy.get(path)
        assert response.status_code == 404
        assert response.json()["kind"] == "Status"


def test_listening_socket_lets_asyncio_enable_tcp_nodelay() -> None:
    """Regression: asyncio sets TCP_NODELAY on accepted connections only when the listening
    socket's proto is IPPROTO_TCP; without it every response waited ~40 ms (Nagle + delayed
    ACK), capping the apiserver at ~350 requests/s (benchmarks/api.py)."""
    import socket

    from apiserver.server import listen

    with listen("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP

"""An in-process apiserver (memory store, running watch caches, bootstrap objects) behind an
httpx ASGI client, for request/response tests. Watches must set timeoutSeconds: the ASGI
transport buffers whole responses. ``https_api`` is a real HTTPS apiserver on loopback, for
what the wire itself must carry (header bytes, what kubectl reads)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.registry.catalog import Catalog
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV
from minikube_py.pki import ClusterPKI, ensure_cluster_pki
from tests.client.apiserver import RunningApiserver, running_apiserver


@contextlib.asynccontextmanager
async def in_process_apiserver() -> AsyncIterator[tuple[httpx.AsyncClient, MemoryKV]]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        transport = httpx.ASGITransport(app=build_app(kv, catalog))
        async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
            yield client, kv
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


@pytest.fixture
async def api() -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_apiserver() as (client, _kv):
        yield client


@pytest.fixture
async def api_kv() -> AsyncIterator[tuple[httpx.AsyncClient, MemoryKV]]:
    async with in_process_apiserver() as served:
        yield served


@pytest.fixture(scope="session")
def cluster_pki(tmp_path_factory: pytest.TempPathFactory) -> ClusterPKI:
    return ensure_cluster_pki(tmp_path_factory.mktemp("apiserver-pki") / "pki")


@pytest.fixture
async def https_api(tmp_path: Path, cluster_pki: ClusterPKI) -> AsyncIterator[RunningApiserver]:
    """A real apiserver over HTTPS on loopback in this process (``tests.client.apiserver``)."""
    async with running_apiserver(tmp_path, pki=cluster_pki) as running:
        yield running

"""An in-process apiserver (memory store, running watch caches, bootstrap objects) behind an
httpx ASGI client: enough for request/response regressions (watches must set timeoutSeconds,
as the ASGI transport buffers whole responses)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest

from apiserver.bootstrap import ensure_bootstrap_objects
from apiserver.registry.catalog import Catalog
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV


@pytest.fixture
async def api() -> AsyncIterator[httpx.AsyncClient]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    await catalog.wait_ready()
    await ensure_bootstrap_objects(catalog)
    transport = httpx.ASGITransport(app=build_app(kv, catalog))
    async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
        yield client
    caches.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await caches
    await kv.close()

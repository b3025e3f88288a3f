"""Stopping the apiserver (issue 13 item 8): it stops as soon as no request is in flight,
whatever its clients do with their connections, and ends open watches at once.

uvicorn's own shutdown waited for every connection to close, and a TLS close waits for the
peer's ``close_notify``: a client holding an idle pooled connection never sends one, so every
stop took the whole grace period. Here the grace period is a minute: only a prompt stop passes.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import httpx
import pytest

from apiserver import server as apiserver_server
from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.endpoints.watch import OpenWatches
from apiserver.registry.catalog import Catalog
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV
from tests.apiserver.rawhttps import WAIT
from tests.apiserver.test_request_limits import CONFIGMAPS, https_client
from tests.client.apiserver import running_apiserver


async def test_stopping_waits_neither_for_idle_clients_nor_for_open_watches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(apiserver_server, "GRACEFUL_SHUTDOWN_SECONDS", 60)
    serving = running_apiserver(tmp_path)
    running = await serving.__aenter__()
    stopped = False
    async with https_client(running) as client:
        try:
            assert (await client.get("/version")).status_code == 200  # leaves an idle connection
            request = client.build_request("GET", CONFIGMAPS, params={"watch": "1"})
            watch = await client.send(request, stream=True)
            assert watch.status_code == 200
            stopping = asyncio.create_task(serving.__aexit__(None, None, None))
            stopped = True
            done, _ = await asyncio.wait({stopping}, timeout=WAIT)  # not the minute of grace
            assert stopping in done, "the server waited out its grace period"
            assert [line async for line in watch.aiter_lines()] == []  # the watch ended cleanly
            await watch.aclose()
        finally:
            if not stopped:
                await serving.__aexit__(None, None, None)
            elif not stopping.done():
                await stopping


async def test_a_watch_that_starts_while_the_server_stops_ends_at_once() -> None:
    """The stop ends the watches it knows of; one whose stream starts just after must end too
    (it would have kept the stop waiting out its grace period)."""
    kv = MemoryKV()
    catalog, watches = Catalog(kv), OpenWatches()
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        transport = httpx.ASGITransport(app=build_app(kv, catalog, watches))
        async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
            await watches.close_all()
            async with asyncio.timeout(WAIT):  # without timeoutSeconds: 30 to 60 minutes otherwise
                response = await client.get(CONFIGMAPS, params={"watch": "1"})
        assert (response.status_code, response.text) == (200, "")
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()

"""Stopping the apiserver (issue 13 item 8): it stops as soon as no request is in flight,
whatever its clients do with their connections, and ends open watches at once.

uvicorn's own shutdown waited for every connection to close, and a TLS close waits for the
peer's ``close_notify``: a client holding an idle pooled connection never sends one, so every
stop took the whole grace period. Here the grace period is a minute: only a prompt stop passes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from apiserver import server as apiserver_server
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

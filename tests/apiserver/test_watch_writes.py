"""How a watch stream is written: events already waiting go out together, in one write
(``apiserver/endpoints/watch.py``, ``BATCH``), every line still a complete event and a Table
watch still carries its column definitions only once. Drives the ASGI app directly, as the
server would, to see each body message (httpx's ASGI transport buffers them)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.endpoints.watch import BATCH
from apiserver.registry.catalog import Catalog
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"

App = Any


@pytest.fixture
async def app() -> AsyncIterator[App]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        yield build_app(kv, catalog)
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


async def call(
    app: App, method: str, path: str, query: str = "", body: bytes = b"", accept: str = "application/json"
) -> tuple[int, list[bytes]]:
    """(status, the body messages as sent), for one request through the ASGI app."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [
            (b"host", b"apiserver"),
            (b"accept", accept.encode()),
            (b"content-type", b"application/json"),
        ],
        "client": ("127.0.0.1", 40000),
        "server": ("apiserver", 80),
    }
    received = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client never goes away
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body" and message.get("body"):
            chunks.append(message["body"])

    await app(scope, receive, send)
    return status, chunks


async def create(app: App, name: str) -> str:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    status, chunks = await call(app, "POST", CONFIGMAPS, body=json.dumps(cm).encode())
    assert status == 201, chunks
    return str(json.loads(b"".join(chunks))["metadata"]["resourceVersion"])


async def test_a_backlog_goes_out_in_few_writes_of_whole_lines(app: App) -> None:
    since = await create(app, "first")
    count = BATCH + 20
    for i in range(count):
        await create(app, f"cm-{i:03d}")
    query = f"watch=true&resourceVersion={since}&timeoutSeconds=1"
    status, chunks = await call(app, "GET", CONFIGMAPS, query)
    assert status == 200
    assert len(chunks) == 2  # BATCH events, then the other 20: not one write per event
    assert all(chunk.endswith(b"\n") for chunk in chunks)  # no event split across writes
    events = [json.loads(line) for chunk in chunks for line in chunk.splitlines()]
    assert [e["object"]["metadata"]["name"] for e in events] == [f"cm-{i:03d}" for i in range(count)]
    assert {e["type"] for e in events} == {"ADDED"}


async def test_a_table_watch_batch_has_column_definitions_once(app: App) -> None:
    since = await create(app, "first")
    for name in ("a", "b", "c"):
        await create(app, name)
    query = f"watch=true&resourceVersion={since}&timeoutSeconds=1"
    status, chunks = await call(app, "GET", CONFIGMAPS, query, accept=TABLE)
    assert status == 200 and len(chunks) == 1
    tables = [json.loads(line)["object"] for line in chunks[0].splitlines()]
    assert [t["rows"][0]["cells"][0] for t in tables] == ["a", "b", "c"]
    assert [bool(t.get("columnDefinitions")) for t in tables] == [True, False, False]

"""Backend fixtures for the storage conformance suites.

``kv`` is parametrized over every KV backend (memory, sqlite, a real etcd); ``store`` over
every ObjectStorage (each KV directly, and the cacher over each KV). Every test gets its own key
prefix, so tests sharing one etcd server never see each other's keys.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from apiserver.storage.cacher import Cacher
from apiserver.storage.factory import open_kv
from apiserver.storage.interface import ObjectStorage
from apiserver.storage.kv import KV
from apiserver.storage.objects import KVObjectStorage

if TYPE_CHECKING:
    from apiserver.storage.testing.etcdserver import EtcdServer

KV_BACKENDS = ["memory", "sqlite", "etcd"]


@pytest.fixture(scope="session")
def etcd_server() -> Iterator[EtcdServer]:
    """One real etcd member per test process (each xdist worker has its own)."""
    from apiserver.storage.testing.etcdserver import EtcdServer

    server = EtcdServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def prefix() -> str:
    return f"/registry/t{uuid.uuid4().hex[:12]}/"


def store_url(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if name == "memory":
        return "memory://"
    if name == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return f"etcd://{request.getfixturevalue('etcd_server').endpoint}"


@pytest.fixture
async def kv(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KV]:
    backend = await open_kv(store_url(request.param, request, tmp_path))
    try:
        yield backend
    finally:
        await backend.close()


@contextlib.asynccontextmanager
async def running(cacher: Cacher) -> AsyncIterator[Cacher]:
    task = asyncio.create_task(cacher.run())
    try:
        yield cacher
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.fixture
async def store(request: pytest.FixtureRequest, kv: KV, prefix: str) -> AsyncIterator[ObjectStorage]:
    storage = KVObjectStorage(kv)
    if request.param.endswith("direct"):
        yield storage
        return
    cacher = Cacher(
        storage, prefix, capacity=50, event_fresh_seconds=0, bookmark_interval=0.2, fresh_timeout=1.0
    )
    async with running(cacher):
        await cacher.wait_ready()  # a watch from before the cache's first list is too old
        yield cacher


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``kv`` over the backends, and ``store`` paired with its ``kv`` backend."""
    if "store" not in metafunc.fixturenames:
        if "kv" in metafunc.fixturenames:
            metafunc.parametrize("kv", [backend(b, b) for b in KV_BACKENDS], indirect=True)
    else:
        metafunc.parametrize(
            "kv,store",
            [backend(b, b, f"{b}-{m}") for b in KV_BACKENDS for m in ("direct", "cacher")],
            indirect=True,
        )


def backend(name: str, *values: str) -> Any:
    """One parameter set; the etcd ones start a real etcd, so they are ``e2e``."""
    return pytest.param(*values, id=values[-1], marks=[pytest.mark.e2e] if name == "etcd" else [])

"""Choose and open a KV backend from its URL (``--store``).

* ``sqlite:///path/to/store.db[?synchronous=normal|full]`` (the default, under the data dir)
* ``memory://``
* ``etcd://host:port[,host:port...]``

Every failure to open is a ``StoreConfigError`` with a one-line message naming the problem.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from apiserver.storage.compactor import Compactor
from apiserver.storage.errors import StoreConfigError
from apiserver.storage.kv import KV
from apiserver.storage.memory import MemoryKV
from apiserver.storage.sqlite import SQLiteKV

SCHEMES = ("sqlite", "memory", "etcd")


def default_store_url(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'store.db'}"


async def open_kv(url: str) -> KV:
    """Open the store named by ``url``; raise StoreConfigError when it cannot be used."""
    scheme, _, rest = url.partition("://")
    if scheme == "memory":
        return MemoryKV()
    if scheme == "sqlite":
        return await _open_sqlite(url)
    if scheme == "etcd":
        return await _open_etcd(rest)
    raise StoreConfigError(
        f"unknown store URL scheme {scheme!r} in {url!r} (use sqlite:///PATH, memory:// or etcd://HOST:PORT)"
    )


@contextlib.asynccontextmanager
async def running_store(url: str, *, compaction_interval: float = 300.0) -> AsyncIterator[KV]:
    """The store named by ``url`` with its background compactor, both stopped on exit."""
    kv = await open_kv(url)
    compactor = asyncio.create_task(Compactor(kv, interval=compaction_interval).run())
    try:
        yield kv
    finally:
        compactor.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await compactor
        await kv.close()


async def _open_sqlite(url: str) -> KV:
    parts = urlsplit(url)
    if parts.netloc or not parts.path:
        raise StoreConfigError(f"sqlite store URL must be sqlite:///PATH, got {url!r}")
    path = Path(parts.path)
    if path.is_dir():
        raise StoreConfigError(f"sqlite store path {path} is a directory")
    directory = path.parent
    if not directory.is_dir() or not os.access(directory, os.W_OK | os.X_OK):
        raise StoreConfigError(f"store directory {directory} is missing or not writable")
    synchronous = parse_qs(parts.query).get("synchronous", ["normal"])[0].lower()
    return await SQLiteKV.open(path, synchronous)


async def _open_etcd(hosts: str) -> KV:
    from apiserver.storage.etcd import open_etcd  # grpc is loaded only when etcd is used

    endpoints = [h.strip() for h in hosts.split(",") if h.strip()]
    if not endpoints or any(":" not in e for e in endpoints):
        raise StoreConfigError(f"etcd store URL must be etcd://HOST:PORT[,HOST:PORT], got {hosts!r}")
    return await open_etcd(endpoints)

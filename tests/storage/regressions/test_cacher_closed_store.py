"""A Cacher whose store closes must not relist in a loop that never yields.

Regression: when the KV closed (``up`` stopping), the watch ended at once without an error and
the cacher relisted immediately, forever, without awaiting anything that suspends: the event
loop was stuck and the process never exited (seen after a second SIGTERM)."""

from __future__ import annotations

import asyncio
from typing import Any

from apiserver.storage.cacher import Cacher
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from tests.storage.conftest import running

PREFIX = "/registry/configmaps/"


async def test_a_closed_store_is_relisted_with_backoff_not_in_a_tight_loop() -> None:
    kv = MemoryKV()
    storage = KVObjectStorage(kv)
    snapshots = 0
    real_snapshot = storage.snapshot

    async def counting_snapshot(prefix: str) -> Any:
        nonlocal snapshots
        snapshots += 1
        if snapshots % 100 == 0:
            await asyncio.sleep(0)  # lets the test see a tight loop instead of hanging in it
        return await real_snapshot(prefix)

    storage.snapshot = counting_snapshot  # type: ignore[method-assign]
    async with running(Cacher(storage, PREFIX)) as cacher:
        await cacher.wait_ready()
        await kv.close()
        before = snapshots
        await asyncio.sleep(0.5)
        relists = snapshots - before
    assert relists <= 4, f"{relists} relists in 0.5 s after the store closed"

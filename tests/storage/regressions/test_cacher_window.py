"""The watch cache's window of changes is sized by time, as upstream's: a burst of more than
``capacity`` changes stays resumable while it is fresh.

Regression: the window used to be a fixed 1,000 changes. A scheduler relisting 8,000 pods
during a burst of creates and bindings got 410 Gone on every watch right after its list, and
stalled for ~15 s of backoff."""

from __future__ import annotations

from apiserver.storage.cacher import Cacher
from apiserver.storage.interface import ListOptions
from apiserver.storage.memory import MemoryKV
from apiserver.storage.objects import KVObjectStorage
from tests.storage.conftest import running
from tests.storage.regressions.test_cacher_watcher_buffer import cm, collect

PREFIX = "/registry/configmaps/"


async def _watch_after_burst(cacher: Cacher, storage: KVObjectStorage) -> list[str]:
    """Names seen watching from before a burst of 30 creates (the window's capacity is 10)."""
    await cacher.wait_ready()
    seed = await storage.create(PREFIX + "default/seed", cm("seed"))
    rv = seed["metadata"]["resourceVersion"]
    for i in range(30):
        last = await storage.create(f"{PREFIX}default/c{i}", cm(f"c{i}"))
    await cacher.wait_until_fresh(int(last["metadata"]["resourceVersion"]))
    events, _ended = await collect(aiter(cacher.watch(PREFIX, ListOptions(resource_version=rv))), 0.3)
    return [e.type if e.type == "ERROR" else e.object["metadata"]["name"] for e in events]


async def test_a_fresh_burst_larger_than_the_capacity_can_be_watched_from_its_start() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, capacity=10)) as cacher:
        names = await _watch_after_burst(cacher, storage)
    assert names == [f"c{i}" for i in range(30)]


async def test_the_window_is_bounded_by_max_capacity() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, capacity=10, max_capacity=20)) as cacher:
        names = await _watch_after_burst(cacher, storage)
    assert names == ["ERROR"]  # 410 Expired: the start fell out of the window


async def test_stale_changes_beyond_the_capacity_leave_the_window() -> None:
    storage = KVObjectStorage(MemoryKV())
    async with running(Cacher(storage, PREFIX, capacity=10, event_fresh_seconds=0)) as cacher:
        names = await _watch_after_burst(cacher, storage)
    assert names == ["ERROR"]

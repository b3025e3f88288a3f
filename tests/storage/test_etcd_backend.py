"""etcd-specific behaviour of ``EtcdKV`` against real etcd members: CAS over Txn, watch
resume across a crash and a failover, progress requests, compaction, unreachable endpoints.
The backend-generic contract is in ``test_kv_conformance.py``."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator

import grpc
import pytest
from aetcd import rpc

from apiserver.storage.errors import (
    CompactedError,
    ConflictError,
    KeyExistsError,
    KeyNotFoundError,
    StoreConfigError,
    TooLargeResourceVersionError,
)
from apiserver.storage.etcd import EtcdKV, EtcdWatch, _progress_is_ordered, open_etcd
from apiserver.storage.keys import object_key
from apiserver.storage.kv import Event, EventType, WatchBatch
from apiserver.storage.objects import KVObjectStorage
from apiserver.storage.testing.etcdserver import EtcdCluster, EtcdServer

pytestmark = pytest.mark.e2e


@pytest.fixture
async def etcd(etcd_server: EtcdServer) -> AsyncIterator[EtcdKV]:
    client = await open_etcd([etcd_server.endpoint])
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
def cluster() -> Iterator[EtcdCluster]:
    members = EtcdCluster(3)
    members.start()
    try:
        yield members
    finally:
        members.stop()


async def next_batch(it: AsyncIterator[WatchBatch], timeout: float = 10.0) -> WatchBatch:
    return await asyncio.wait_for(anext(it), timeout)


async def events(it: AsyncIterator[WatchBatch], n: int) -> list[Event]:
    got: list[Event] = []
    while len(got) < n:
        got += (await next_batch(it)).events
    return got


def etcd_gateway_get(endpoint: str, key: str) -> bytes:
    """Read a key through etcd's JSON gateway, i.e. without our client."""
    body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
    request = urllib.request.Request(f"http://{endpoint}/v3/kv/range", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        kvs = json.load(response).get("kvs", [])
    return base64.b64decode(kvs[0]["value"]) if kvs else b""


async def test_cas_writes_are_txns_and_values_are_stored_as_is(
    etcd: EtcdKV, etcd_server: EtcdServer, prefix: str
) -> None:
    key = prefix + "a"
    r1 = await etcd.create(key, b'{"kind":"Pod"}')
    assert etcd_gateway_get(etcd_server.endpoint, key) == b'{"kind":"Pod"}'
    with pytest.raises(KeyExistsError):
        await etcd.create(key, b"again")
    with pytest.raises(ConflictError) as conflict:
        await etcd.update(key, b"x", 0)  # 0 is never a live key's revision: no blind put
    assert conflict.value.current_revision == r1
    with pytest.raises(KeyNotFoundError):
        await etcd.update(prefix + "missing", b"x", 0)  # must not create it
    assert await etcd.get(prefix + "missing") is None
    r2 = await etcd.update(key, b"2", r1)
    with pytest.raises(ConflictError) as conflict:
        await etcd.delete(key, r1)
    assert conflict.value.current_revision == r2
    r3, prev = await etcd.delete(key)
    assert r3 == r2 + 1 and (prev.value, prev.mod_revision, prev.create_revision) == (b"2", r2, r1)
    with pytest.raises(KeyNotFoundError):
        await etcd.delete(key)


async def test_read_at_a_future_revision_is_too_large(etcd: EtcdKV, prefix: str) -> None:
    current = await etcd.current_revision()
    with pytest.raises(TooLargeResourceVersionError):
        await etcd.range(prefix, revision=current + 1000)


async def test_watch_resumes_without_gaps_after_etcd_is_killed(
    etcd: EtcdKV, etcd_server: EtcdServer, prefix: str
) -> None:
    watch = etcd.watch(prefix, 0)
    it = aiter(watch)
    try:
        revs = [await etcd.create(f"{prefix}{i}", b"before") for i in range(3)]
        first = await next_batch(it)  # consume part of it; the rest may be in flight
        etcd_server.kill()
        etcd_server.start()
        restarted = time.monotonic()
        revs += [await etcd.create(f"{prefix}{i}", b"after") for i in range(3, 6)]
        seen = first.events + await events(it, 6 - len(first.events))
        assert time.monotonic() - restarted < 5
    finally:
        await watch.close()
    assert [e.revision for e in seen] == revs
    assert [e.kv.value for e in seen] == [b"before"] * 3 + [b"after"] * 3


async def test_progress_request_yields_a_bookmark_at_or_after_now(etcd: EtcdKV, prefix: str) -> None:
    r = await etcd.create(prefix + "a", b"1")
    watch = etcd.watch(prefix, r + 1)
    it = aiter(watch)
    try:
        await etcd.create(prefix[:-1] + "-elsewhere", b"1")
        current = await etcd.current_revision()
        await watch.request_progress()
        batch = await next_batch(it)
        assert batch.events == [] and batch.revision >= current
    finally:
        await watch.close()


async def test_bookmarks_never_overtake_events(etcd: EtcdKV, prefix: str) -> None:
    """etcd < 3.4.25 answers progress requests out of band (etcd#15220), often ahead of
    events they cover. Under writes plus a stream of progress requests, every event must
    still arrive, after no bookmark at or above its revision."""
    watch = etcd.watch(prefix, 0)
    it = aiter(watch)
    writes, gate = 600, asyncio.Semaphore(16)

    async def write(i: int) -> int:
        async with gate:
            return await etcd.create(f"{prefix}{i}", b"v")

    async def ask_for_progress() -> None:
        while True:
            await watch.request_progress()
            await asyncio.sleep(0.002)

    asker = asyncio.create_task(ask_for_progress())
    writers = asyncio.gather(*(write(i) for i in range(writes)))
    seen: list[int] = []
    bookmarks, last = 0, 0
    try:
        async with asyncio.timeout(20):
            while len(seen) < writes:
                batch = await next_batch(it)
                assert batch.revision >= last and all(e.revision > last for e in batch.events)
                seen += [e.revision for e in batch.events]
                bookmarks += not batch.events
                last = batch.revision
        revisions = await writers
    finally:
        asker.cancel()
        await watch.close()
    assert seen == sorted(revisions) and bookmarks > 0


@pytest.mark.parametrize(
    ("version", "ordered"),
    [("3.4.23", False), ("3.4.31", True), ("3.5.12", False), ("3.5.13", True), ("3.6.0", True)],
)
def test_progress_responses_are_verified_below_fixed_etcd_versions(version: str, ordered: bool) -> None:
    assert _progress_is_ordered(version) is ordered


async def test_compaction_expires_reads_and_watches(
    etcd: EtcdKV, etcd_server: EtcdServer, prefix: str
) -> None:
    r1 = await etcd.create(prefix + "a", b"1")
    r2 = await etcd.update(prefix + "a", b"2", r1)
    await etcd.compact(r2 + 1000)  # beyond now: clipped to the current revision
    compacted = await etcd.compacted_revision()
    assert compacted >= r2
    await etcd.compact(r1)  # below the compaction point: a no-op
    other = await open_etcd([etcd_server.endpoint])  # learns the point from etcd alone
    try:
        assert await other.compacted_revision() == compacted
        with pytest.raises(CompactedError) as expired:
            await other.range(prefix, revision=r1)
        assert (expired.value.compact_revision, expired.value.requested) == (compacted, r1)
        watch = other.watch(prefix, r1)
        with pytest.raises(CompactedError) as expired:
            await next_batch(aiter(watch))
        assert expired.value.compact_revision == compacted
        await watch.close()
    finally:
        await other.close()
    assert [kv.value for kv in (await etcd.range(prefix, revision=compacted)).kvs] == [b"2"]


async def test_open_on_an_unreachable_endpoint_fails_fast() -> None:
    started = time.monotonic()
    with pytest.raises(StoreConfigError) as failed:
        await open_etcd(["127.0.0.1:1"])
    assert time.monotonic() - started < 5
    message = str(failed.value)
    assert message.startswith("cannot reach etcd at 127.0.0.1:1: ") and "\n" not in message


async def test_close_ends_iteration_and_leaves_no_tasks(etcd: EtcdKV, prefix: str) -> None:
    before = asyncio.all_tasks()
    watch = etcd.watch(prefix, 0)

    async def consume() -> list[WatchBatch]:
        return [batch async for batch in watch]

    consumer = asyncio.create_task(consume())
    await etcd.create(prefix + "a", b"1")
    await asyncio.sleep(0.2)
    await watch.close()
    batches = await asyncio.wait_for(consumer, 5)
    assert [e.kv.key for b in batches for e in b.events] == [prefix + "a"]
    await asyncio.sleep(0.05)
    assert asyncio.all_tasks() - before == set()


async def test_multi_endpoint_client_survives_losing_its_member(cluster: EtcdCluster) -> None:
    """Kill the follower the channel talks to (killing the leader instead can fail writes
    with "request timed out" for ~7 s on etcd 3.4 while a new leader is elected)."""
    status = {m.endpoint: await _status(m.endpoint) for m in cluster.members}
    leader = next(iter(status.values()))[1]
    followers_first = sorted(cluster.endpoints, key=lambda e: status[e][0] == leader)
    client = await open_etcd(followers_first)
    watch: EtcdWatch | None = None
    try:
        watch = client.watch("/failover/", 0)
        it = aiter(watch)
        revs = [await client.create(f"/failover/{i}", b"x") for i in range(2)]
        seen = await events(it, 2)
        used = await client.ping()
        assert used == status[followers_first[0]][0] != leader
        next(m for m in cluster.members if m.endpoint == followers_first[0]).kill()
        # A read racing the death is retried until the channel has moved to a live member;
        # writes after that succeed. (A write racing it may fail with UnavailableError:
        # it is not retried, as it may have been applied.)
        assert await client.get("/failover/0") is not None
        revs += [await client.create(f"/failover/{i}", b"x") for i in range(2, 4)]
        seen += await events(it, 2)
        assert await client.ping() != used
        assert [e.revision for e in seen] == revs
        assert {e.type for e in seen} == {EventType.PUT}
    finally:
        if watch is not None:
            await watch.close()
        await client.close()


async def _status(endpoint: str) -> tuple[int, int]:
    """(member id, leader id) as one member reports them."""
    async with grpc.aio.insecure_channel(endpoint) as channel:
        reply = await rpc.MaintenanceStub(channel).Status(rpc.StatusRequest(), timeout=5)
    return int(reply.header.member_id), int(reply.leader)


async def test_etcdctl_shows_readable_objects_under_registry(etcd_server: EtcdServer) -> None:
    """The teaching feature: upstream's key layout with JSON values, readable by etcdctl."""
    kv = await open_etcd([etcd_server.endpoint])
    name = f"cm-{uuid.uuid4().hex[:8]}"
    try:
        await KVObjectStorage(kv).create(
            object_key("configmaps", name, "default"),
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "b"}},
        )
    finally:
        await kv.close()
    out = subprocess.run(
        [
            "etcdctl",
            f"--endpoints={etcd_server.endpoint}",
            "get",
            "--prefix",
            "/registry/configmaps/default/",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": os.environ["PATH"], "ETCDCTL_API": "3"},
    ).stdout.splitlines()
    key_line = out.index(f"/registry/configmaps/default/{name}")
    stored = json.loads(out[key_line + 1])
    assert stored["metadata"]["name"] == name and stored["data"] == {"a": "b"}
    assert "resourceVersion" not in stored["metadata"]  # the mod revision is the RV

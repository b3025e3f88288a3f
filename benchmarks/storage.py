"""Storage benchmark: every KV backend through the async ``KV`` interface, in one run.

    python benchmarks/storage.py [--ops 2000] [--keys 10000] [--etcd HOST:PORT]

Prints ops/s for sequential and concurrent (32 in flight) create, get and CAS update, a range
of 100 out of ``--keys`` keys, watch delivery (history replay and live), then the ratio of each
embedded backend to etcd. Without ``--etcd`` a throwaway etcd member is started (the
``etcd`` binary must be on PATH). Finally it measures the SQLite file size under a steady
update load with periodic compaction. Figures, not assertions: nothing here fails on speed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from apiserver.storage.compactor import Compactor
from apiserver.storage.factory import open_kv
from apiserver.storage.kv import KV

VALUE = b"v" * 512
CONCURRENCY = 32


async def rate(n: int, op: Callable[[int], Awaitable[object]], concurrency: int = 1) -> float:
    """Run ``op(i)`` for i in range(n) with ``concurrency`` in flight; return ops/s."""
    counter = iter(range(n))

    async def worker() -> None:
        for i in counter:
            await op(i)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return n / (time.perf_counter() - start)


async def measure(kv: KV, ops: int, keys: int) -> dict[str, float]:
    p = f"/bench/{uuid.uuid4().hex[:8]}/"
    revs: dict[str, int] = {}

    async def create(prefix: str, i: int) -> None:
        revs[f"{prefix}{i:06d}"] = await kv.create(f"{prefix}{i:06d}", VALUE)

    async def update(prefix: str, i: int) -> None:
        key = f"{prefix}{i:06d}"
        revs[key] = await kv.update(key, VALUE, revs[key])

    out: dict[str, float] = {}
    out["create seq"] = await rate(ops, lambda i: create(p + "s/", i))
    out["create x32"] = await rate(ops, lambda i: create(p + "c/", i), CONCURRENCY)
    out["get seq"] = await rate(ops, lambda i: kv.get(f"{p}s/{i:06d}"))
    out["get x32"] = await rate(ops, lambda i: kv.get(f"{p}c/{i:06d}"), CONCURRENCY)
    out["CAS update seq"] = await rate(ops, lambda i: update(p + "s/", i))
    out["CAS update x32"] = await rate(ops, lambda i: update(p + "c/", i), CONCURRENCY)
    await rate(keys, lambda i: create(p + "r/", i), CONCURRENCY)
    out["range 100/10k"] = await rate(
        200, lambda i: kv.range(p + "r/", start=f"{p}r/{(i * 47) % (keys - 100):06d}", limit=100)
    )
    out["watch replay ev/s"] = await watch_replay(kv, p + "s/", 2 * ops)
    out["watch live ev/s"] = await watch_live(kv, p + "w/", ops)
    return out


async def watch_replay(kv: KV, prefix: str, expected: int) -> float:
    first = (await kv.range(prefix, limit=1)).kvs[0].create_revision
    watch = kv.watch(prefix, first)
    start, seen = time.perf_counter(), 0
    async for batch in watch:
        seen += len(batch.events)
        if seen >= expected:
            break
    await watch.close()
    return seen / (time.perf_counter() - start)


async def watch_live(kv: KV, prefix: str, n: int) -> float:
    watch = kv.watch(prefix, 0)

    async def consume() -> int:
        seen = 0
        async for batch in watch:
            seen += len(batch.events)
            if seen >= n:
                break
        return seen

    start = time.perf_counter()
    consumer = asyncio.create_task(consume())
    await asyncio.sleep(0)
    await rate(n, lambda i: kv.create(f"{prefix}{i:06d}", VALUE), 4)
    seen = await consumer
    await watch.close()
    return seen / (time.perf_counter() - start)


async def file_growth(directory: Path, rounds: int = 40, objects: int = 500) -> list[int]:
    """Sizes (db + wal) after each round of updating every object, compacting each round."""
    path = directory / "growth.db"
    kv = await open_kv(f"sqlite:///{path}")
    compactor = Compactor(kv, min_window=1000)
    revs = {f"/registry/cm/{i}": await kv.create(f"/registry/cm/{i}", VALUE) for i in range(objects)}
    sizes = []
    for _ in range(rounds):
        for key, rev in revs.items():
            revs[key] = await kv.update(key, os.urandom(256).hex().encode(), rev)
        await compactor.compact_once()
        wal = Path(f"{path}-wal")
        sizes.append(path.stat().st_size + (wal.stat().st_size if wal.exists() else 0))
    await kv.close()
    return sizes


def print_table(results: dict[str, dict[str, float]]) -> None:
    names = list(results)
    rows = list(next(iter(results.values())))
    ratio_cols = [n for n in names if n != "etcd"] if "etcd" in results else []
    header = f"{'op (ops/s)':<20}" + "".join(f"{n:>15}" for n in names)
    header += "".join(f"{n + '/etcd':>20}" for n in ratio_cols)
    print(header)
    print("-" * len(header))
    for row in rows:
        line = f"{row:<20}" + "".join(f"{results[n][row]:>15,.0f}" for n in names)
        line += "".join(f"{results[n][row] / results['etcd'][row]:>19.1f}x" for n in ratio_cols)
        print(line)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=2000)
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--etcd", help="HOST:PORT of an etcd to use instead of starting one")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mkpy-bench-"))
    server = None
    endpoint = args.etcd
    if endpoint is None:
        from apiserver.storage.testing.etcdserver import EtcdServer

        server = EtcdServer()
        server.start()
        endpoint = server.endpoint
    urls = {
        "sqlite-normal": f"sqlite:///{tmp / 'normal.db'}",
        "sqlite-full": f"sqlite:///{tmp / 'full.db'}?synchronous=full",
        "memory": "memory://",
        "etcd": f"etcd://{endpoint}",
    }
    results: dict[str, dict[str, float]] = {}
    try:
        for name, url in urls.items():
            kv = await open_kv(url)
            print(f"measuring {name} ...", file=sys.stderr)
            results[name] = await measure(kv, args.ops, args.keys)
            await kv.close()
    finally:
        if server is not None:
            server.stop()
    print(f"\nKV backends, {args.ops} ops per row, 512-byte values, x32 = 32 in flight\n")
    print_table(results)
    sizes = await file_growth(tmp)
    print("\nSQLite size under steady updates (500 objects x 40 rounds, compaction each round):")
    print(
        "  after rounds 1, 10, 20, 30, 40:",
        ", ".join(f"{sizes[i] / 1024:,.0f} KiB" for i in (0, 9, 19, 29, 39)),
    )


if __name__ == "__main__":
    asyncio.run(main())

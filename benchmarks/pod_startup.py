"""Pod startup latency and burst throughput on simulated nodes.

    python benchmarks/pod_startup.py [--fake-nodes 100] [--rate 20] [--seconds 30] [--burst 3000]

Runs ``minikube-py up --nodes 0 --fake-nodes N`` (controllers, scheduler and the simulated
nodes' agent in one process) and creates pods through the apiserver:

1. **steady**: ``--rate`` pods per second for ``--seconds``; for each pod, the time from
   sending its create to the watch event that shows it bound (``spec.nodeName``: the
   baseline, what the control plane alone costs) and to the one that shows it ``Running``
   (what the node agent adds on top): p50 and p99 of each;
2. **burst**: ``--burst`` pods created as fast as possible (100 in flight); seconds until the
   watch has seen every one Running.

The fake runtime starts a container after 50-200 ms (its default delay and jitter), as a
real runtime would take a moment. Goal (issue 7): p99 <= 500 ms, a 3,000-pod burst <= 15 s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchutil import wait_for_nodes, watch_pods

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import PODS
from minikube_py.network import DEFAULT_CLUSTER_CIDR
from minikube_py.testing.cluster import free_port, start_up
from minikube_py.testing.slots import NODES_PER_SLOT

NAMESPACE = "default"


def pod(name: str) -> dict[str, Any]:
    container = {
        "name": "c",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": "10m"}},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [container]},
    }


class Watcher:
    """When each pod (by name prefix) was first seen bound and first seen Running."""

    def __init__(self, client: RESTClient, prefix: str) -> None:
        self.client, self.prefix = client, prefix
        self.bound: dict[str, float] = {}
        self.running: dict[str, float] = {}

    async def run(self, resource_version: str) -> None:
        async for name, obj, now in watch_pods(self.client, NAMESPACE, self.prefix, resource_version):
            if (obj.get("spec") or {}).get("nodeName"):
                self.bound.setdefault(name, now)
            if (obj.get("status") or {}).get("phase") == "Running":
                self.running.setdefault(name, now)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


async def steady(client: RESTClient, rate: float, seconds: float) -> None:
    pods = client.resource(PODS, NAMESPACE)
    rv = (await pods.list(limit=1))["metadata"]["resourceVersion"]
    watcher = Watcher(client, "steady-")
    watching = asyncio.ensure_future(watcher.run(rv))
    sent: dict[str, float] = {}
    creates = []
    count = int(rate * seconds)
    start = time.monotonic()
    for i in range(count):
        await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
        name = f"steady-{i}"
        sent[name] = time.monotonic()
        creates.append(asyncio.ensure_future(pods.create(pod(name))))
    await asyncio.gather(*creates)
    deadline = time.monotonic() + 60
    while len(watcher.running) < count and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    watching.cancel()
    bound = [watcher.bound[n] - sent[n] for n in sent if n in watcher.bound]
    running = [watcher.running[n] - sent[n] for n in sent if n in watcher.running]
    print(f"steady: {count} pods at {rate:g}/s; {len(running)} seen Running")
    for label, values in (("create -> bound (baseline)", bound), ("create -> Running", running)):
        print(f"  {label:27}: p50 {percentile(values, 0.5):6.0f} ms   p99 {percentile(values, 0.99):6.0f} ms")
    added = (statistics.median(running) - statistics.median(bound)) * 1000
    print(f"  median added by the node agent: {added:.0f} ms")


async def burst(client: RESTClient, count: int) -> None:
    pods = client.resource(PODS, NAMESPACE)
    rv = (await pods.list(limit=1))["metadata"]["resourceVersion"]
    watcher = Watcher(client, "burst-")
    watching = asyncio.ensure_future(watcher.run(rv))
    gate = asyncio.Semaphore(100)

    async def create(i: int) -> None:
        async with gate:
            await pods.create(pod(f"burst-{i}"))

    start = time.monotonic()
    await asyncio.gather(*(create(i) for i in range(count)))
    created = time.monotonic() - start
    deadline = time.monotonic() + 300
    while len(watcher.running) < count and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    watching.cancel()
    done = max(watcher.running.values(), default=start) - start
    print(
        f"burst: {count} pods created in {created:.1f} s; {len(watcher.running)} Running after {done:.1f} s"
    )


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        flags = ["--nodes", "0", "--fake-nodes", str(args.fake_nodes)]
        if args.fake_nodes > NODES_PER_SLOT:  # more nodes than a network slot has ranges for: the
            flags += ["--cluster-cidr", DEFAULT_CLUSTER_CIDR]  # default pod network (never bound)
        cluster = start_up(Path(tmp), free_port(), store=args.store, flags=flags)
        try:
            cluster.wait_ready()
            client = RESTClient(dataclasses.replace(load_kubeconfig(cluster.kubeconfig), qps=0.0))
            await wait_for_nodes(client, args.fake_nodes)
            await steady(client, args.rate, args.seconds)
            await burst(client, args.burst)
            await client.close()
        finally:
            with contextlib.suppress(Exception):
                cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fake-nodes", type=int, default=100)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--burst", type=int, default=3000)
    parser.add_argument("--store", default="memory://")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

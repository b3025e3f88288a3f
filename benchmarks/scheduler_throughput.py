"""Scheduler throughput, in the shape of upstream's scheduler_perf SchedulingBasic.

    python benchmarks/scheduler_throughput.py --nodes 500 --pods 1000 [--initial 500] [--store URL]

Runs ``minikube-py up`` (no controllers: only the apiserver and the scheduler work), creates
``--nodes`` Node objects (Ready, 8 CPU / 32 Gi / 110 pods, no heartbeats needed), then
``--initial`` pods that are scheduled before measuring, then ``--pods`` pods whose scheduling
is measured: from the first create until a watch has seen every one of them bound. Prints the
wall time of each phase and pods/s for the measured pods.

Anchors (from the issue): upstream's CI threshold for SchedulingBasic at 5,000 nodes / 10k pods
is 680 pods/s (Go, bigger machines); real clusters are capped near 100 pods/s by API rate
limits. Goal here: >= 300 pods/s at 5,000 nodes and >= 500 pods/s at 500 nodes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import NODES, PODS, SERVICEACCOUNTS
from tests.cluster import free_port

NAMESPACE = "default"
CONCURRENCY = 100


def node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
    }


def node_status(created: dict[str, Any]) -> dict[str, Any]:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    resources = {"cpu": "8", "memory": "32Gi", "pods": "110"}
    ready = {
        "type": "Ready",
        "status": "True",
        "reason": "KubeletReady",
        "message": "kubelet is posting ready status",
        "lastHeartbeatTime": now,
        "lastTransitionTime": now,
    }
    return {**created, "status": {"capacity": resources, "allocatable": resources, "conditions": [ready]}}


def pod(name: str) -> dict[str, Any]:
    container = {
        "name": "c",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [container]},
    }


@contextlib.asynccontextmanager
async def cluster(store: str) -> AsyncIterator[RESTClient]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        command = [
            sys.executable,
            "-m",
            "minikube_py.cli.main",
            "up",
            "--data-dir",
            tmp,
            "--port",
            str(port),
            "--no-kubeconfig-merge",
            "--store",
            store.replace("DIR", tmp),
            "--controllers=",
            "--node-monitor-grace-period=1h",
        ]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert process.stdout is not None
            process.stdout.readline()
            config = load_kubeconfig(Path(tmp) / "admin.kubeconfig")
            client = RESTClient(dataclasses.replace(config, qps=0.0))
            yield client
            await client.close()
        finally:
            process.terminate()
            process.wait(timeout=10)


async def in_parallel(count: int, make: Any) -> None:
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(i: int) -> None:
        async with gate:
            await make(i)

    await asyncio.gather(*(one(i) for i in range(count)))


async def make_nodes(client: RESTClient, count: int) -> None:
    nodes = client.resource(NODES)

    async def make(i: int) -> None:
        created = await nodes.create(node(f"node-{i}"))
        await nodes.update_status(node_status(created))

    await in_parallel(count, make)


async def schedule(client: RESTClient, prefix: str, count: int) -> tuple[float, float]:
    """Create ``count`` pods; seconds until all are created and until all are bound."""
    pods = client.resource(PODS, NAMESPACE)
    rv = (await pods.list(limit=1))["metadata"]["resourceVersion"]
    bound: set[str] = set()

    async def watch() -> None:
        async for event in pods.watch(resource_version=rv, timeout_seconds=600):
            name = event.object["metadata"]["name"]
            if name.startswith(prefix) and (event.object.get("spec") or {}).get("nodeName"):
                bound.add(name)
                if len(bound) == count:
                    return

    start = time.monotonic()
    watching = asyncio.ensure_future(watch())
    await in_parallel(count, lambda i: pods.create(pod(f"{prefix}-{i}")))
    created = time.monotonic() - start
    await asyncio.wait_for(watching, timeout=600)
    return created, time.monotonic() - start


async def run(args: argparse.Namespace) -> None:
    async with cluster(args.store) as client:
        # no controllers run: make the service account pods need, as the controller would
        await client.resource(SERVICEACCOUNTS, NAMESPACE).create({"metadata": {"name": "default"}})
        start = time.monotonic()
        await make_nodes(client, args.nodes)
        nodes_seconds = time.monotonic() - start
        await asyncio.sleep(1)  # the scheduler's node informer catches up
        initial = await schedule(client, "initial", args.initial) if args.initial else (0.0, 0.0)
        created, bound = await schedule(client, "measured", args.pods)
    print(f"store {args.store}; {args.nodes} nodes, {args.initial} initial pods, {args.pods} measured pods")
    print(f"nodes created:          {nodes_seconds:7.2f} s")
    if args.initial:
        print(f"initial pods bound:     {initial[1]:7.2f} s")
    print(f"measured pods created:  {created:7.2f} s")
    print(f"measured pods bound:    {bound:7.2f} s   {args.pods / bound:7.0f} pods/s")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--initial", type=int, default=0)
    parser.add_argument("--store", default="memory://", help="DIR is the data dir")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

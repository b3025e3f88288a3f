"""Scheduler throughput, in the shape of upstream's scheduler_perf SchedulingBasic.

    python benchmarks/scheduler_throughput.py --nodes 500 --pods 1000 [--initial 500] [--store URL]
        [--scheduler up|process]

Runs ``minikube-py up`` (no controllers: only the apiserver and the scheduler work), creates
``--nodes`` Node objects (Ready, 8 CPU / 32 Gi / 110 pods, no heartbeats needed), then
``--initial`` pods that are scheduled before measuring, then ``--pods`` pods whose scheduling
is measured: from the first create until a watch has seen every one of them bound. Prints the
wall time of each phase, pods/s for the measured pods, the CPU the cluster's processes spent
on them and the scheduler's attempts (one per pod when nothing had to be retried).

``--scheduler up`` (default) measures the scheduler inside ``up``'s single process, sharing
one core with the apiserver; ``--scheduler process`` runs ``minikube-py scheduler`` as its own
process (as in the compose deployment and upstream), with a profile the measured pods name,
so apiserver and scheduler each get a core. Upstream's scheduler_perf runs both in one Go
process using every core.

Anchors (from the issue): upstream's CI threshold for SchedulingBasic at 5,000 nodes / 10k pods
is 680 pods/s (Go, bigger machines); real clusters are capped near 100 pods/s by API rate
limits. Goal here: >= 300 pods/s at 5,000 nodes and >= 500 pods/s at 500 nodes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import NODES, PODS, SERVICEACCOUNTS
from minikube_py.testing.cluster import free_port

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


def pod(name: str, scheduler_name: str) -> dict[str, Any]:
    container = {
        "name": "c",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [container], "schedulerName": scheduler_name},
    }


SEPARATE_PROFILE = "bench-scheduler"
SEPARATE_CONFIG = f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: {SEPARATE_PROFILE}
"""


@dataclasses.dataclass
class Cluster:
    client: RESTClient
    pids: list[int]  # the processes whose CPU is counted
    scheduler_port: int
    scheduler_name: str


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def cluster(store: str, separate_scheduler: bool) -> AsyncIterator[Cluster]:
    with tempfile.TemporaryDirectory() as tmp:
        port, scheduler_port = free_port(), free_port()
        main = [sys.executable, "-m", "minikube_py.cli.main"]
        up = [
            *main,
            "up",
            "--data-dir",
            tmp,
            "--port",
            str(port),
            "--no-kubeconfig-merge",
            "--store",
            store.replace("DIR", tmp),
            "--controllers=",
            "--nodes",
            "0",
            "--node-monitor-grace-period=1h",
        ]
        if not separate_scheduler:
            up += ["--scheduler-secure-port", str(scheduler_port)]
        processes = [subprocess.Popen(up, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)]
        try:
            assert processes[0].stdout is not None
            processes[0].stdout.readline()
            scheduler_name = "default-scheduler"
            if separate_scheduler:
                config_file = Path(tmp) / "scheduler-config.yaml"
                config_file.write_text(SEPARATE_CONFIG)
                scheduler = [
                    *main,
                    "scheduler",
                    "--kubeconfig",
                    str(Path(tmp) / "scheduler.kubeconfig"),
                    "--config",
                    str(config_file),
                    "--leader-elect=false",
                    "--secure-port",
                    str(scheduler_port),
                ]
                processes.append(subprocess.Popen(scheduler, stderr=subprocess.DEVNULL))
                scheduler_name = SEPARATE_PROFILE
            config = load_kubeconfig(Path(tmp) / "admin.kubeconfig")
            client = RESTClient(dataclasses.replace(config, qps=0.0))
            yield Cluster(client, [p.pid for p in processes], scheduler_port, scheduler_name)
            await client.close()
        finally:
            for process in reversed(processes):
                process.terminate()
                process.wait(timeout=10)


def scheduling_attempts(port: int) -> dict[str, float]:
    """The scheduler's ``scheduler_schedule_attempts_total`` by result, from its /metrics."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics").text
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("scheduler_schedule_attempts_total{"):
            labels, _, value = line.rpartition(" ")
            result = labels.split('result="')[1].split('"')[0]
            out[result] = out.get(result, 0.0) + float(value)
    return out


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


async def schedule(c: Cluster, prefix: str, count: int) -> tuple[float, float]:
    """Create ``count`` pods; seconds until all are created and until all are bound."""
    pods = c.client.resource(PODS, NAMESPACE)
    rv = (await pods.list(limit=1))["metadata"]["resourceVersion"]
    bound: set[str] = set()

    async def watch() -> None:
        # the apiserver may end a watch (a slow watcher is terminated): resume from the last
        # RV seen until every pod was seen bound
        nonlocal rv
        while len(bound) < count:
            async for event in pods.watch(resource_version=rv, timeout_seconds=600):
                rv = event.object["metadata"]["resourceVersion"]
                name = event.object["metadata"]["name"]
                if name.startswith(prefix) and (event.object.get("spec") or {}).get("nodeName"):
                    bound.add(name)
                    if len(bound) == count:
                        return

    start = time.monotonic()
    watching = asyncio.ensure_future(watch())
    await in_parallel(count, lambda i: pods.create(pod(f"{prefix}-{i}", c.scheduler_name)))
    created = time.monotonic() - start
    await asyncio.wait_for(watching, timeout=600)
    return created, time.monotonic() - start


async def run(args: argparse.Namespace) -> None:
    separate = args.scheduler == "process"
    async with cluster(args.store, separate) as c:
        # no controllers run: make the service account pods need, as the controller would
        await c.client.resource(SERVICEACCOUNTS, NAMESPACE).create({"metadata": {"name": "default"}})
        start = time.monotonic()
        await make_nodes(c.client, args.nodes)
        nodes_seconds = time.monotonic() - start
        await asyncio.sleep(1)  # the scheduler's node informer catches up
        initial = await schedule(c, "initial", args.initial) if args.initial else (0.0, 0.0)
        cpu_before = [cpu_seconds(pid) for pid in c.pids]
        created, bound = await schedule(c, "measured", args.pods)
        cpu = [cpu_seconds(pid) - before for pid, before in zip(c.pids, cpu_before, strict=True)]
        attempts = scheduling_attempts(c.scheduler_port)
    print(
        f"store {args.store}; scheduler in {'its own process' if separate else 'up'}; "
        f"{args.nodes} nodes, {args.initial} initial pods, {args.pods} measured pods"
    )
    print(f"nodes created:          {nodes_seconds:7.2f} s")
    if args.initial:
        print(f"initial pods bound:     {initial[1]:7.2f} s")
    print(f"measured pods created:  {created:7.2f} s")
    print(f"measured pods bound:    {bound:7.2f} s   {args.pods / bound:7.0f} pods/s")
    names = ["up", "scheduler"]
    for name, seconds in zip(names, cpu, strict=False):
        print(
            f"CPU of {name + ':':11} {seconds:7.2f} s   {seconds / bound * 100:7.0f} % of one core, "
            f"{seconds / args.pods * 1000:5.2f} ms per pod"
        )
    print(f"scheduling attempts:    {attempts} (all pods: {args.initial + args.pods})")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--initial", type=int, default=0)
    parser.add_argument("--store", default="memory://", help="DIR is the data dir")
    parser.add_argument("--scheduler", choices=("up", "process"), default="up")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

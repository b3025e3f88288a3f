"""Job completions on simulated nodes: how fast the Job controller turns Jobs into finished pods.

    python benchmarks/job_completions.py [--jobs 1000] [--fake-nodes 100]

Runs ``minikube-py up --nodes 0 --fake-nodes N`` without the Job and TTL controllers, and the
Job controller as its own process (``minikube-py controller-manager --controllers
job-controller --leader-elect false``), so its CPU time is its own (``/proc/<pid>/stat``).
Each Job runs one simulated pod that exits 0 100 ms after it starts (``FAKE_EXIT_AFTER``).

1. **baseline**: the same number of bare pods (``restartPolicy: Never``) created directly:
   seconds until the watch saw every one Succeeded (what scheduling and the nodes cost);
2. **jobs**: ``--jobs`` Jobs created as fast as possible (100 in flight): seconds from the
   first create until every Job has its ``Complete`` condition, pods/s, and the Job
   controller's CPU seconds per Job (and ``up``'s, which serves the apiserver, scheduler,
   simulated nodes and the other controllers).

Goal (issue 16): 1,000 Job completions on 100 simulated nodes in <= 20 s end to end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchutil import cpu_seconds, wait_for_nodes

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.interfaces import ResourceClient
from minikube_py.client.resourcetypes import JOBS, PODS
from minikube_py.network import DEFAULT_CLUSTER_CIDR
from minikube_py.testing.cluster import Cluster, free_port, start, start_up
from minikube_py.testing.slots import NODES_PER_SLOT

NAMESPACE = "default"
IN_FLIGHT = 100


def pod_spec() -> dict[str, Any]:
    container = {
        "name": "work",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": "10m"}},
        "env": [{"name": "FAKE_EXIT_AFTER", "value": "0.1"}],
    }
    return {"restartPolicy": "Never", "automountServiceAccountToken": False, "containers": [container]}


def job(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"template": {"spec": pod_spec()}},
    }


def bare_pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": pod_spec()}


async def watch_until(
    handle: ResourceClient, prefix: str, done: Any, count: int, timeout: float
) -> dict[str, float]:
    """When each object named ``prefix...`` was first seen ``done``; until ``count`` are."""
    seen: dict[str, float] = {}
    rv = (await handle.list(limit=1))["metadata"]["resourceVersion"]

    async def follow() -> None:
        nonlocal rv
        while len(seen) < count:
            async for event in handle.watch(resource_version=rv, timeout_seconds=600):
                obj = event.object
                rv = obj["metadata"]["resourceVersion"]
                name = obj["metadata"]["name"]
                if name.startswith(prefix) and name not in seen and done(obj):
                    seen[name] = time.monotonic()
                    if len(seen) >= count:
                        return

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(follow(), timeout)
    return seen


async def create_all(handle: ResourceClient, objs: list[dict[str, Any]]) -> None:
    gate = asyncio.Semaphore(IN_FLIGHT)

    async def create(obj: dict[str, Any]) -> None:
        async with gate:
            await handle.create(obj)

    await asyncio.gather(*(create(o) for o in objs))


def succeeded(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Succeeded"


def complete(obj: dict[str, Any]) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Complete" and c.get("status") == "True" for c in conditions)


async def baseline(client: RESTClient, count: int, figures: dict[str, float]) -> None:
    pods = client.resource(PODS, NAMESPACE)
    watching = asyncio.ensure_future(watch_until(pods, "bare-", succeeded, count, 300))
    await asyncio.sleep(0.2)  # the watch is open before the first create
    start_at = time.monotonic()
    await create_all(pods, [bare_pod(f"bare-{i}") for i in range(count)])
    seen = await watching
    took = max(seen.values(), default=start_at) - start_at
    print(
        f"baseline: {count} bare pods; {len(seen)} Succeeded after {took:.1f} s "
        f"({len(seen) / took:.0f} pods/s)"
    )
    figures.update(baseline_seconds=took, baseline_pods_per_second=len(seen) / took)


async def jobs(
    client: RESTClient, count: int, manager: Cluster, up: Cluster, figures: dict[str, float]
) -> None:
    handle = client.resource(JOBS, NAMESPACE)
    watching = asyncio.ensure_future(watch_until(handle, "job-", complete, count, 600))
    await asyncio.sleep(0.2)
    cpu_manager, cpu_up = cpu_seconds(manager.process.pid), cpu_seconds(up.process.pid)
    start_at = time.monotonic()
    await create_all(handle, [job(f"job-{i}") for i in range(count)])
    created = time.monotonic() - start_at
    seen = await watching
    took = max(seen.values(), default=start_at) - start_at
    manager_cpu = cpu_seconds(manager.process.pid) - cpu_manager
    up_cpu = cpu_seconds(up.process.pid) - cpu_up
    print(
        f"jobs: {count} Jobs created in {created:.1f} s; {len(seen)} Complete after {took:.1f} s "
        "(goal <= 20 s)"
    )
    print(f"  throughput: {len(seen) / took:.0f} pods/s (one pod per Job)")
    print(f"  job-controller process: {manager_cpu:.1f} CPU s, {manager_cpu / count * 1000:.1f} ms per Job")
    print(f"  up (apiserver, scheduler, the simulated nodes, other controllers): {up_cpu:.1f} CPU s")
    figures.update(
        jobs_completed=len(seen),
        jobs_seconds=took,
        pods_per_second=len(seen) / took,
        job_controller_cpu_seconds_per_job=manager_cpu / count,
        up_cpu_seconds=up_cpu,
    )


async def run(args: argparse.Namespace, figures: dict[str, float]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        flags = ["--nodes", "0", "--fake-nodes", str(args.fake_nodes)]
        flags += ["--controllers", "*,-job-controller,-ttl-after-finished-controller"]
        if args.fake_nodes > NODES_PER_SLOT:
            flags += ["--cluster-cidr", DEFAULT_CLUSTER_CIDR]
        up = start_up(Path(tmp), free_port(), store=args.store, flags=flags)
        manager: Cluster | None = None
        try:
            up.wait_ready()
            kubeconfig = up.data_dir / "controller-manager.kubeconfig"
            deadline = time.monotonic() + 60
            while not kubeconfig.exists() and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            manager_flags = ["--kubeconfig", str(kubeconfig), "--secure-port", "-1"]
            manager_flags += ["--controllers", "job-controller", "--leader-elect", "false"]
            manager = start(
                "controller-manager", *manager_flags, logs=Path(tmp) / "cm", data_dir=up.data_dir, port=0
            )
            client = RESTClient(dataclasses.replace(load_kubeconfig(up.kubeconfig), qps=0.0))
            await wait_for_nodes(client, args.fake_nodes)
            if not args.no_baseline:
                await baseline(client, args.jobs, figures)
            await jobs(client, args.jobs, manager, up, figures)
            await client.close()
        finally:
            for process in (manager, up):
                if process is not None:
                    with contextlib.suppress(Exception):
                        process.stop()


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    """Run with ``argv`` (None: the defaults, not this process's arguments, so another module
    may call ``main()``); print the figures and return them by name."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--fake-nodes", type=int, default=100)
    parser.add_argument("--store", default="memory://")
    parser.add_argument("--no-baseline", action="store_true", help="skip the bare-pod baseline")
    figures: dict[str, float] = {}
    asyncio.run(run(parser.parse_args(list(argv or [])), figures))
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])

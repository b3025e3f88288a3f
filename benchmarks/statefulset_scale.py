"""A StatefulSet of 100 replicas, in order, on simulated nodes.

    python benchmarks/statefulset_scale.py [--replicas 100] [--fake-nodes 10] [--store URL]

Runs ``minikube-py up --nodes 0 --fake-nodes N`` with every controller but the StatefulSet
controller, and that one alone in its own ``minikube-py controller-manager`` process (so its
CPU can be read from ``/proc/PID/stat``: user + system seconds, every thread). Then, as the
admin, creates a headless Service and:

1. **OrderedReady**: a StatefulSet of ``--replicas``; seconds from the create until a watch
   sees every pod Ready, whether each pod was created only after its predecessor was Ready,
   and the controller-manager's CPU seconds per pod;
2. **Parallel** (the baseline, in the same run): the same set with
   ``podManagementPolicy: Parallel``, which waits for nothing; the difference is what the
   ordering costs (one create -> schedule -> start -> Ready round trip per pod).

The simulated runtime starts a container after 50-200 ms (its default delay and jitter), so
OrderedReady cannot beat ~replicas x (that delay + the round trips). ``main()`` is what
``benchmarks/workloads.py`` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchutil import cpu_seconds, is_pod_ready, wait_for_nodes, watch_pods

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import PODS, SERVICES, STATEFULSETS
from minikube_py.testing.cluster import CLI, Cluster, free_port, start_up

NAMESPACE = "default"


def service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"clusterIP": "None", "selector": {"app": name}, "ports": [{"port": 80}]},
    }


def stateful_set(name: str, replicas: int, policy: str) -> dict[str, Any]:
    requests = {"requests": {"cpu": "10m"}}
    container = {"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": requests}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "serviceName": name,
            "replicas": replicas,
            "podManagementPolicy": policy,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


@dataclass
class Watcher:
    """When each pod of one set was first seen, and first seen Ready (monotonic seconds)."""

    client: RESTClient
    prefix: str
    created: dict[str, float] = field(default_factory=dict)
    ready: dict[str, float] = field(default_factory=dict)

    async def run(self, resource_version: str) -> None:
        async for name, obj, now in watch_pods(self.client, NAMESPACE, self.prefix, resource_version):
            self.created.setdefault(name, now)
            if is_pod_ready(obj):
                self.ready.setdefault(name, now)

    def gaps(self, replicas: int) -> tuple[float, float]:
        """Median seconds from a pod's predecessor Ready to its creation (the controller's
        reaction), and from its creation to its Ready (scheduler + node)."""
        names = [f"{self.prefix}{i}" for i in range(replicas)]
        react = [self.created[b] - self.ready[a] for a, b in itertools.pairwise(names)]
        start = [self.ready[n] - self.created[n] for n in names]
        return statistics.median(react), statistics.median(start)

    def in_order(self, replicas: int) -> bool:
        """Every pod was first seen after its predecessor was seen Ready."""
        names = [f"{self.prefix}{i}" for i in range(replicas)]
        return all(self.created[b] >= self.ready[a] for a, b in itertools.pairwise(names))


@dataclass
class Result:
    seconds: float
    cpu: float
    in_order: bool
    react: float
    startup: float


async def measure(client: RESTClient, pid: int, name: str, replicas: int, policy: str) -> Result:
    await client.resource(SERVICES, NAMESPACE).create(service(name))
    rv = (await client.resource(PODS, NAMESPACE).list(limit=1))["metadata"]["resourceVersion"]
    watcher = Watcher(client, f"{name}-")
    watching = asyncio.ensure_future(watcher.run(rv))
    cpu_before = cpu_seconds(pid)
    start = time.monotonic()
    await client.resource(STATEFULSETS, NAMESPACE).create(stateful_set(name, replicas, policy))
    deadline = start + 600
    while len(watcher.ready) < replicas and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    seconds = max(watcher.ready.values(), default=start) - start
    cpu = cpu_seconds(pid) - cpu_before
    watching.cancel()
    if len(watcher.ready) < replicas:
        raise SystemExit(f"{name}: only {len(watcher.ready)} of {replicas} pods Ready after 600 s")
    return Result(seconds, cpu, watcher.in_order(replicas), *watcher.gaps(replicas))


@contextlib.asynccontextmanager
async def cluster(args: argparse.Namespace) -> AsyncIterator[tuple[RESTClient, Cluster, int]]:
    """``up`` without the StatefulSet controller, that controller in its own process, and an
    unthrottled admin client."""
    with tempfile.TemporaryDirectory() as tmp:
        flags = ["--nodes", "0", "--fake-nodes", str(args.fake_nodes)]
        flags += ["--controllers", "*,-statefulset-controller"]
        running = start_up(Path(tmp), free_port(), store=args.store, flags=flags)
        manager: subprocess.Popen[bytes] | None = None
        try:
            running.wait_ready()
            command = [*CLI, "controller-manager", "--kubeconfig", str(running.kubeconfig)]
            command += ["--controllers", "statefulset-controller", "--leader-elect", "false"]
            command += ["--secure-port", "-1"]
            manager = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            client = RESTClient(dataclasses.replace(load_kubeconfig(running.kubeconfig), qps=0.0))
            await wait_for_nodes(client, args.fake_nodes)
            yield client, running, manager.pid
            await client.close()
        finally:
            if manager is not None:
                manager.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    manager.wait(timeout=10)
            with contextlib.suppress(Exception):
                running.stop()


async def run(args: argparse.Namespace) -> None:
    async with cluster(args) as (client, _running, pid):
        await asyncio.sleep(2)  # the separate controller-manager's informers sync
        ordered = await measure(client, pid, "ordered", args.replicas, "OrderedReady")
        parallel = await measure(client, pid, "parallel", args.replicas, "Parallel")
    n = args.replicas
    print(f"store {args.store}; {args.fake_nodes} simulated nodes; {n} replicas")
    for label, r in (("OrderedReady", ordered), ("Parallel (baseline)", parallel)):
        order = "each pod created after its predecessor was Ready" if r.in_order else "NOT in order"
        print(
            f"{label:20}: all Ready after {r.seconds:6.2f} s ({r.seconds / n * 1000:5.0f} ms per pod); "
            f"controller-manager CPU {r.cpu:5.2f} s = {r.cpu / n * 1000:5.1f} ms per pod; {order}"
        )
    print(f"ordering costs {ordered.seconds - parallel.seconds:.2f} s over Parallel")
    print(
        f"OrderedReady per pod (medians): predecessor Ready -> created {ordered.react * 1000:.0f} ms "
        f"(the controller), created -> Ready {ordered.startup * 1000:.0f} ms (scheduler and node)"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Parse ``argv`` (none: the defaults, so ``benchmarks/workloads.py`` can call ``main()``)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", type=int, default=100)
    parser.add_argument("--fake-nodes", type=int, default=10)
    parser.add_argument("--store", default="memory://")
    asyncio.run(run(parser.parse_args(list(argv or []))))


if __name__ == "__main__":
    main(sys.argv[1:])

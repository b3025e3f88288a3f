"""A DaemonSet rolled out over simulated nodes, then updated to a new image.

    python benchmarks/daemonset_rollout.py [--fake-nodes 500] [--max-unavailable 10%] [--no-update]

Runs ``minikube-py up --nodes 0 --fake-nodes N --controllers=*,-daemonset-controller`` (the
apiserver, the other controllers, the scheduler and the simulated nodes' agent in one process)
and the DaemonSet controller alone in a second process (``minikube-py controller-manager
--controllers daemonset-controller --leader-elect=false``), so its CPU time is its own: read
from ``/proc/<pid>/stat`` (user + system) around each phase, less what the idle process burns
in a window as long (informer resyncs, lease-free idling). Figures:

1. **baseline**: N pods, each pinned by ``matchFields metadata.name`` as a DaemonSet's are,
   created by the client directly (100 in flight): seconds until all are Ready (what the
   apiserver, scheduler and nodes cost without the controller);
2. **rollout**: a DaemonSet created: seconds until ``status.numberReady`` is N (what
   ``kubectl rollout status`` waits for); the controller's CPU seconds, per pod;
3. **update** (unless ``--no-update``): the image changed with ``maxUnavailable``
   ``--max-unavailable``: seconds until every pod is updated and available.

Goal (issue 16): the rollout over 500 nodes in <= 10 s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchutil import cpu_seconds, is_node_ready, is_pod_ready

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import DAEMONSETS, NAMESPACES, NODES, PODS, SERVICEACCOUNTS
from minikube_py.network import DEFAULT_CLUSTER_CIDR
from minikube_py.testing.cluster import Cluster, free_port, start, start_up
from minikube_py.testing.slots import NODES_PER_SLOT

NAMESPACE = "default"
BASELINE_NAMESPACE = "baseline"
GOAL_SECONDS = 10.0
LABELS = {"app": "bench-ds"}
IMAGE = "registry.k8s.io/pause:3.10"


def pod_spec(image: str = IMAGE) -> dict[str, Any]:
    container = {"name": "c", "image": image, "resources": {"requests": {"cpu": "1m"}}}
    return {"containers": [container], "automountServiceAccountToken": False}


def daemon_set(max_unavailable: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "bench"},
        "spec": {
            "selector": {"matchLabels": LABELS},
            "template": {"metadata": {"labels": LABELS}, "spec": pod_spec()},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": max_unavailable}},
        },
    }


def pinned_pod(name: str, node: str) -> dict[str, Any]:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {**pod_spec(), "affinity": affinity},
    }


async def until(check: Callable[[], Any], timeout: float, what: str) -> float:
    """Poll the async ``check`` every 0.1 s; the time it first held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await check():
            return time.monotonic()
        await asyncio.sleep(0.1)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


async def ready_nodes(client: RESTClient) -> list[str]:
    nodes = (await client.resource(NODES).list())["items"]
    return [n["metadata"]["name"] for n in nodes if is_node_ready(n)]


async def baseline(client: RESTClient, nodes: list[str]) -> None:
    """The pods a DaemonSet would make, created by the client: the control plane's own cost."""
    with contextlib.suppress(Exception):
        await client.resource(NAMESPACES).create({"metadata": {"name": BASELINE_NAMESPACE}})
    accounts = client.resource(SERVICEACCOUNTS, BASELINE_NAMESPACE)

    async def has_account() -> bool:
        return bool((await accounts.list())["items"])

    await until(has_account, 60, "the baseline namespace's default service account")
    pods = client.resource(PODS, BASELINE_NAMESPACE)
    gate = asyncio.Semaphore(100)

    async def create(i: int, node: str) -> None:
        async with gate:
            await pods.create(pinned_pod(f"pinned-{i}", node))

    async def all_ready() -> bool:
        items = (await pods.list())["items"]
        return sum(is_pod_ready(p) for p in items) >= len(nodes)

    start_at = time.monotonic()
    await asyncio.gather(*(create(i, n) for i, n in enumerate(nodes)))
    done = await until(all_ready, 300, "the baseline pods")
    print(f"baseline: {len(nodes)} pinned pods created by the client, all Ready in {done - start_at:.1f} s")
    await client.resource(NAMESPACES).delete(BASELINE_NAMESPACE)

    async def gone() -> bool:
        names = [n["metadata"]["name"] for n in (await client.resource(NAMESPACES).list())["items"]]
        return BASELINE_NAMESPACE not in names

    await until(gone, 300, "the baseline namespace to be deleted")  # no load left behind


async def daemon_status(client: RESTClient) -> dict[str, Any]:
    ds = await client.resource(DAEMONSETS, NAMESPACE).get("bench")
    status: dict[str, Any] = ds.get("status") or {}
    status["generation"] = ds["metadata"].get("generation")
    return status


async def settled_cpu_rate(pid: int, window: float = 2.0, quiet: float = 0.05) -> float:
    """The process's CPU seconds per second once it has started (a window below ``quiet``, or
    the last of 15)."""
    rate = 0.0
    for _ in range(15):
        began, cpu = time.monotonic(), cpu_seconds(pid)
        await asyncio.sleep(window)
        rate = (cpu_seconds(pid) - cpu) / (time.monotonic() - began)
        if rate < quiet:
            break
    return rate


async def rollout(
    client: RESTClient, manager_pid: int, nodes: int, max_unavailable: str, update: bool
) -> None:
    idle_rate = await settled_cpu_rate(manager_pid)
    handle = client.resource(DAEMONSETS, NAMESPACE)

    async def rolled_out() -> bool:
        s = await daemon_status(client)
        return bool(s.get("observedGeneration") == s["generation"] and s.get("numberReady", 0) >= nodes)

    cpu0, start_at = cpu_seconds(manager_pid), time.monotonic()
    await handle.create(daemon_set(max_unavailable))
    done = await until(rolled_out, 300, "the DaemonSet rollout")
    cpu = cpu_seconds(manager_pid) - cpu0 - idle_rate * (done - start_at)
    seconds = done - start_at
    verdict = "met" if seconds <= GOAL_SECONDS else "missed"
    print(
        f"rollout: {nodes} nodes, numberReady {nodes} after {seconds:.1f} s "
        f"(goal <= {GOAL_SECONDS:.0f} s: {verdict})"
    )
    print(
        f"  daemonset controller CPU: {cpu:.2f} s, {cpu / nodes * 1000:.1f} ms per pod "
        f"(idle {idle_rate:.3f} s/s subtracted)"
    )
    if not update:
        return

    async def updated() -> bool:
        s = await daemon_status(client)
        return bool(
            s.get("observedGeneration") == s["generation"]
            and s.get("updatedNumberScheduled", 0) >= nodes
            and s.get("numberAvailable", 0) >= nodes
        )

    cpu0, start_at = cpu_seconds(manager_pid), time.monotonic()
    image = {
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9"}]}}}
    }
    await handle.patch("bench", image)
    done = await until(updated, 600, "the image update")
    cpu = cpu_seconds(manager_pid) - cpu0 - idle_rate * (done - start_at)
    print(
        f"update: new image on {nodes} nodes (maxUnavailable {max_unavailable}) in {done - start_at:.1f} s; "
        f"controller CPU {cpu:.2f} s, {cpu / nodes * 1000:.1f} ms per pod replaced"
    )


def start_daemonset_manager(cluster: Cluster, logs: Path) -> Cluster:
    args = [
        "--kubeconfig", str(cluster.data_dir / "controller-manager.kubeconfig"), "--secure-port", "0",
        "--controllers", "daemonset-controller", "--leader-elect=false",
    ]  # fmt: skip
    return start("controller-manager", *args, logs=logs, data_dir=cluster.data_dir, port=0)


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        flags = [
            "--nodes",
            "0",
            "--fake-nodes",
            str(args.fake_nodes),
            "--controllers=*,-daemonset-controller",
        ]
        if args.fake_nodes > NODES_PER_SLOT:  # more nodes than a network slot has ranges for
            flags += ["--cluster-cidr", DEFAULT_CLUSTER_CIDR]
        cluster = start_up(Path(tmp), free_port(), store=args.store, flags=flags)
        manager: Cluster | None = None
        try:
            cluster.wait_ready()
            client = RESTClient(dataclasses.replace(load_kubeconfig(cluster.kubeconfig), qps=0.0))
            await until(lambda: _enough(client, args.fake_nodes), 300, f"{args.fake_nodes} Ready nodes")
            nodes = await ready_nodes(client)
            if not args.no_baseline:
                await baseline(client, nodes)
            manager = start_daemonset_manager(cluster, Path(tmp) / "dsc")
            await rollout(client, manager.process.pid, len(nodes), args.max_unavailable, not args.no_update)
            await client.close()
        finally:
            for running in (manager, cluster):
                if running is not None:
                    with contextlib.suppress(Exception):
                        running.stop()


async def _enough(client: RESTClient, count: int) -> bool:
    return len(await ready_nodes(client)) >= count


def main(argv: list[str] | None = None) -> None:
    """Parses ``argv`` (default: the command line); ``main([])`` runs the defaults from another
    benchmark (``benchmarks/workloads.py``) whatever its own command line says."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fake-nodes", type=int, default=500)
    parser.add_argument("--max-unavailable", default="10%")
    parser.add_argument("--no-update", action="store_true")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--store", default="memory://")
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main()

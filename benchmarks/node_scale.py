"""Node heartbeats at scale: many simulated nodes renewing their Leases against one apiserver.

    python benchmarks/node_scale.py --nodes 5000 [--seconds 30] [--store URL]

Runs ``minikube-py up --nodes 0`` and, in this process, one ``NodeHeartbeats`` loop (the one
the node agents use) serving ``--nodes`` simulated nodes: each registers, then renews its Lease
in ``kube-node-lease`` every 10 s and checks its status every 10 s (5,000 nodes: 500 renewals
per second). Once registration has settled (all registered, then 20 s) it measures for
``--seconds``: renewals per second, the latency of each renewal (p50, p99, max; a renewal
is a GET-less update of the Lease, or a get and an update after a conflict) and the CPU of
the apiserver process and of this one.

Baseline, measured in the same run: the same loop with 100 nodes (10 renewals per second).
Goal (issue 7): 5,000 nodes with p99 <= 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scheduler_throughput import cpu_seconds
from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.gctuning import tune_gc
from minikube_py.metrics import Registry
from minikube_py.testing.cluster import free_port, start_up
from nodeagent.node.heartbeats import LEASE, REGISTER, NodeHeartbeats
from nodeagent.node.nodeinfo import fake_node_config


@dataclasses.dataclass
class Figures:
    nodes: int
    renewals_per_second: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    apiserver_cpu: float  # share of one core
    agent_cpu: float  # this process (the heartbeat loop and its client), share of one core


async def measure(kubeconfig: Path, pid: int, nodes: int, seconds: float, prefix: str) -> Figures:
    client = RESTClient(dataclasses.replace(load_kubeconfig(kubeconfig), qps=0.0))
    latencies: list[float] = []
    window: list[float] = [float("inf"), float("inf")]  # measuring from, until

    registered: set[int] = set()

    def observe(kind: str, started: float, took: float) -> None:
        if kind == REGISTER:
            registered.add(len(registered))
        if kind == LEASE and window[0] <= started < window[1]:
            latencies.append(took)

    heartbeats = NodeHeartbeats(registry=Registry(), observe=observe, max_in_flight=256)
    for i in range(nodes):
        heartbeats.add(client, fake_node_config(f"{prefix}-{i}", port=10250, runtime_version="fake://0.1.0"))
    loop = asyncio.ensure_future(heartbeats.run())
    try:
        while len(registered) < nodes:  # every node registered...
            await asyncio.sleep(0.5)
        await asyncio.sleep(20)  # ...and the catch-up after registering settled into 10 s periods
        window[0] = time.monotonic()
        cpu_before, own_before = cpu_seconds(pid), time.process_time()
        await asyncio.sleep(seconds)
        window[1] = time.monotonic()
        cpu = (cpu_seconds(pid) - cpu_before) / seconds
        own = (time.process_time() - own_before) / seconds
    finally:
        loop.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loop
        await client.close()
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("nan")
    return Figures(
        nodes,
        len(ordered) / seconds,
        statistics.median(ordered) * 1000 if ordered else float("nan"),
        p99 * 1000,
        (ordered[-1] if ordered else float("nan")) * 1000,
        cpu,
        own,
    )


def report(figures: Figures, label: str) -> None:
    print(
        f"{label:9} {figures.nodes:6d} nodes: {figures.renewals_per_second:6.0f} renewals/s, "
        f"p50 {figures.p50_ms:6.1f} ms, p99 {figures.p99_ms:6.1f} ms, max {figures.max_ms:7.1f} ms, "
        f"CPU: apiserver {figures.apiserver_cpu * 100:3.0f} %, "
        f"heartbeat loop {figures.agent_cpu * 100:3.0f} %"
    )


async def run(args: argparse.Namespace) -> None:
    tune_gc()  # as the agent processes (up, node-agent) run
    with contextlib.ExitStack() as stack:
        import tempfile

        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        cluster = start_up(tmp, free_port(), store=args.store, flags=["--nodes", "0", "--controllers="])
        stack.callback(cluster.stop)
        cluster.wait_ready()
        baseline = await measure(cluster.kubeconfig, cluster.process.pid, 100, min(args.seconds, 10), "base")
        report(baseline, "baseline")
        figures = await measure(cluster.kubeconfig, cluster.process.pid, args.nodes, args.seconds, "node")
        report(figures, "measured")
        print(f"p99 vs baseline: {figures.p99_ms / baseline.p99_ms:.1f}x; goal p99 <= 20 ms at 5,000 nodes")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--store", default="memory://")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

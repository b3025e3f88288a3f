"""How fast the controllers turn a Deployment into pods, and take them away again.

    python benchmarks/controllers.py [--replicas 1000] [--baseline-replicas 200] [--store URL]

Runs ``minikube-py up`` (all controllers, their own identities over HTTPS, every security
gate on) and, as the admin over the minikube_py client, creates a Deployment of
``--replicas``, then measures:

* scale up: seconds from the create until every pod exists (counted on a watch);
* scale down: seconds from ``replicas: 0`` until no pod remains.

Goal: <= 2 s each way for 1,000 pods. The pods name a scheduler nobody runs (unless
``--scheduler-name default-scheduler``): with no nodes, up's scheduler would otherwise
reject each pod, writing its PodScheduled condition, on the same CPU.

The baseline is the same cluster with the controller-manager's clients throttled as
upstream's kube-controller-manager is by default (``--kube-api-qps 20 --kube-api-burst 30``,
~49 s for 1,000 pods), measured in the same run on ``--baseline-replicas`` pods; ratios
compare pods/s.
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
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import DEPLOYMENTS, PODS, SERVICEACCOUNTS
from minikube_py.testing.cluster import free_port

GOAL_SECONDS = 2.0
UPSTREAM_THROTTLE = ("--kube-api-qps", "20", "--kube-api-burst", "30")
LABELS = {"app": "bench"}


UNSERVED_SCHEDULER = "benchmark-unscheduled"


def deployment(replicas: int, scheduler_name: str = UNSERVED_SCHEDULER) -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "bench"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": LABELS},
            "template": {
                "metadata": {"labels": LABELS},
                "spec": {
                    "schedulerName": scheduler_name,
                    "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}],
                },
            },
        },
    }


@contextlib.asynccontextmanager
async def cluster(store: str, extra: Sequence[str]) -> AsyncIterator[RESTClient]:
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
            "--nodes",
            "0",
        ]
        command += ["--no-kubeconfig-merge", "--store", store.replace("DIR", tmp), *extra]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert process.stdout is not None
            process.stdout.readline()  # "export KUBECONFIG=..." once the apiserver listens
            config = load_kubeconfig(Path(tmp) / "admin.kubeconfig")
            client = RESTClient(dataclasses.replace(config, qps=0.0))
            await wait_for_controllers(client)
            yield client
            await client.close()
        finally:
            process.terminate()
            process.wait(timeout=10)


async def wait_for_controllers(client: RESTClient) -> None:
    """The default service account appears once the controllers run."""
    accounts = client.resource(SERVICEACCOUNTS, "default")
    for _ in range(200):
        with contextlib.suppress(Exception):
            await accounts.get("default")
            return
        await asyncio.sleep(0.05)
    raise SystemExit("the controllers did not start")


async def count_pods_until(client: RESTClient, target: int, rv: str) -> float:
    """Seconds until the number of pods (from a watch after ``rv``) reaches ``target``."""
    pods = client.resource(PODS, "default")
    listed = await pods.list(resource_version=rv) if rv else await pods.list()
    names = {p["metadata"]["name"] for p in listed["items"]}
    start = time.monotonic()
    if len(names) == target:
        return 0.0
    async for event in pods.watch(
        resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=120
    ):
        if event.type == "ADDED":
            names.add(event.object["metadata"]["name"])
        elif event.type == "DELETED":
            names.discard(event.object["metadata"]["name"])
        if len(names) == target:
            return time.monotonic() - start
    raise SystemExit(f"gave up with {len(names)} pods, wanted {target}")


async def measure(client: RESTClient, replicas: int, scheduler_name: str) -> tuple[float, float]:
    deployments = client.resource(DEPLOYMENTS, "default")
    pods = client.resource(PODS, "default")
    before = (await pods.list())["metadata"]["resourceVersion"]
    start = time.monotonic()
    await deployments.create(deployment(replicas, scheduler_name))
    await count_pods_until(client, replicas, before)
    up = time.monotonic() - start
    before = (await pods.list())["metadata"]["resourceVersion"]
    start = time.monotonic()
    await deployments.patch("bench", {"spec": {"replicas": 0}})
    await count_pods_until(client, 0, before)
    down = time.monotonic() - start
    return up, down


async def run(args: argparse.Namespace) -> None:
    async with cluster(args.store, ()) as client:
        up, down = await measure(client, args.replicas, args.scheduler_name)
    async with cluster(args.store, UPSTREAM_THROTTLE) as client:
        base_up, base_down = await measure(client, args.baseline_replicas, args.scheduler_name)
    n, b = args.replicas, args.baseline_replicas
    print(f"store {args.store}; pods for scheduler {args.scheduler_name!r}")
    print(f"scale up   {n} pods: {up:6.2f} s  {n / up:7.0f} pods/s   (goal <= {GOAL_SECONDS} s)")
    print(f"scale down {n} pods: {down:6.2f} s  {n / down:7.0f} pods/s   (goal <= {GOAL_SECONDS} s)")
    print(
        f"baseline (qps 20, burst 30), {b} pods: up {base_up:.2f} s ({b / base_up:.0f} pods/s), "
        f"down {base_down:.2f} s ({b / base_down:.0f} pods/s)"
    )
    print(
        f"ratio to the throttled baseline (pods/s): up {(n / up) / (b / base_up):.1f}x, "
        f"down {(n / down) / (b / base_down):.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", type=int, default=1000)
    parser.add_argument("--baseline-replicas", type=int, default=200)
    parser.add_argument("--store", default="sqlite:///DIR/store.db", help="DIR is the data dir")
    parser.add_argument(
        "--scheduler-name",
        default=UNSERVED_SCHEDULER,
        help="the pods' schedulerName: by default one nobody serves, so the controllers are measured "
        "alone; 'default-scheduler' adds up's scheduler rejecting each pod (there are no nodes)",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

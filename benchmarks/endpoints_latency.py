"""Time from a pod becoming Ready to its address in the Service's EndpointSlice.

    python benchmarks/endpoints_latency.py [--fake-nodes 10] [--pods 100] [--rounds 1]

Runs ``minikube-py up --nodes 0 --fake-nodes N``, creates a Service and a Deployment behind
it with no replicas, then scales it to ``--pods``. Two watches run from the start: pods (the
moment each is first seen Ready) and the Service's EndpointSlices (the moment its address is
first seen there with ``ready: true``); both are stamped on arrival at this client, so the
difference is what the EndpointSlice controller adds (its informers, its sync, its write,
the slice's watch event). Prints p50, p99 and max per round (scaling from zero each round).
Goal (issue 15): p99 <= 100 ms with 100 pods scaling.

``ReadyToSlice`` and ``ready_to_slice_latencies`` are importable (``benchmarks/services.py``
reuses them against its own cluster).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import DEPLOYMENTS, ENDPOINTSLICES, NODES, PODS, SERVICES
from minikube_py.testing.cluster import free_port, start_up

NAMESPACE = "default"
APP = "bench-endpoints"


def service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]},
    }


def deployment(name: str, replicas: int) -> dict[str, Any]:
    container = {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "10m"}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


class ReadyToSlice:
    """Arrival times: each pod (by uid) first seen Ready, and first seen ready in a slice of
    ``service``. ``latencies()`` pairs them (seconds)."""

    def __init__(self, client: RESTClient, namespace: str, service: str) -> None:
        self.client, self.namespace, self.service = client, namespace, service
        self.pod_ready: dict[str, float] = {}
        self.in_slice: dict[str, float] = {}

    async def watch_pods(self, resource_version: str) -> None:
        pods = self.client.resource(PODS, self.namespace)
        async for event in pods.watch(resource_version=resource_version, timeout_seconds=600):
            if event.type != "DELETED" and _ready(event.object):
                self.pod_ready.setdefault(event.object["metadata"]["uid"], time.monotonic())

    async def watch_slices(self, resource_version: str) -> None:
        slices = self.client.resource(ENDPOINTSLICES, self.namespace)
        selector = f"kubernetes.io/service-name={self.service}"
        async for event in slices.watch(
            resource_version=resource_version, label_selector=selector, timeout_seconds=600
        ):
            now = time.monotonic()
            for endpoint in event.object.get("endpoints") or []:
                uid = (endpoint.get("targetRef") or {}).get("uid")
                if uid and (endpoint.get("conditions") or {}).get("ready"):
                    self.in_slice.setdefault(uid, now)

    def latencies(self) -> list[float]:
        return [self.in_slice[uid] - at for uid, at in self.pod_ready.items() if uid in self.in_slice]


async def ready_to_slice_latencies(
    client: RESTClient, namespace: str, name: str, replicas: int
) -> list[float]:
    """Scale Deployment ``name`` (behind Service ``name``) from 0 to ``replicas`` and return
    each pod's Ready -> in-slice latency (seconds); the Deployment is scaled back to 0."""
    deployments = client.resource(DEPLOYMENTS, namespace)
    pods_rv = (await client.resource(PODS, namespace).list(limit=1))["metadata"]["resourceVersion"]
    slices_rv = (await client.resource(ENDPOINTSLICES, namespace).list(limit=1))["metadata"][
        "resourceVersion"
    ]
    tracker = ReadyToSlice(client, namespace, name)
    watches = [
        asyncio.ensure_future(tracker.watch_pods(pods_rv)),
        asyncio.ensure_future(tracker.watch_slices(slices_rv)),
    ]
    try:
        await deployments.patch(name, {"spec": {"replicas": replicas}})
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if len(tracker.pod_ready) >= replicas and len(tracker.latencies()) >= replicas:
                break
            await asyncio.sleep(0.05)
    finally:
        for watch in watches:
            watch.cancel()
    await deployments.patch(name, {"spec": {"replicas": 0}})
    await wait_for_no_pods(client, namespace, name)
    return tracker.latencies()


async def wait_for_no_pods(client: RESTClient, namespace: str, name: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if not (await client.resource(PODS, namespace).list(label_selector=f"app={name}"))["items"]:
            return
        await asyncio.sleep(0.2)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


async def wait_for_nodes(client: RESTClient, count: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        nodes = (await client.resource(NODES).list())["items"]
        if sum(1 for n in nodes if _ready(n)) >= count:
            return
        await asyncio.sleep(0.5)
    raise SystemExit(f"fewer than {count} nodes Ready after 120 s")


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        flags = ["--nodes", "0", "--fake-nodes", str(args.fake_nodes)]
        cluster = start_up(Path(tmp), free_port(), store=args.store, flags=flags)
        try:
            cluster.wait_ready()
            client = RESTClient(dataclasses.replace(load_kubeconfig(cluster.kubeconfig), qps=0.0))
            await wait_for_nodes(client, args.fake_nodes)
            await client.resource(SERVICES, NAMESPACE).create(service(APP))
            await client.resource(DEPLOYMENTS, NAMESPACE).create(deployment(APP, 0))
            for round_ in range(1, args.rounds + 1):
                values = await ready_to_slice_latencies(client, NAMESPACE, APP, args.pods)
                print(
                    f"round {round_}: {len(values)}/{args.pods} pods, Ready -> in EndpointSlice: "
                    f"p50 {percentile(values, 0.5):.0f} ms, p99 {percentile(values, 0.99):.0f} ms, "
                    f"max {max(values) * 1000:.0f} ms"
                )
            await client.close()
        finally:
            with contextlib.suppress(Exception):
                cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fake-nodes", type=int, default=10)
    parser.add_argument("--pods", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--store", default="memory://")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

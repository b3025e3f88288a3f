"""Services on loopback: what the service proxy costs.

    python benchmarks/services.py [--sections throughput] [--connections 16] [--seconds 5] [--rounds 3]

Runs ``minikube-py up --nodes 1`` (the service proxy runs inside it, as ``up``'s) and a
backend HTTP server in its own process, then measures each section; every section prints
its figures and ratio. Sections (``SECTIONS``; more are added as functions of the same shape):

- **throughput**: HTTP/1.1 keep-alive requests per second over ``--connections``
  connections, straight to the backend and through a ClusterIP (a selector-less Service with
  an EndpointSlice naming the backend). Goal (issue 15): through/direct >= 0.5 with 16
  connections.
- **endpoints**: a Deployment behind a Service scaled from 0 to ``--pods`` pods on the
  cluster's simulated nodes: for each pod, the time from Ready (seen on a watch) to its address
  in the EndpointSlice (seen on a watch), and then from the slice's change to the end of the
  proxy sync that applied it (the proxy's
  ``minikube_py_proxy_endpoint_change_to_programmed_seconds``, read from its ``/metrics``).
  Goal (issue 15): p99 <= 100 ms with 100 pods scaling.
- **dns**: queries per second of the cluster DNS server's handler over real UDP, answers
  cached and not, against an asyncio UDP server answering one fixed packet measured in the same
  run (``cluster_dns.py``). Goal: >= 5,000 queries/s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import uvloop
from cluster_dns import dns_queries_per_second
from endpoints_latency import deployment as latency_deployment
from endpoints_latency import percentile, ready_to_slice_latencies
from endpoints_latency import service as latency_service

from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import DEPLOYMENTS, SERVICES, resource_type
from minikube_py.testing.cluster import Cluster, free_port, start_up

NAMESPACE = "default"
ENDPOINT_SLICES = resource_type("discovery.k8s.io/v1", "endpointslices")
REQUEST = b"GET / HTTP/1.1\r\nHost: web\r\n\r\n"
BODY = b"ok\n"
RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n%s" % (len(BODY), BODY)


@dataclass
class Context:
    """What every section gets: the cluster, an API client, the backend's address."""

    cluster: Cluster
    client: RESTClient
    backend: tuple[str, int]
    args: argparse.Namespace


# -- the backend (its own process) --------------------------------------------------------


class _Backend(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        count = self.buffer.count(b"\r\n\r\n")
        if count:
            self.buffer = self.buffer[self.buffer.rfind(b"\r\n\r\n") + 4 :]
            self.transport.write(RESPONSE * count)  # type: ignore[attr-defined]


async def serve_backend(address: str) -> None:
    host, _, port = address.rpartition(":")
    server = await asyncio.get_running_loop().create_server(_Backend, host, int(port), backlog=1024)
    await server.serve_forever()


# -- the load ---------------------------------------------------------------------------


class _Client(asyncio.Protocol):
    """One keep-alive connection sending a request whenever the last answer is complete."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.done = 0
        self.pending = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        transport.write(REQUEST)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self.pending += len(data)
        while self.pending >= len(RESPONSE):
            self.pending -= len(RESPONSE)
            self.done += 1
            if not self.stop.is_set():
                self.transport.write(REQUEST)  # type: ignore[attr-defined]


async def requests_per_second(host: str, port: int, connections: int, seconds: float) -> float:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    clients = [
        (await loop.create_connection(lambda: _Client(stop), host, port))[1] for _ in range(connections)
    ]
    base = sum(c.done for c in clients)
    start = time.perf_counter()
    await asyncio.sleep(seconds)
    done = sum(c.done for c in clients) - base
    elapsed = time.perf_counter() - start
    stop.set()
    for c in clients:
        c.transport.close()
    return done / elapsed


# -- sections -------------------------------------------------------------------------------


async def throughput(ctx: Context) -> None:
    """Requests/s straight to the backend and through its ClusterIP."""
    host, port = ctx.backend
    service = await ctx.client.resource(SERVICES, NAMESPACE).create(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "bench"},
            "spec": {"ports": [{"name": "http", "port": 80, "targetPort": port}]},
        }
    )
    await ctx.client.resource(ENDPOINT_SLICES, NAMESPACE).create(
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {"name": "bench-1", "labels": {"kubernetes.io/service-name": "bench"}},
            "addressType": "IPv4",
            "ports": [{"name": "http", "port": port, "protocol": "TCP"}],
            "endpoints": [{"addresses": [host], "conditions": {"ready": True}}],
        }
    )
    cluster_ip = service["spec"]["clusterIP"]
    await wait_connectable(cluster_ip, 80)
    n, seconds, rounds = ctx.args.connections, ctx.args.seconds, ctx.args.rounds
    await requests_per_second(host, port, n, 0.5)  # warm up both paths
    await requests_per_second(cluster_ip, 80, n, 0.5)
    direct, proxied, ratios, cpu = [], [], [], []
    for _ in range(rounds):  # interleaved, so that the machine's other load hits both alike
        direct.append(await requests_per_second(host, port, n, seconds))
        before = process_cpu(ctx.cluster.process.pid)
        rate = await requests_per_second(cluster_ip, 80, n, seconds)
        cpu.append((process_cpu(ctx.cluster.process.pid) - before) / (rate * seconds))
        proxied.append(rate)
        ratios.append(proxied[-1] / direct[-1])
    print(
        f"throughput, {n} keep-alive connections, {rounds} x {seconds:g}s (medians): "
        f"direct {statistics.median(direct):,.0f} req/s, through ClusterIP {cluster_ip}:80 "
        f"{statistics.median(proxied):,.0f} req/s, ratio {statistics.median(ratios):.2f} "
        f"(best {max(ratios):.2f}; goal >= 0.5); the proxy's CPU per request "
        f"{statistics.median(cpu) * 1e6:.0f} us "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    )


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` used so far (``up``: the proxy's process)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def endpoints(ctx: Context) -> None:
    """Pod Ready -> in the EndpointSlice, and -> programmed in the proxy."""
    fake = [f"fake-{i}" for i in range(1, FAKE_NODES + 1)]
    await ctx.client.resource(SERVICES, NAMESPACE).create(latency_service(LATENCY_APP))
    spec = latency_deployment(LATENCY_APP, 0)
    term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": fake}]}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    spec["spec"]["template"]["spec"]["affinity"] = affinity  # simulated pods: no processes
    await ctx.client.resource(DEPLOYMENTS, NAMESPACE).create(spec)
    for round_ in range(1, ctx.args.rounds + 1):
        before = proxy_histogram(ctx.cluster)
        values = await ready_to_slice_latencies(ctx.client, NAMESPACE, LATENCY_APP, ctx.args.pods)
        programmed = histogram_p99(before, proxy_histogram(ctx.cluster))
        print(
            f"endpoints, round {round_}: {len(values)}/{ctx.args.pods} pods, Ready -> in EndpointSlice "
            f"p50 {percentile(values, 0.5):.0f} ms, p99 {percentile(values, 0.99):.0f} ms, "
            f"max {max(values) * 1000:.0f} ms (goal p99 <= 100 ms); then EndpointSlice change -> "
            f"programmed in the proxy p99 <= {programmed * 1000:.0f} ms (its histogram's bucket) "
            f"(load average {os.getloadavg()[0]:.1f})"
        )


PROGRAMMED_BUCKET = r'minikube_py_proxy_endpoint_change_to_programmed_seconds_bucket\{le="([^"]+)"\} (\d+)'


def proxy_histogram(cluster: Cluster) -> list[tuple[float, int]]:
    """The proxy's ``minikube_py_proxy_endpoint_change_to_programmed_seconds`` buckets (le,
    count), from the ``/metrics`` port ``up`` logs. (Upstream's network programming histogram
    starts at the slice's trigger time, a pod condition's whole second: too coarse here.)"""
    deadline = time.monotonic() + 60
    while not (found := re.search(r"proxy: serving /metrics on (http://\S+)", cluster.stderr.read_text())):
        if time.monotonic() > deadline:  # the proxy starts with the nodes, after the apiserver
            raise SystemExit("the proxy's /metrics address is not in up's log after 60 s")
        time.sleep(0.1)
    text = httpx.get(found.group(1) + "/metrics", timeout=10).text
    buckets = []
    for line in text.splitlines():
        match = re.match(PROGRAMMED_BUCKET, line)
        if match:
            buckets.append((float(match.group(1)), int(match.group(2))))
    return buckets


def histogram_p99(before: list[tuple[float, int]], after: list[tuple[float, int]]) -> float:
    """The upper bound of the bucket holding the 99th percentile of what was observed between
    the two readings (cumulative buckets)."""
    counts = [(le, a - b) for (le, a), (_, b) in zip(after, before, strict=True)]
    total = counts[-1][1] if counts else 0
    for le, count in counts:
        if total and count >= 0.99 * total:
            return le
    return float("nan")


async def dns(ctx: Context) -> None:
    """The cluster DNS server's queries/s (its own processes: the cluster stays idle)."""
    figures = await asyncio.to_thread(dns_queries_per_second, ctx.args.seconds)
    print("dns: " + figures.report().replace("\n", "\n     "))


SECTIONS: dict[str, Callable[[Context], Awaitable[None]]] = {
    "throughput": throughput,
    "endpoints": endpoints,
    "dns": dns,
}
FAKE_NODES = 10
LATENCY_APP = "bench-endpoints"


async def wait_connectable(host: str, port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            _, writer = await asyncio.open_connection(host, port)
            writer.close()
            return
        await asyncio.sleep(0.05)
    raise SystemExit(f"{host}:{port} does not answer after {timeout}s")


async def run(args: argparse.Namespace) -> None:
    backend = ("127.0.0.1", free_port())
    server = subprocess.Popen([sys.executable, __file__, "--serve-backend", f"{backend[0]}:{backend[1]}"])
    with tempfile.TemporaryDirectory() as tmp:
        flags = ["--nodes", "1", "--fake-nodes", str(FAKE_NODES)]
        cluster = start_up(Path(tmp), free_port(), flags=flags)
        try:
            cluster.wait_ready()
            client = RESTClient(dataclasses.replace(load_kubeconfig(cluster.kubeconfig), qps=0.0))
            await wait_connectable(*backend)
            await wait_default_account(client)
            ctx = Context(cluster, client, backend, args)
            for name in args.sections:
                await SECTIONS[name](ctx)
            await client.close()
        finally:
            server.terminate()
            server.wait()
            with contextlib.suppress(Exception):
                cluster.stop()


async def wait_default_account(client: RESTClient) -> None:
    """Services are created in ``default``: until the namespace exists."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            await client.resource(resource_type("v1", "namespaces")).get(NAMESPACE)
            return
        await asyncio.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sections", nargs="+", choices=sorted(SECTIONS), default=list(SECTIONS))
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="direct/proxied pairs (default 3)")
    parser.add_argument("--pods", type=int, default=100, help="pods scaled in 'endpoints' (default 100)")
    parser.add_argument("--serve-backend", metavar="HOST:PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_backend:
        uvloop.run(serve_backend(args.serve_backend))
        return
    uvloop.run(run(args))


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    main()

"""Cluster DNS queries per second, against a trivial UDP server measured in the same run.

    python benchmarks/cluster_dns.py [--seconds 5] [--inflight 64] [--services 200]

Three servers, each in its own process on a uvloop event loop (as ``minikube-py dns`` runs),
each asked by the same load generator in another process (a raw UDP client over one socket,
``--inflight`` queries outstanding, pre-encoded A queries for ``svc-<i>.default.svc.
cluster.local`` over ``--services`` Services):

1. **baseline**: an asyncio UDP server answering every datagram with one fixed response (its
   ID patched): what the loop and the sockets cost, no DNS at all;
2. **cached**: the cluster DNS server (``nodeagent.dns``), records for ``--services`` Services,
   its answer cache on (the steady state: pods ask the same names again and again);
3. **uncached**: the same server with its cache off: every query parsed, looked up and encoded
   by dnspython.

Prints queries/s of each and their ratios to the baseline. Goal (issue 15): >= 5,000/s.
``dns_queries_per_second(...)`` is the function ``benchmarks/services.py`` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import socket
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GOAL = 5000.0


@dataclass(frozen=True)
class Figures:
    baseline: float
    cached: float
    uncached: float

    def report(self) -> str:
        return (
            f"baseline (fixed-answer UDP server): {self.baseline:,.0f} queries/s\n"
            f"cluster DNS, cached answers:        {self.cached:,.0f} queries/s "
            f"({self.cached / self.baseline:.2f}x baseline)\n"
            f"cluster DNS, no cache:              {self.uncached:,.0f} queries/s "
            f"({self.uncached / self.baseline:.2f}x baseline)\n"
            f"goal >= {GOAL:,.0f}/s (the cached steady state): {'met' if self.cached >= GOAL else 'NOT met'}"
        )


def queries(services: int) -> list[bytes]:
    import dns.message

    return [
        dns.message.make_query(f"svc-{i}.default.svc.cluster.local", "A").to_wire() for i in range(services)
    ]


def _serve(kind: str, services: int, ready: Connection) -> None:
    """A server process: ``echo`` (the baseline) or ``cached``/``uncached`` cluster DNS."""
    import uvloop

    uvloop.run(_serve_async(kind, services, ready))


async def _serve_async(kind: str, services: int, ready: Connection) -> None:
    if kind == "echo":
        port = await _echo_server()
    else:
        from nodeagent.dns.handler import QueryHandler
        from nodeagent.dns.records import ClusterRecords
        from nodeagent.dns.server import DNSServer

        records = ClusterRecords()
        for i in range(services):
            ip = f"127.96.{i // 250}.{i % 250 + 1}"
            meta = {"name": f"svc-{i}", "namespace": "default"}
            records.set_service({"metadata": meta, "spec": {"clusterIP": ip}})
        server = DNSServer(QueryHandler(records, cache_entries=10_000 if kind == "cached" else 0))
        await server.start()
        port = server.port
    ready.send(port)
    await asyncio.Event().wait()  # until the parent terminates the process


async def _echo_server() -> int:
    import dns.message

    query = dns.message.make_query("svc-0.default.svc.cluster.local", "A")
    answer = dns.message.make_response(query).to_wire()

    class Echo(asyncio.DatagramProtocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport: asyncio.DatagramTransport = transport  # type: ignore[assignment]

        def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
            self.transport.sendto(data[:2] + answer[2:], addr)

    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(Echo, local_addr=("127.0.0.1", 0))
    return int(transport.get_extra_info("sockname")[1])


def _load(port: int, packets: list[bytes], seconds: float, inflight: int, result: Connection) -> None:
    """The load generator process: ``inflight`` queries outstanding on one socket for ``seconds``."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect(("127.0.0.1", port))
    sock.settimeout(1.0)
    sent = answered = 0

    def send() -> None:
        nonlocal sent
        sock.send(packets[sent % len(packets)])
        sent += 1

    for _ in range(inflight):
        send()
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        try:
            sock.recv(4096)
        except TimeoutError:  # a datagram lost: top the window up again
            for _ in range(inflight - (sent - answered)):
                send()
            continue
        answered += 1
        send()
    result.send(answered / (time.perf_counter() - started))
    sock.close()


def measure(kind: str, services: int, seconds: float, inflight: int) -> float:
    context = multiprocessing.get_context("spawn")
    ready_r, ready_w = context.Pipe(duplex=False)
    server = context.Process(target=_serve, args=(kind, services, ready_w), daemon=True)
    server.start()
    try:
        if not ready_r.poll(30):
            raise RuntimeError(f"the {kind} server did not start")
        port = ready_r.recv()
        result_r, result_w = context.Pipe(duplex=False)
        load = context.Process(target=_load, args=(port, queries(services), seconds, inflight, result_w))
        load.start()
        load.join(seconds + 30)
        if not result_r.poll(1):
            raise RuntimeError(f"the load generator against {kind} gave no figure")
        return float(result_r.recv())
    finally:
        server.terminate()
        server.join(5)


def dns_queries_per_second(seconds: float = 5.0, inflight: int = 64, services: int = 200) -> Figures:
    """Measure the three servers one after the other (never two at once: two cores)."""
    return Figures(
        measure("echo", services, seconds, inflight),
        measure("cached", services, seconds, inflight),
        measure("uncached", services, seconds, inflight),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per server (default %(default)s)")
    parser.add_argument("--inflight", type=int, default=64, help="queries outstanding (default %(default)s)")
    parser.add_argument(
        "--services", type=int, default=200, help="Services in the records (default %(default)s)"
    )
    args = parser.parse_args()
    print(dns_queries_per_second(args.seconds, args.inflight, args.services).report())


if __name__ == "__main__":
    main()

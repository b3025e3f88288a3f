"""Client throughput: what one request costs the client process, per HTTP stack.

    python benchmarks/client.py [--gets 2000] [--creates 2000] [--concurrency 50] [--store URL]

Runs ``minikube-py up --controllers= --store memory://`` (the apiserver alone, over HTTPS, in
its own process) and, from this process as the admin, measures for each client stack:

* GET: ``--gets`` sequential GETs of one ConfigMap (one request in flight: latency-bound);
* POST: ``--creates`` ConfigMap creates, ``--concurrency`` in flight at a time.

The work is split into ``--rounds`` interleaved rounds, the stacks taking turns in a rotating
order, so none always meets a fuller store or a warmer server.

Stacks, all measured in the same run against the same server:

* ``RESTClient`` as shipped: ``AiohttpTransport`` (qps 0: no client-side limit);
* ``RESTClient`` over httpx's default httpcore transport (``HttpxTransport`` around
  ``httpx.AsyncHTTPTransport``, 100 connections): httpx, the stack aiohttp replaced;
* a bare ``aiohttp.ClientSession`` (the baseline: same TLS context, same JSON encode/decode
  of each body, no retry or error mapping).

Printed per stack and workload: requests/s, and the client's CPU milliseconds per request
(``time.process_time()`` deltas in this process; the server's CPU is not counted), with the
ratios to the bare aiohttp baseline (req/s: higher is better; CPU: lower is better). Each
stack sends untimed requests before each timed part (one per connection it will use), so
connection set-up (TLS handshakes) is not timed.
The server keeps every created ConfigMap (memory store); the numbers are from one run on
one machine, so compare rows with each other rather than across machines.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
import httpx

from minikube_py.client import RESTClient
from minikube_py.client.config import ClientConfig, load_kubeconfig
from minikube_py.client.resourcetypes import CONFIGMAPS
from minikube_py.client.transport import HttpxTransport
from minikube_py.jsonutil import dumps, loads
from minikube_py.testing.cluster import free_port

NAMESPACE = "default"
TARGET = "bench-target"
WARMUP = 20
CM_PATH = f"/api/v1/namespaces/{NAMESPACE}/configmaps"


@dataclasses.dataclass(frozen=True)
class Result:
    requests: int
    seconds: float
    cpu_seconds: float

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    @property
    def cpu_ms(self) -> float:
        return 1000.0 * self.cpu_seconds / self.requests


class Stack:
    """One HTTP client stack: ``get(name)`` and ``create(obj)`` return the decoded object."""

    name = ""

    async def get(self, name: str) -> dict[str, Any]:
        raise NotImplementedError

    async def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class RESTStack(Stack):
    def __init__(self, name: str, client: RESTClient) -> None:
        self.name = name
        self._client = client
        self._cms = client.resource(CONFIGMAPS, NAMESPACE)

    async def get(self, name: str) -> dict[str, Any]:
        return await self._cms.get(name)

    async def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        return await self._cms.create(obj)

    async def close(self) -> None:
        await self._client.close()


class AiohttpStack(Stack):
    name = "raw aiohttp.ClientSession"

    def __init__(self, config: ClientConfig) -> None:
        self._base = config.server
        self._ssl = config.ssl_context()
        self._headers = {"Accept": "application/json", "User-Agent": config.user_agent}
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:  # inside the running loop
            connector = aiohttp.TCPConnector(ssl=self._ssl, limit=100)
            self._session = aiohttp.ClientSession(self._base, connector=connector, headers=self._headers)
        return self._session

    async def get(self, name: str) -> dict[str, Any]:
        async with self._open().get(f"{CM_PATH}/{name}") as response:
            body = await response.read()
            response.raise_for_status()
        decoded: dict[str, Any] = loads(body)
        return decoded

    async def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        async with self._open().post(CM_PATH, data=dumps(obj), headers=headers) as response:
            body = await response.read()
            response.raise_for_status()
        decoded: dict[str, Any] = loads(body)
        return decoded

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def configmap(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"app": "bench"}},
        "data": {"key": "value" * 20},
    }


async def timed(requests: int, run: Callable[[], Awaitable[None]]) -> Result:
    cpu, start = time.process_time(), time.perf_counter()
    await run()
    return Result(requests, time.perf_counter() - start, time.process_time() - cpu)


async def sequential_gets(stack: Stack, count: int) -> Result:
    for _ in range(WARMUP):
        await stack.get(TARGET)

    async def run() -> None:
        for _ in range(count):
            got = await stack.get(TARGET)
            assert got["metadata"]["name"] == TARGET

    return await timed(count, run)


async def concurrent_creates(stack: Stack, prefix: str, count: int, concurrency: int) -> Result:
    warm = max(WARMUP, concurrency)  # one per connection the timed part will use
    await asyncio.gather(*(stack.create(configmap(f"{prefix}-warm-{n}")) for n in range(warm)))
    names = iter(range(count))

    async def worker() -> None:
        for n in names:
            created = await stack.create(configmap(f"{prefix}-{n}"))
            assert created["metadata"]["uid"]

    async def run() -> None:
        await asyncio.gather(*(worker() for _ in range(concurrency)))

    return await timed(count, run)


@contextlib.contextmanager
def apiserver(store: str) -> Iterator[ClientConfig]:
    """``minikube-py up`` with no controllers, in its own process; yields its ClientConfig."""
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
        command += ["--no-kubeconfig-merge", "--store", store.replace("DIR", tmp), "--controllers="]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert process.stdout is not None
            if not process.stdout.readline():  # "export KUBECONFIG=..." once the apiserver listens
                raise SystemExit("minikube-py up exited before listening")
            config = load_kubeconfig(Path(tmp) / "admin.kubeconfig")
            yield dataclasses.replace(config, qps=0.0)
        finally:
            process.terminate()
            process.wait(timeout=10)


async def wait_ready(config: ClientConfig) -> None:
    async with RESTClient(config) as client:
        cms = client.resource(CONFIGMAPS, NAMESPACE)
        for _ in range(200):
            with contextlib.suppress(Exception):
                await cms.create(configmap(TARGET))
                return
            await asyncio.sleep(0.05)
    raise SystemExit("the apiserver did not become ready")


def stacks(config: ClientConfig) -> list[Stack]:
    context: ssl.SSLContext = config.ssl_context()
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
    httpcore = httpx.AsyncHTTPTransport(verify=context, limits=limits)
    return [
        RESTStack("RESTClient (AiohttpTransport)", RESTClient(config)),
        RESTStack("RESTClient (httpx transport)", RESTClient(config, transport=HttpxTransport(httpcore))),
        AiohttpStack(config),
    ]


def add(a: Result | None, b: Result) -> Result:
    if a is None:
        return b
    return Result(a.requests + b.requests, a.seconds + b.seconds, a.cpu_seconds + b.cpu_seconds)


async def run(args: argparse.Namespace) -> None:
    with apiserver(args.store) as config:
        await wait_ready(config)
        clients = stacks(config)
        gets: list[Result | None] = [None] * len(clients)
        creates: list[Result | None] = [None] * len(clients)
        try:
            for round_ in range(args.rounds):
                # rotate the order so no stack always meets a fuller store or a warmer server
                for offset in range(len(clients)):
                    index = (round_ + offset) % len(clients)
                    stack = clients[index]
                    n_gets = share(args.gets, args.rounds, round_)
                    n_creates = share(args.creates, args.rounds, round_)
                    gets[index] = add(gets[index], await sequential_gets(stack, n_gets))
                    prefix = f"bench-{index}-{round_}"
                    result = await concurrent_creates(stack, prefix, n_creates, args.concurrency)
                    creates[index] = add(creates[index], result)
        finally:
            for stack in clients:
                await stack.close()
    base_get, base_create = gets[-1], creates[-1]
    assert base_get is not None and base_create is not None
    print(f"store {args.store}; client and apiserver in separate processes; {args.rounds} rounds")
    print(f"GET: {args.gets} sequential GETs of one ConfigMap")
    print(f"POST: {args.creates} ConfigMap creates, {args.concurrency} in flight")
    head = f"{'stack':<40} {'workload':<8} {'req/s':>7} {'CPU ms/req':>11}"
    print(f"{head} {'req/s ratio':>12} {'CPU ratio':>10}")
    for stack, get, create in zip(clients, gets, creates, strict=True):
        assert get is not None and create is not None
        for label, result, base in (("GET", get, base_get), ("POST", create, base_create)):
            print(
                f"{stack.name:<40} {label:<8} {result.per_second:7.0f} {result.cpu_ms:11.3f} "
                f"{result.per_second / base.per_second:11.2f}x {result.cpu_ms / base.cpu_ms:9.2f}x"
            )


def share(total: int, rounds: int, round_: int) -> int:
    """Round ``round_``'s part of ``total`` (the parts add up to ``total``)."""
    return total // rounds + (1 if round_ < total % rounds else 0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gets", type=int, default=2000)
    parser.add_argument("--creates", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--store", default="memory://", help="apiserver store URL (DIR: its data dir)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

"""Load clients for ``benchmarks/api.py``: wrk for GET/LIST, aiohttp worker processes for POST
and watch streams.

Worker functions (``post_pods``, ``watch_pods``) run in separate processes (one event loop each)
and start together at ``start_at`` (``time.monotonic()``: CLOCK_MONOTONIC is system-wide on
Linux, so times from different processes compare).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import ssl
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WRK_INSTALL = "install it with `apt-get install wrk` (Debian/Ubuntu) or `brew install wrk` (macOS)"
AIOHTTP_INSTALL = "aiohttp is a dependency: `.venv/bin/pip install -e .`"


# wrk


@dataclass(frozen=True)
class WrkResult:
    requests_per_s: float
    bytes_per_s: float
    requests: int
    errors: str  # "" when every response was 2xx/3xx and no socket error happened


_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}


def wrk_path() -> str | None:
    return shutil.which("wrk")


def run_wrk(
    url: str,
    *,
    threads: int,
    connections: int,
    seconds: int,
    script: Path | None = None,
    timeout_s: int = 30,
) -> WrkResult:
    """``wrk -tT -cC -dDs --timeout 30s [-s SCRIPT] URL`` (anonymous HTTPS: wrk cannot send
    client certificates; the apiserver lets anonymous requests through for now)."""
    wrk = wrk_path()
    if wrk is None:
        raise FileNotFoundError(f"wrk not found: {WRK_INSTALL}")
    command = [wrk, f"-t{threads}", f"-c{connections}", f"-d{seconds}s", f"--timeout={timeout_s}s"]
    command += ["-s", str(script), url] if script else [url]
    out = subprocess.run(command, capture_output=True, text=True, timeout=seconds + timeout_s + 10).stdout
    return parse_wrk(out)


def parse_wrk(out: str) -> WrkResult:
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    transfer = re.search(r"Transfer/sec:\s+([\d.]+)(\w+)", out)
    total = re.search(r"(\d+) requests in", out)
    if not (rps and transfer and total):
        raise RuntimeError(f"cannot read wrk output:\n{out}")
    errors = [m.group(0) for m in re.finditer(r"(Socket errors:.*|Non-2xx or 3xx responses: \d+)", out)]
    return WrkResult(
        float(rps.group(1)),
        float(transfer.group(1)) * _UNITS[transfer.group(2)],
        int(total.group(1)),
        "; ".join(errors),
    )


_POST_LUA = """
local made = 0
function setup(thread)
  made = made + 1
  thread:set("id", made)
end
counter = 0
template = [==[%s]==]
request = function()
  counter = counter + 1
  local body = template:gsub("@NAME@", "%s" .. id .. "-" .. counter)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"%s}, body)
end
"""


def write_post_script(path: Path, prefix: str, token: str = "") -> Path:
    """A wrk script POSTing ``pod_manifest`` with a fresh name each request (PREFIX<thread>-<n>),
    with ``Authorization: Bearer <token>`` when a token is given."""
    template = json.dumps(pod_manifest("@NAME@"), separators=(",", ":"))
    auth = f', ["Authorization"] = "Bearer {token}"' if token else ""
    path.write_text(_POST_LUA % (template, prefix, auth))
    return path


def write_auth_script(path: Path, token: str) -> Path:
    """A wrk script that only adds ``Authorization: Bearer <token>`` to every request."""
    path.write_text(f'wrk.headers["Authorization"] = "Bearer {token}"\n')
    return path


# aiohttp workers


@dataclass(frozen=True)
class TLS:
    ca: str
    cert: str
    key: str

    def context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.ca)
        context.load_cert_chain(self.cert, self.key)
        return context


def pod_manifest(name: str, node_name: str = "") -> dict[str, Any]:
    """A pod of ordinary size: labels, an annotation, one container with env, a port and
    resource requests (about 1 KiB once the apiserver has defaulted it)."""
    spec: dict[str, Any] = {
        "schedulerName": "benchmark-unscheduled",  # the scheduler in up leaves these pods alone
        "containers": [
            {
                "name": "app",
                "image": "registry.example/team/app:1.2.3",
                "env": [{"name": "MODE", "value": "bench"}, {"name": "REPLICA", "value": name}],
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            }
        ],
    }
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": {"app": "bench", "tier": "backend"},
            "annotations": {"bench.minikube-py/purpose": "api benchmark"},
        },
        "spec": spec,
    }


@dataclass(frozen=True)
class PostJob:
    url: str
    tls: TLS
    names: list[str]
    concurrency: int
    start_at: float
    node_a_every: int = 0  # every Nth pod (by index in names) gets spec.nodeName node-a; 0: none


@dataclass
class PostResult:
    started: float = 0.0
    finished: float = 0.0
    statuses: Counter[int] = field(default_factory=Counter)
    sent_at: dict[str, float] = field(default_factory=dict)


def post_pods(job: PostJob) -> PostResult:
    """Process entry: POST one pod per name, ``concurrency`` in flight, on kept-alive
    connections; the send time of each."""
    return asyncio.run(_post_pods(job))


async def _post_pods(job: PostJob) -> PostResult:
    import aiohttp

    bodies = [
        json.dumps(pod_manifest(name, _node(job, i)), separators=(",", ":")).encode()
        for i, name in enumerate(job.names)
    ]
    result = PostResult()
    headers = {"Content-Type": "application/json"}
    connector = aiohttp.TCPConnector(limit=job.concurrency, ssl=job.tls.context())
    async with aiohttp.ClientSession(connector=connector) as session:
        pending = iter(zip(job.names, bodies, strict=True))

        async def worker() -> None:
            for name, body in pending:
                result.sent_at[name] = time.monotonic()
                async with session.post(job.url, data=body, headers=headers) as response:
                    await response.read()
                    result.statuses[response.status] += 1

        await _sleep_until(job.start_at)
        result.started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(job.concurrency)))
        result.finished = time.monotonic()
    return result


def _node(job: PostJob, index: int) -> str:
    return "node-a" if job.node_a_every and index % job.node_a_every == 0 else ""


@dataclass(frozen=True)
class WatchJob:
    url: str
    tls: TLS
    watchers: int
    prefix: str  # count only pods whose name starts with this
    expected: int
    start_at: float
    timeout: float


@dataclass
class WatchResult:
    last_seen: dict[str, float] = field(default_factory=dict)  # name -> last watcher's receive time
    first_seen: float = 0.0
    events: int = 0
    complete_watchers: int = 0
    ended_early: int = 0  # streams the server closed before all events arrived


def watch_pods(job: WatchJob) -> WatchResult:
    """Process entry: ``watchers`` concurrent watch streams on ``url``; records when the last
    watcher received each pod, until every watcher saw ``expected`` pods or ``timeout``."""
    return asyncio.run(_watch_pods(job))


async def _watch_pods(job: WatchJob) -> WatchResult:
    import aiohttp

    result = WatchResult()
    prefix = f'"name":"{job.prefix}'.encode()
    connector = aiohttp.TCPConnector(limit=job.watchers, ssl=job.tls.context())
    async with aiohttp.ClientSession(connector=connector) as session:

        async def watcher() -> None:
            seen = 0
            async with session.get(job.url, timeout=aiohttp.ClientTimeout(total=None)) as response:
                response.raise_for_status()
                async for line in response.content:
                    if prefix not in line:
                        continue  # a bookmark or another pod
                    now = time.monotonic()
                    name = json.loads(line)["object"]["metadata"]["name"]
                    result.first_seen = result.first_seen or now
                    result.last_seen[name] = now
                    result.events += 1
                    seen += 1
                    if seen == job.expected:
                        result.complete_watchers += 1
                        return
            result.ended_early += 1

        await _sleep_until(job.start_at - 0.5)  # connect before the creates start
        tasks = [asyncio.create_task(watcher()) for _ in range(job.watchers)]
        done, pending = await asyncio.wait(tasks, timeout=job.timeout)
        for task in pending:
            task.cancel()
        for task in done:
            task.result()
    return result


async def _sleep_until(at: float) -> None:
    await asyncio.sleep(max(0.0, at - time.monotonic()))


def warm_up(_: int = 0) -> str:
    """Process entry: import what the workers need, so timing excludes it."""
    import aiohttp

    return aiohttp.__version__

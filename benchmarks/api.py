"""API benchmark: the apiserver against raw Starlette baselines, in one run.

    apt-get install wrk                      # GET, LIST and create load client
    .venv/bin/python benchmarks/api.py [--pods 10000] [--seconds 5] [--store memory://]

Starts ``minikube-py up`` on a free port, fills ``--pods`` pods through the API (aiohttp, two
processes; half the pods with ``spec.nodeName: node-a``), then starts the baseline app
(``benchmarks/api_baseline.py``: Starlette under uvicorn with the cluster's serving
certificate, so TLS costs the same) and measures each scenario against its baseline:

* GET one pod with the pods resident (wrk)          vs a route returning a fixed pod JSON
* create pod (wrk + a Lua script for fresh names)   vs a route parsing the body with pydantic
* LIST all pods, LIST by ``spec.nodeName`` (wrk)    vs joining cached pre-serialized pods
* watch fan-out: 10 streams (aiohttp), then creates: events/s delivered and the latency from
  sending a create to the last watcher receiving it (p50/p99)
                                                    vs a route broadcasting to queues

The load clients are not the bottleneck: wrk (C) drives 4-6k req/s against the baselines
where an httpx async client caps near 1.2k. Without wrk, GET and LIST are skipped and create
falls back to aiohttp (two processes, ``--creates`` pods; about 25% slower than wrk against
the baseline). Prints one table (figure, baseline, ratio, goal, met?) with the machine and the
versions. Figures, not assertions: nothing here fails on speed. ``--tcp-nodelay`` is an
experiment: it runs the apiserver with TCP_NODELAY on its listening socket
(``api_servers.NODELAY_LAUNCHER``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api_clients import (  # noqa: E402 - benchmarks/ is not a package
    AIOHTTP_INSTALL,
    TLS,
    WRK_INSTALL,
    PostJob,
    PostResult,
    WatchJob,
    WatchResult,
    post_pods,
    warm_up,
    watch_pods,
    write_auth_script,
    write_post_script,
    wrk_path,
)
from api_report import list_row, machine, print_table, rate_row, wrk_row, yes_no  # noqa: E402
from api_servers import (  # noqa: E402
    CREATE_GOAL,
    CREATE_NS,
    GET_GOAL,
    LIST_GOAL,
    NAMESPACE,
    PODS,
    WATCH_NS,
    Row,
    Settings,
    Targets,
    baseline,
    bearer_token,
    cluster,
    sample,
)

# orchestration


def main() -> int:
    settings = parse_args()
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        print(f"aiohttp is missing (the POST and watch load client): {AIOHTTP_INSTALL}")
        return 2
    if wrk_path() is None:
        print(f"wrk not found: GET and LIST are skipped, create uses aiohttp; {WRK_INSTALL}\n")
    print(machine())
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp, workers() as pool:
        rows = run(Path(tmp), settings, pool)
    print_table(rows)
    print(f"\ntotal {time.monotonic() - started:.0f}s")
    return 0


def parse_args() -> Settings:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=10_000, help="pods resident (default 10000)")
    parser.add_argument("--seconds", type=int, default=5, help="each wrk run (default 5)")
    parser.add_argument("--connections", type=int, default=16, help="in flight (default 16)")
    parser.add_argument("--creates", type=int, default=2000, help="create without wrk (default 2000)")
    parser.add_argument("--watchers", type=int, default=10, help="watch streams (default 10)")
    parser.add_argument("--watch-creates", type=int, default=500, help="pods created (default 500)")
    parser.add_argument("--store", default="memory://", help="the cluster's --store (default memory://)")
    parser.add_argument("--tcp-nodelay", action="store_true", help="experiment: see NODELAY_LAUNCHER")
    a = parser.parse_args()
    return Settings(
        a.pods, a.seconds, a.connections, a.creates, a.watchers, a.watch_creates, a.store, a.tcp_nodelay
    )


@contextmanager
def workers() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn")) as pool:
        list(pool.map(warm_up, range(2)))
        yield pool


def run(tmp: Path, s: Settings, pool: ProcessPoolExecutor) -> list[Row]:
    with cluster(tmp, s) as c:
        pki = c.data_dir / "pki"
        tls = TLS(str(c.ca_file), str(pki / "admin.crt"), str(pki / "admin.key"))
        rows = [fill(pool, c.url, tls, s)]
        data = tmp / "baseline.json"
        data.write_text(json.dumps(sample(c)))
        token = bearer_token(c)
        auth = write_auth_script(tmp / "auth.lua", token)
        with baseline(pki, data) as base_url:
            t = Targets(c.url, base_url, tls, tmp, token, auth)
            for scenario in (get_pod, create, list_all, list_node_a, watch_fan_out):
                print(f"  {scenario.__name__} ...", flush=True)
                rows += scenario(pool, t, s)
    return rows


# scenarios


def fill(pool: ProcessPoolExecutor, url: str, tls: TLS, s: Settings) -> Row:
    names = [f"bench-{i:05d}" for i in range(s.pods)]
    rate, errors = post_rate(pool, url + PODS.format(ns=NAMESPACE), tls, names, 64, node_a_every=2)
    return Row(f"fill: create {s.pods} pods (aiohttp x2, 64 in flight)", f"{rate:,.0f} req/s{errors}")


def get_pod(pool: ProcessPoolExecutor, t: Targets, s: Settings) -> list[Row]:
    name = f"bench-{s.pods // 2:05d}"
    ours_url, base_url = t.cluster + f"{PODS.format(ns=NAMESPACE)}/{name}", t.baseline + "/pod"
    label = f"GET one pod ({s.pods} resident)"
    return wrk_row(label, ours_url, base_url, s, rate_row(GET_GOAL), t.auth_script)


def create(pool: ProcessPoolExecutor, t: Targets, s: Settings) -> list[Row]:
    """wrk with a Lua script (fresh names) when there is wrk; else two aiohttp processes."""
    ours_url, base_url = t.cluster + PODS.format(ns=CREATE_NS), t.baseline + "/pods"
    if wrk_path() is not None:
        script = write_post_script(t.tmp / "post.lua", "c-", t.token)
        return wrk_row("create pod", ours_url, base_url, s, rate_row(CREATE_GOAL), script)
    names = [f"c-{i:05d}" for i in range(s.creates)]
    ours, errors = post_rate(pool, ours_url, t.tls, names, s.connections)
    base, base_errors = post_rate(pool, base_url, t.tls, names, s.connections)
    return [
        Row(
            f"create pod (aiohttp x2 processes, {s.connections} in flight)",
            f"{ours:,.0f} req/s{errors}",
            f"{base:,.0f} req/s{base_errors}",
            ours / base,
            f">= {CREATE_GOAL}x",
            yes_no(ours / base >= CREATE_GOAL),
        )
    ]


def list_all(pool: ProcessPoolExecutor, t: Targets, s: Settings) -> list[Row]:
    ours_url, base_url = t.cluster + PODS.format(ns=NAMESPACE), t.baseline + "/list"
    return wrk_row(f"LIST {s.pods} pods", ours_url, base_url, s, list_row(LIST_GOAL), t.auth_script)


def list_node_a(pool: ProcessPoolExecutor, t: Targets, s: Settings) -> list[Row]:
    ours_url = t.cluster + PODS.format(ns=NAMESPACE) + "?fieldSelector=spec.nodeName%3Dnode-a"
    label = f"LIST spec.nodeName=node-a ({s.pods // 2} of {s.pods})"
    return wrk_row(label, ours_url, t.baseline + "/list-node-a", s, list_row(None), t.auth_script)


def watch_fan_out(pool: ProcessPoolExecutor, t: Targets, s: Settings) -> list[Row]:
    with httpx.Client(verify=t.tls.context(), base_url=t.cluster, timeout=30) as client:
        rv = client.get(PODS.format(ns=WATCH_NS)).raise_for_status().json()["metadata"]["resourceVersion"]
    watch_url = f"{t.cluster}{PODS.format(ns=WATCH_NS)}?watch=true&resourceVersion={rv}"
    ours = fan_out(pool, watch_url, t.cluster + PODS.format(ns=WATCH_NS), t.tls, s)
    base = fan_out(pool, t.baseline + "/watch", t.baseline + "/pods", t.tls, s)
    label = f"watch: {s.watchers} watchers, {s.watch_creates} creates ({s.connections} in flight)"
    rows = [
        Row(
            f"{label}, events delivered",
            f"{ours.events_per_s:,.0f} ev/s{ours.problems}",
            f"{base.events_per_s:,.0f} ev/s{base.problems}",
            ours.events_per_s / base.events_per_s if base.events_per_s else None,
        )
    ]
    for name, pick in (("p50", 0.50), ("p99", 0.99)):
        ours_ms, base_ms = ours.latency_ms(pick), base.latency_ms(pick)
        rows.append(
            Row(
                f"watch: create -> last watcher, {name}",
                f"{ours_ms:,.1f} ms",
                f"{base_ms:,.1f} ms",
                ours_ms / base_ms if base_ms else None,
                "(time: lower is better)",
            )
        )
    return rows


# measuring helpers


def post_rate(
    pool: ProcessPoolExecutor, url: str, tls: TLS, names: list[str], in_flight: int, node_a_every: int = 0
) -> tuple[float, str]:
    """POST one pod per name from two worker processes; creates/s and any non-201s."""
    start_at = time.monotonic() + 0.5
    half = len(names) // 2
    jobs = [
        PostJob(url, tls, part, max(1, in_flight // 2), start_at, node_a_every)
        for part in (names[:half], names[half:])
    ]
    results = list(pool.map(post_pods, jobs))
    return created_per_s(results), non_201(results)


def created_per_s(results: list[PostResult]) -> float:
    elapsed = max(r.finished for r in results) - min(r.started for r in results)
    return sum(r.statuses[201] for r in results) / elapsed


def non_201(results: list[PostResult]) -> str:
    bad = {code: n for r in results for code, n in r.statuses.items() if code != 201}
    return f" (non-201: {bad})" if bad else ""


@dataclass(frozen=True)
class FanOut:
    events_per_s: float
    latencies: list[float]
    problems: str

    def latency_ms(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fan_out(pool: ProcessPoolExecutor, watch_url: str, post_url: str, tls: TLS, s: Settings) -> FanOut:
    start_at = time.monotonic() + 1.0
    names = [f"w-{i:05d}" for i in range(s.watch_creates)]
    watch_job = WatchJob(watch_url, tls, s.watchers, "w-", s.watch_creates, start_at, timeout=60)
    watching = pool.submit(watch_pods, watch_job)
    creating = pool.submit(post_pods, PostJob(post_url, tls, names, s.connections, start_at))
    posted, watched = creating.result(), watching.result()
    return summarize(posted, watched, s)


def summarize(posted: PostResult, watched: WatchResult, s: Settings) -> FanOut:
    expected = s.watchers * s.watch_creates
    problems = []
    if watched.events < expected:
        problems.append(f"{watched.events}/{expected} events, {watched.ended_early} streams ended early")
    if posted.statuses[201] != s.watch_creates:
        problems.append(f"creates {dict(posted.statuses)}")
    last = max(watched.last_seen.values(), default=posted.started)
    rate = watched.events / (last - posted.started) if last > posted.started else 0.0
    latencies = [watched.last_seen[n] - t for n, t in posted.sent_at.items() if n in watched.last_seen]
    return FanOut(rate, latencies, f" ({'; '.join(problems)})" if problems else "")


if __name__ == "__main__":
    sys.exit(main())

"""What the security chain costs: GET one pod and create pod through every gate, as a ratio
to the same apiserver with the gates open.

    python benchmarks/security.py [--seconds 5] [--connections 16] [--bindings 100]

Two ``minikube-py apiserver`` processes on the memory store, run one after the other:

* open: no flags (anonymous allowed, AlwaysAllow, no admission, no audit, no flow control);
* full: ``--authorization-mode=Node,RBAC``, a static ``--token-auth-file``, the default
  admission plugins, audit at Metadata to a file, priority and fairness; ``--bindings``
  RoleBindings for other users sit next to the one granting the benchmark user ``edit``.

Clients: wrk with ``Authorization: Bearer`` (GET one pod; create with a fresh name each
request), and two aiohttp processes presenting an x509 client certificate (GET). Goal: the
chain costs at most 15% (ratio >= 0.85).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_clients import TLS, pod_manifest, run_wrk, wrk_path

from minikube_py.pki import ensure_client_certificate, ensure_cluster_pki
from minikube_py.testing.cluster import free_port

GOAL = 0.85
USER, TOKEN = "bench", "bench-token-0123456789"
NAMESPACE = "default"
PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version"]
- level: Metadata
"""
POST_LUA = """
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
  return wrk.format("POST", nil, {["Content-Type"] = "application/json",
                                  ["Authorization"] = "Bearer %s"}, body)
end
"""


@dataclass(frozen=True)
class Server:
    url: str
    tls_admin: TLS
    tls_user: TLS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--bindings", type=int, default=100)
    parser.add_argument("--x509-requests", type=int, default=4000)
    args = parser.parse_args()
    if wrk_path() is None:
        print("wrk not found: apt-get install wrk", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp, workers() as pool:
        base = Path(tmp)
        pki = make_pki(base)
        results: dict[str, dict[str, float]] = {}
        for mode in ("open", "full"):
            with apiserver(base, pki, mode) as server:
                setup(server, args.bindings if mode == "full" else 0)
                print(f"  {mode}: measuring ...", flush=True)
                results[mode] = measure(server, base, pool, args, mode)
        print_table(results, args)
    return 0


@contextmanager
def workers() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("spawn")) as pool:
        yield pool


def make_pki(base: Path) -> dict[str, Path]:
    pki = ensure_cluster_pki(base / "pki")
    user = ensure_client_certificate(pki, "bench-user", user=USER)
    (base / "tokens.csv").write_text(f'{TOKEN},{USER},uid-{USER},""\n')
    (base / "policy.yaml").write_text(AUDIT_POLICY)
    return {
        "ca": pki.ca.cert,
        "crt": pki.apiserver.cert,
        "key": pki.apiserver.key,
        "admin_crt": pki.admin.cert,
        "admin_key": pki.admin.key,
        "user_crt": user.cert,
        "user_key": user.key,
    }


@contextmanager
def apiserver(base: Path, pki: dict[str, Path], mode: str) -> Iterator[Server]:
    port = free_port()
    command = [str(Path(sys.executable).with_name("minikube-py")), "apiserver", "--store", "memory://"]
    command += ["--secure-port", str(port), "--tls-cert-file", str(pki["crt"])]
    command += ["--tls-private-key-file", str(pki["key"]), "--client-ca-file", str(pki["ca"])]
    if mode == "full":
        command += ["--authorization-mode=Node,RBAC", "--token-auth-file", str(base / "tokens.csv")]
        command += ["--audit-policy-file", str(base / "policy.yaml")]
        command += ["--audit-log-path", str(base / f"audit-{port}.log")]
        command += ["--enable-priority-and-fairness=true"]
    else:
        command += ["--enable-admission-plugins=", "--disable-admission-plugins=" + OPEN_DISABLED]
    log = (base / f"apiserver-{mode}.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"https://127.0.0.1:{port}"
    admin = TLS(str(pki["ca"]), str(pki["admin_crt"]), str(pki["admin_key"]))
    user = TLS(str(pki["ca"]), str(pki["user_crt"]), str(pki["user_key"]))
    try:
        try:
            wait_ready(url, admin, process)
        except RuntimeError:
            log.flush()
            print((base / f"apiserver-{mode}.log").read_text()[-3000:], file=sys.stderr)
            raise
        yield Server(url, admin, user)
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


# Every plugin upstream enables by default, turned off for the open run.
OPEN_DISABLED = ",".join(
    [
        "NamespaceLifecycle",
        "LimitRanger",
        "ServiceAccount",
        "Priority",
        "DefaultTolerationSeconds",
        "PodSecurity",
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
        "ResourceQuota",
    ]
)


def client(tls: TLS, url: str) -> httpx.Client:
    return httpx.Client(base_url=url, verify=tls.context(), timeout=30)


def wait_ready(url: str, tls: TLS, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline, last = time.monotonic() + timeout, ""
    with client(tls, url) as c:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"apiserver exited {process.returncode}")
            try:
                ready, pods = c.get("/readyz").status_code, c.get(PODS).status_code
                if ready == 200 and pods == 200:
                    return
                last = f"readyz {ready}, pods {pods}"
            except httpx.TransportError as err:
                last = str(err)
            time.sleep(0.2)
    raise RuntimeError(f"apiserver not ready: {last}")


def setup(server: Server, bindings: int) -> None:
    """One pod to GET; with RBAC, ``bindings`` RoleBindings for other users plus the one that
    lets the benchmark user edit the namespace."""
    with client(server.tls_admin, server.url) as c:
        # no service-account controller yet: the ServiceAccount admission plugin needs "default"
        c.post(f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", json={"metadata": {"name": "default"}})
        created = c.post(PODS, json=pod_manifest("bench-get"))
        if created.status_code != 201:
            raise RuntimeError(f"creating the pod to GET: {created.text}")
        if not bindings:
            return
        rolebindings = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{NAMESPACE}/rolebindings"
        for i in range(bindings):
            c.post(rolebindings, json=binding(f"other-{i}", f"user-{i}")).raise_for_status()
        c.post(rolebindings, json=binding("bench", USER)).raise_for_status()
        deadline = time.monotonic() + 10
        with client(server.tls_user, server.url) as u:
            while u.get(f"{PODS}/bench-get").status_code != 200:
                if time.monotonic() > deadline:
                    raise RuntimeError("the benchmark user is still forbidden")
                time.sleep(0.1)


def binding(name: str, user: str) -> dict[str, object]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
    }


def measure(
    server: Server, base: Path, pool: ProcessPoolExecutor, args: argparse.Namespace, mode: str
) -> dict[str, float]:
    get_lua = base / "get.lua"
    get_lua.write_text(f'wrk.headers["Authorization"] = "Bearer {TOKEN}"\n')
    get = run_wrk(
        f"{server.url}{PODS}/bench-get",
        threads=2,
        connections=args.connections,
        seconds=args.seconds,
        script=get_lua,
    )
    post_lua = base / f"post-{mode}.lua"
    template = json.dumps(pod_manifest("@NAME@"), separators=(",", ":"))
    post_lua.write_text(POST_LUA % (template, f"c-{mode}-", TOKEN))
    create = run_wrk(
        f"{server.url}{PODS}", threads=2, connections=args.connections, seconds=args.seconds, script=post_lua
    )
    for result in (get, create):
        if result.errors:
            raise RuntimeError(f"{mode}: {result.errors}")
    per_process = args.x509_requests // 2
    jobs = [(f"{server.url}{PODS}/bench-get", server.tls_user, per_process, args.connections // 2)] * 2
    started = time.monotonic()
    counts = list(pool.map(get_many, jobs))
    x509_rate = sum(counts) / (time.monotonic() - started)
    return {"get_token": get.requests_per_s, "create_token": create.requests_per_s, "get_x509": x509_rate}


def get_many(job: tuple[str, TLS, int, int]) -> int:
    """Process entry: ``count`` GETs of ``url`` with a client certificate, ``concurrency`` in
    flight on kept-alive connections; returns how many answered 200."""
    return asyncio.run(_get_many(*job))


async def _get_many(url: str, tls: TLS, count: int, concurrency: int) -> int:
    import aiohttp

    ok = 0
    remaining = iter(range(count))
    connector = aiohttp.TCPConnector(limit=concurrency, ssl=tls.context())
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            nonlocal ok
            for _ in remaining:
                async with session.get(url) as response:
                    await response.read()
                    ok += response.status == 200

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    if ok != count:
        raise RuntimeError(f"{count - ok} of {count} x509 GETs failed")
    return ok


def print_table(results: dict[str, dict[str, float]], args: argparse.Namespace) -> None:
    rows = [
        ("GET one pod, bearer token (wrk)", "get_token"),
        ("create pod, bearer token (wrk)", "create_token"),
        ("GET one pod, x509 (aiohttp x2)*", "get_x509"),
    ]
    print(f"\nfull chain: RBAC with {args.bindings}+1 RoleBindings, audit Metadata, APF, admission")
    print(f"{'scenario':36}  {'full chain':>12}  {'open':>12}  {'ratio':>6}  goal >= {GOAL}")
    for label, key in rows:
        full, open_ = results["full"][key], results["open"][key]
        ratio = full / open_
        met = "yes" if ratio >= GOAL else "NO"
        print(f"{label:36}  {full:>8,.0f} r/s  {open_:>8,.0f} r/s  {ratio:>5.2f}x  {met}")
    print("* aiohttp clients saturate before the server: this row shows that x509 works through")
    print("  the chain at these rates, not the chain's cost (wrk cannot present certificates)")


if __name__ == "__main__":
    sys.exit(main())

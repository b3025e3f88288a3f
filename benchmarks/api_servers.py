"""The servers ``benchmarks/api.py`` measures: ``minikube-py up`` (optionally with TCP_NODELAY)
with the namespaces and an admin token it needs, and the Starlette baseline app."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api_clients import TLS  # noqa: E402 - benchmarks/ is not a package

from minikube_py.testing.cluster import Cluster, free_port, start_up  # noqa: E402

NAMESPACE, CREATE_NS, WATCH_NS = "default", "bench-create", "bench-watch"
RBAC = "rbac.authorization.k8s.io"
PODS = "/api/v1/namespaces/{ns}/pods"
GET_GOAL, CREATE_GOAL, LIST_GOAL = 0.6, 0.5, 1.5
# Experiment only (--tcp-nodelay): ``up`` with TCP_NODELAY on the listening socket, which
# accepted sockets inherit on Linux. Not a fix; shows the figures past the missing NODELAY.
NODELAY_LAUNCHER = """
import socket, sys
import apiserver.app as app
from minikube_py.cli.main import main
listen = app.listen
def nodelay_listen(host, port):
    sock = listen(host, port)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock
app.listen = nodelay_listen
sys.exit(main())
"""


@dataclass(frozen=True)
class Row:
    scenario: str
    figure: str
    baseline: str = ""
    ratio: float | None = None
    goal: str = ""
    met: str = ""


@dataclass(frozen=True)
class Settings:
    pods: int
    seconds: int
    connections: int
    creates: int
    watchers: int
    watch_creates: int
    store: str
    tcp_nodelay: bool


@dataclass(frozen=True)
class Targets:
    """Base URLs and TLS material for the two servers under test."""

    cluster: str
    baseline: str
    tls: TLS
    tmp: Path
    token: str  # a bearer token allowed everything (wrk cannot present client certificates)
    auth_script: Path  # a wrk script sending it


# The apiserver alone is measured: no controllers (their informers and writes are load of
# their own), and the pods name a scheduler nobody runs (api_clients.pod_manifest).
BENCH_FLAGS = ("--controllers=", "--nodes", "0")


@contextmanager
def cluster(tmp: Path, s: Settings) -> Iterator[Cluster]:
    port = free_port()
    if s.tcp_nodelay:
        c = start_nodelay(tmp, port, s.store)
    else:
        c = start_up(tmp, port, store=s.store, flags=BENCH_FLAGS)
    try:
        print(f"cluster ready in {c.wait_ready():.1f}s on {c.url} (store {s.store})", flush=True)
        with httpx_client(c) as client:
            for ns in (CREATE_NS, WATCH_NS):
                client.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).raise_for_status()
            for ns in (NAMESPACE, CREATE_NS, WATCH_NS):  # as the service-account controller would
                account = {"metadata": {"name": "default"}}
                client.post(f"/api/v1/namespaces/{ns}/serviceaccounts", json=account).raise_for_status()
        yield c
    finally:
        c.stop()


def start_nodelay(tmp: Path, port: int, store: str) -> Cluster:
    data_dir, logs = tmp / "data", tmp / "logs"
    logs.mkdir()
    args = ["up", "--data-dir", str(data_dir), "--port", str(port), "--store", store, *BENCH_FLAGS]
    with (logs / "stdout").open("wb") as out, (logs / "stderr").open("wb") as err:
        process = subprocess.Popen([sys.executable, "-c", NODELAY_LAUNCHER, *args], stdout=out, stderr=err)
    return Cluster(data_dir, port, process, logs / "stdout", logs / "stderr")


def bearer_token(c: Cluster) -> str:
    """A service-account token bound to cluster-admin (RBAC is on; wrk sends no certificate)."""
    with httpx_client(c) as client:
        sa = {"metadata": {"name": "bench"}}
        client.post(f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", json=sa).raise_for_status()
        binding = {
            "metadata": {"name": "bench-cluster-admin"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "cluster-admin",
            },
            "subjects": [{"kind": "ServiceAccount", "name": "bench", "namespace": NAMESPACE}],
        }
        bindings = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
        client.post(bindings, json=binding).raise_for_status()
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
        url = f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts/bench/token"
        token: str = client.post(url, json=request).raise_for_status().json()["status"]["token"]
    deadline = time.monotonic() + 10
    while True:  # the binding reaches the authorizer's cache a moment after it is stored
        with httpx.Client(base_url=c.url, verify=str(c.ca_file), timeout=10) as client:
            headers = {"Authorization": f"Bearer {token}"}
            if client.get(f"{PODS.format(ns=NAMESPACE)}?limit=1", headers=headers).status_code == 200:
                return token
        if time.monotonic() > deadline:
            raise RuntimeError("the benchmark's service account is still forbidden")
        time.sleep(0.1)


def httpx_client(c: Cluster) -> httpx.Client:
    pki = c.data_dir / "pki"
    client = c.client(cert=(str(pki / "admin.crt"), str(pki / "admin.key")))
    client.timeout = httpx.Timeout(60)
    return client


def sample(c: Cluster) -> dict[str, Any]:
    """One real pod and every resident pod, as the baseline serves them."""
    with httpx_client(c) as client:
        items = client.get(PODS.format(ns=NAMESPACE)).raise_for_status().json()["items"]
        pod = client.get(f"{PODS.format(ns=NAMESPACE)}/{items[len(items) // 2]['metadata']['name']}")
        return {"pod": pod.raise_for_status().json(), "items": items}


@contextmanager
def baseline(pki: Path, data: Path) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, str(Path(__file__).with_name("api_baseline.py")), "--port", str(port)]
    process = subprocess.Popen([*command, "--pki", str(pki), "--data", str(data)])
    url = f"https://127.0.0.1:{port}"
    try:
        wait_for(url + "/pod", pki / "ca.crt", process)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def wait_for(url: str, ca: Path, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"baseline exited {process.returncode}")
        try:
            if httpx.get(url, verify=str(ca), timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"baseline not ready after {timeout}s")

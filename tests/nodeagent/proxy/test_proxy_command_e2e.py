"""The proxy outside ``up`` (``up --nodes 0`` runs none): ``minikube-py proxy`` as
``system:kube-proxy`` with ``--node-name``, and a ``node-agent --runtime process`` running
its node's proxy (``--proxy-kubeconfig``), each serving a Service's ClusterIP and NodePort on
its node's address; ``--no-proxy`` runs none."""

from __future__ import annotations

import http.server
import json
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from minikube_py.identities import ensure_node_identity, ensure_proxy_identity
from minikube_py.pki import ensure_cluster_pki, load_certificate_authority
from nodeagent.node.tls import ensure_serving_certificate
from tests.cluster import CLI, Cluster, eventually, free_port, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok
from tests.nodeagent.proxy.test_proxy_e2e import fetch

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("proxy-command"))


@pytest.fixture(scope="module")
def backend() -> Iterator[int]:
    """An HTTP server on 127.0.0.1 answering ``backend``."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "7")
            self.end_headers()
            self.wfile.write(b"backend")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def expose(cluster: Cluster, name: str, port: int, node_name: str) -> tuple[str, int]:
    """A selector-less NodePort Service whose endpoint (on ``node_name``) is the backend."""
    ok(cluster, "create", "service", "nodeport", name, "--tcp=80:80")
    body = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": f"{name}-1", "labels": {"kubernetes.io/service-name": name}},
        "addressType": "IPv4",
        "ports": [{"name": "80-80", "port": port, "protocol": "TCP"}],
        "endpoints": [{"addresses": ["127.0.0.1"], "nodeName": node_name, "conditions": {"ready": True}}],
    }
    ok(cluster, "create", "-f", "-", stdin=json.dumps(body))
    spec = get(cluster, "service", name)["spec"]
    return spec["clusterIP"], spec["ports"][0]["nodePort"]


def node_object(cluster: Cluster, name: str, address: str) -> None:
    body = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    ok(cluster, "create", "-f", "-", stdin=json.dumps(body))
    status = {"status": {"addresses": [{"type": "InternalIP", "address": address}]}}
    ok(cluster, "patch", "node", name, "--subresource=status", "-p", json.dumps(status))


def test_the_proxy_command_serves_its_nodes_address(cluster: Cluster, backend: int, tmp_path: Path) -> None:
    node_ip = "127.77.250.1"
    node_object(cluster, "standalone", node_ip)
    cluster_ip, node_port = expose(cluster, "solo", backend, "standalone")
    kubeconfig = ensure_proxy_identity(
        cluster.data_dir, ensure_cluster_pki(cluster.data_dir / "pki"), cluster.url
    )
    log = tmp_path / "proxy.log"
    args = [
        *CLI, "proxy", "--kubeconfig", str(kubeconfig), "--node-name", "standalone",
        "--healthz-bind-address", "127.0.0.1:0", "--metrics-bind-address", f"127.0.0.1:{free_port()}",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(args, stdout=out, stderr=out)
    try:
        assert eventually(lambda: fetch(f"http://{cluster_ip}/"), "the ClusterIP") == "backend"
        assert eventually(lambda: fetch(f"http://{node_ip}:{node_port}/"), "the NodePort") == "backend"
        found = eventually(
            lambda: re.search(r"serving /healthz on http://127.0.0.1:(\d+)", log.read_text()), "log"
        )
        assert '"lastUpdated"' in fetch(f"http://127.0.0.1:{found.group(1)}/healthz")
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0, log.read_text()
    assert "Traceback" not in log.read_text()


def node_address(prefix: str) -> list[str]:
    """A node's own /24: its pod range and its address."""
    return ["--pod-cidr", f"{prefix}.0/24", "--address", f"{prefix}.1", "--node-ip", f"{prefix}.1"]


def agent_args(cluster: Cluster, name: str, logs: Path, *extra: str) -> list[str]:
    pki = ensure_cluster_pki(cluster.data_dir / "pki")
    kubeconfig = ensure_node_identity(cluster.data_dir, pki, name, cluster.url)
    pair, client_ca = ensure_serving_certificate(load_certificate_authority(pki.ca), logs / f"{name}-tls")
    return [
        *CLI, "node-agent", "--kubeconfig", str(kubeconfig), "--node-name", name, "--runtime", "process",
        "--data-dir", str(cluster.data_dir), "--port", "0", "--tls-cert-file", str(pair.cert),
        "--tls-private-key-file", str(pair.key), "--client-ca-file", str(client_ca), *extra,
    ]  # fmt: skip


def test_a_process_node_agent_runs_its_nodes_proxy(cluster: Cluster, backend: int, tmp_path: Path) -> None:
    proxy_kubeconfig = ensure_proxy_identity(
        cluster.data_dir, ensure_cluster_pki(cluster.data_dir / "pki"), cluster.url
    )
    args = agent_args(
        cluster, "agent-proxy", tmp_path, *node_address("127.77.251"),
        "--proxy-kubeconfig", str(proxy_kubeconfig),
        "--proxy-healthz-bind-address", "127.0.0.1:0", "--proxy-metrics-bind-address", "127.0.0.1:0",
    )  # fmt: skip
    log = tmp_path / "agent.log"
    with log.open("wb") as out:
        process = subprocess.Popen(args, stdout=out, stderr=out)
    try:
        cluster_ip, node_port = expose(cluster, "agents", backend, "agent-proxy")
        assert eventually(lambda: fetch(f"http://{cluster_ip}/"), "the ClusterIP") == "backend"
        assert eventually(lambda: fetch(f"http://127.77.251.1:{node_port}/"), "the NodePort") == "backend"
        assert "proxy: serving services for agent-proxy" in log.read_text()
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_no_proxy_runs_none(cluster: Cluster, tmp_path: Path) -> None:
    args = agent_args(cluster, "agent-bare", tmp_path, *node_address("127.77.252"), "--no-proxy")
    log = tmp_path / "agent.log"
    with log.open("wb") as out:
        process = subprocess.Popen(args, stdout=out, stderr=out)
    try:
        eventually(lambda: "agent-bare" in ok(cluster, "get", "nodes", "-o", "name"), "the node registered")
        assert "proxy:" not in log.read_text()
    finally:
        process.terminate()
        process.wait(timeout=15)

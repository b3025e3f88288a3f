"""The proxy subresources on ``up`` with one process node, with real kubectl: ``kubectl proxy``
users open ``services/web:80/proxy/`` and ``pods/<pod>:8080/proxy/``, and ``kubectl get --raw``
reaches the node agent through ``nodes/node-1/proxy/healthz`` (kubectl 1.27, 1.32 and 1.33)."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import KUBECTL, KUBECTL_DIR, Cluster, eventually, kubectl, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e

BINARIES = [KUBECTL, str(KUBECTL_DIR / "kubectl.1.27"), str(KUBECTL_DIR / "kubectl.1.33")]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("proxy"), flags=["--nodes", "1"])


@pytest.fixture(scope="module")
def web(cluster: Cluster) -> dict[str, Any]:
    """A Deployment of the built-in nginx on port 8080, created with kubectl, and a Service
    ``web`` (port 80) whose Endpoints name its pod, as the Endpoints controller writes them."""
    ok(cluster, "create", "deployment", "web", "--image=nginx", "--port=8080")
    ok(cluster, "rollout", "status", "deployment/web", "--timeout=30s")
    pod = get(cluster, "pods", "-l", "app=web")["items"][0]
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"ports": [{"port": 80, "targetPort": 8080, "protocol": "TCP"}]},
    }
    address = {
        "ip": pod["status"]["podIP"],
        "targetRef": {"kind": "Pod", "namespace": "default", "name": pod["metadata"]["name"]},
    }
    endpoints = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "web"},
        "subsets": [{"addresses": [address], "ports": [{"port": 8080, "protocol": "TCP"}]}],
    }
    ok(
        cluster,
        "apply",
        "-f",
        "-",
        stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": [service, endpoints]}),
    )
    return dict(pod)


@pytest.fixture(scope="module")
def proxy_url(cluster: Cluster) -> Iterator[str]:
    """``kubectl proxy --port=0``: the address it prints."""
    command = [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "proxy", "--port=0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"Starting to serve on (\S+)", line)
        assert found, line + (process.stderr.read() if process.poll() is not None and process.stderr else "")
        yield f"http://{found.group(1)}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_kubectl_proxy_users_reach_the_service_and_the_pod(
    cluster: Cluster, web: dict[str, Any], proxy_url: str
) -> None:
    base = f"{proxy_url}/api/v1/namespaces/default"

    def welcome() -> str:
        code, body = fetch(f"{base}/services/web:80/proxy/")
        return body if code == 200 else ""

    # nginx binds a moment after the pod is Ready (no readiness probe): wait for its answer
    assert "nginx" in eventually(welcome, "nginx through services/web:80/proxy/", timeout=15).lower()
    code, body = fetch(f"{base}/pods/{web['metadata']['name']}:8080/proxy/")
    assert code == 200 and "nginx" in body.lower()
    code, body = fetch(f"{base}/services/web:81/proxy/")
    assert code == 503
    assert json.loads(body)["message"] == 'no service port 81 found for service "web"'


@pytest.mark.parametrize("binary", BINARIES, ids=lambda b: b.rsplit("/", 1)[-1])
def test_kubectl_get_raw_reaches_the_node_agent_and_the_pod(
    cluster: Cluster, web: dict[str, Any], binary: str
) -> None:
    healthz = kubectl(cluster, "get", "--raw", "/api/v1/nodes/node-1/proxy/healthz", binary=binary)
    assert (healthz.returncode, healthz.stdout.strip()) == (0, "ok"), healthz.stderr
    pod = web["metadata"]["name"]

    def page() -> str:
        raw = kubectl(
            cluster, "get", "--raw", f"/api/v1/namespaces/default/pods/{pod}:8080/proxy/", binary=binary
        )
        return raw.stdout if raw.returncode == 0 else ""

    assert "nginx" in eventually(page, "nginx through pods/proxy", timeout=15).lower()
    missing = kubectl(cluster, "get", "--raw", "/api/v1/namespaces/default/pods/nope/proxy/", binary=binary)
    assert missing.returncode != 0 and 'pods "nope" not found' in missing.stderr

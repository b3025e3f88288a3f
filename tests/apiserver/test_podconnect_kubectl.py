"""kubectl logs and exec against ``minikube-py up`` while no node agent runs: empty logs for a pod
not yet scheduled, upstream's errors for the rest, and never a traceback. kubectl 1.27 speaks
SPDY only; the default kubectl tries WebSockets first, and falls back to SPDY when refused."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.cluster import KUBECTL, KUBECTL_DIR, Cluster, free_port, kubectl, start_up

pytestmark = pytest.mark.e2e

Kubectl = Callable[..., subprocess.CompletedProcess[str]]


def objects(node_port: int) -> list[dict[str, Any]]:
    return [
        {
            "kind": "Pod",
            "metadata": {"name": "solo"},
            "spec": {"containers": [{"name": "app", "image": "i"}]},
        },
        {
            "kind": "Pod",
            "metadata": {"name": "duo"},
            "spec": {"containers": [{"name": "a", "image": "i"}, {"name": "b", "image": "i"}]},
        },
        {
            "kind": "Node",
            "metadata": {"name": "n1"},
            "status": {
                "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": node_port}},
            },
        },
        {
            "kind": "Pod",
            "metadata": {"name": "bound"},
            "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "i"}]},
        },
    ]


@pytest.fixture(scope="module")
def node_port() -> int:
    """Node n1's kubelet port, where nothing listens: its node agent is down."""
    return free_port()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, node_port: int) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("podconnect")
    running = start_up(tmp, free_port())
    running.wait_ready()
    try:  # a failed set-up stops the cluster too (one refused create left it running)
        manifest = tmp / "objects.json"
        items = [{"apiVersion": "v1", **obj} for obj in objects(node_port)]
        manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        created = kubectl(running, "create", "-f", str(manifest))
        assert created.returncode == 0, created.stderr
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()
    assert "Traceback" not in running.stderr.read_text()


@pytest.fixture(params=["1.27", "default"])
def k(request: pytest.FixtureRequest, cluster: Cluster) -> Kubectl:
    binary = str(KUBECTL_DIR / "kubectl.1.27") if request.param == "1.27" else KUBECTL

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return kubectl(cluster, *args, binary=binary)

    return run


def test_logs_of_a_pod_not_yet_on_a_node_are_empty(k: Kubectl) -> None:
    result = k("logs", "solo")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_logs_of_a_two_container_pod_need_a_container(k: Kubectl) -> None:
    defaulted = k("logs", "duo")  # kubectl itself picks the first container, and says so
    assert (defaulted.returncode, defaulted.stdout) == (0, "")
    assert 'Defaulted container "a" out of: a, b' in defaulted.stderr
    raw = k("get", "--raw", "/api/v1/namespaces/default/pods/duo/log")  # what the server says
    assert raw.returncode == 1
    expected = "a container name must be specified for pod duo, choose one of: [a b]"
    assert raw.stderr.strip() == f"Error from server (BadRequest): {expected}"


def test_exec_errors_cleanly(k: Kubectl, node_port: int) -> None:
    unbound = k("exec", "solo", "--", "ls")
    assert unbound.returncode == 1
    assert unbound.stderr.strip() == "Error from server (BadRequest): pod solo does not have a host assigned"
    down = k("exec", "bound", "--", "ls")
    assert down.returncode == 1
    dial = f"dial tcp 127.0.0.1:{node_port}: connect: connection refused"
    assert down.stderr.strip() == f"Error from server: error dialing backend: {dial}"


def test_logs_of_a_pod_whose_node_agent_is_down(k: Kubectl, node_port: int) -> None:
    result = k("logs", "bound")
    assert result.returncode == 1
    url = f"https://127.0.0.1:{node_port}/containerLogs/default/bound/app"
    dial = f"dial tcp 127.0.0.1:{node_port}: connect: connection refused"
    assert result.stderr.strip() == f'Error from server: Get "{url}": {dial}'

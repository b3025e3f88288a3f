"""``minikube-py node-agent`` as its own process beside ``up --nodes 0``: a node whose agent
dies goes NotReady and comes back when it restarts; pods keep running while the apiserver is
down and the agent resyncs when it returns."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.identities import ensure_node_identity
from minikube_py.pki import ensure_cluster_pki, load_certificate_authority
from nodeagent.node.tls import ensure_serving_certificate
from tests.cluster import CLI, Cluster, free_port, start_up
from tests.nodeagent.e2e.test_agent_kubectl import eventually, get, ok, running_commands

pytestmark = pytest.mark.e2e
FLAGS = ["--node-monitor-period=1s", "--node-monitor-grace-period=4s"]


class Agent:
    """One ``node-agent`` process with its own identity and serving certificate."""

    def __init__(self, cluster: Cluster, name: str, runtime: str, logs: Path, index: int) -> None:
        """Node range ``index`` of the cluster's pod network (``up --nodes 0`` uses none)."""
        pki = ensure_cluster_pki(cluster.data_dir / "pki")
        self.kubeconfig = ensure_node_identity(cluster.data_dir, pki, name, cluster.url)
        assert cluster.network is not None
        self.address = cluster.network.node_ip(index)
        ca = load_certificate_authority(pki.ca)
        pair, client_ca = ensure_serving_certificate(ca, logs / f"{name}-tls", self.address)
        self.args = [
            *CLI, "node-agent", "--kubeconfig", str(self.kubeconfig), "--node-name", name,
            "--runtime", runtime, "--data-dir", str(cluster.data_dir), "--port", "0",
            "--pod-cidr", cluster.network.node_cidr(index),
            "--tls-cert-file", str(pair.cert), "--tls-private-key-file", str(pair.key),
            "--client-ca-file", str(client_ca),
        ]  # fmt: skip
        self.log = logs / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.args, stdout=out, stderr=out)

    def kill(self, sig: signal.Signals = signal.SIGKILL) -> None:
        assert self.process is not None
        self.process.send_signal(sig)
        self.process.wait(timeout=15)


def ready(cluster: Cluster, node: str) -> str:
    conditions = get(cluster, "node", node)["status"].get("conditions") or []
    return str(next((c["status"] for c in conditions if c["type"] == "Ready"), ""))


def pod(name: str, node: str, command: list[str]) -> str:
    spec = {"nodeName": node, "automountServiceAccountToken": False}
    spec["containers"] = [{"name": "c", "image": "busybox", "command": command}]  # type: ignore[assignment]
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})


def create(cluster: Cluster, manifest: str) -> None:
    result = subprocess.run(
        ["kubectl", "--kubeconfig", str(cluster.kubeconfig), "create", "-f", "-"],
        input=manifest, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def phase(cluster: Cluster, name: str) -> Any:
    return get(cluster, "pod", name)["status"].get("phase")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    running = start_up(tmp_path, free_port(), store=None, flags=["--nodes", "0", *FLAGS])
    running.wait_ready()
    yield running
    if running.process.poll() is None:
        running.stop()


def test_a_dead_agent_makes_its_node_not_ready_and_a_restarted_one_recovers(
    cluster: Cluster, tmp_path: Path
) -> None:
    agent = Agent(cluster, "solo", "fake", tmp_path, 0)
    agent.start()
    try:
        eventually(lambda: ready(cluster, "solo") == "True", "node solo Ready")
        create(cluster, pod("sim", "solo", ["anything"]))
        eventually(lambda: phase(cluster, "sim") == "Running", "the simulated pod to run")
        agent.kill()
        eventually(lambda: ready(cluster, "solo") == "Unknown", "node solo NotReady (Unknown)", timeout=20)
        agent.start()
        eventually(lambda: ready(cluster, "solo") == "True", "node solo Ready again")
        eventually(lambda: phase(cluster, "sim") == "Running", "the pod running again")
    finally:
        agent.kill()


def test_pods_keep_running_while_the_apiserver_is_down_and_the_agent_resyncs(
    cluster: Cluster, tmp_path: Path
) -> None:
    agent = Agent(cluster, "proc", "process", tmp_path, 1)
    agent.start()
    marker = f"survivor-{os.getpid()}-{time.monotonic_ns()}"
    try:
        eventually(lambda: ready(cluster, "proc") == "True", "node proc Ready")
        # not "sleep 600 # marker": busybox's sh execs a lone command, and the marker would go
        create(cluster, pod("survivor", "proc", ["sh", "-c", f"sleep 600; : {marker}"]))
        eventually(lambda: phase(cluster, "survivor") == "Running", "the pod to run")
        cluster.stop()
        time.sleep(3)
        assert running_commands(marker), "the container stopped with the apiserver"
        assert agent.process is not None and agent.process.poll() is None
        restarted = start_up(
            tmp_path, cluster.port, data_dir=cluster.data_dir, store=None, flags=["--nodes", "0", *FLAGS]
        )
        try:
            restarted.wait_ready()
            eventually(lambda: ready(restarted, "proc") == "True", "node proc Ready after the restart")
            assert phase(restarted, "survivor") == "Running"
            assert len(running_commands(marker)) == 1  # the same container, not a second one
            ok(restarted, "delete", "pod", "survivor", "--timeout=30s")
            eventually(lambda: not running_commands(marker), "the container to stop")
        finally:
            restarted.stop()
    finally:
        agent.kill(signal.SIGTERM)

"""``kubectl top`` and the eviction manager inside ``up --nodes 1 --fake-nodes 2``, with real
kubectl: node and pod usage through ``metrics.k8s.io`` (kubectl 1.27 too, when installed), and a
simulated pod using more memory than its node has being evicted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster import Cluster, running_up
from tests.nodeagent.e2e.test_agent_kubectl import eventually, get, ok, phase, run_pod

pytestmark = pytest.mark.e2e
KUBECTL = shutil.which("kubectl") or "kubectl"
VERSIONS = Path(os.path.realpath(KUBECTL)).parent


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("top"), flags=["--nodes", "1", "--fake-nodes", "2"])


def top(cluster: Cluster, *args: str, binary: str = KUBECTL) -> dict[str, list[str]]:
    """``kubectl top ...`` as rows by name (the header row under ``NAME``); {} on failure."""
    result = subprocess.run(
        [binary, "--kubeconfig", str(cluster.kubeconfig), "top", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode != 0:
        return {}
    return {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line.strip()}


@pytest.mark.parametrize("version", ["", "1.27"])
def test_top_node_lists_every_node(cluster: Cluster, version: str) -> None:
    binary = str(VERSIONS / f"kubectl.{version}") if version else KUBECTL
    if not Path(binary).exists() and version:
        pytest.skip(f"no {binary}")
    rows = eventually(
        lambda: (r := top(cluster, "node", binary=binary)) and {"node-1", "fake-1", "fake-2"} <= set(r) and r,
        "kubectl top node with every node",
        timeout=60,
    )
    assert rows["NAME"][:2] == ["CPU(cores)", "CPU%"] or rows["NAME"][0].startswith("CPU")
    cpu, cpu_percent, memory, memory_percent = rows["node-1"][:4]
    assert cpu.endswith("m") and cpu_percent.endswith("%")
    assert memory.endswith("Mi") and int(memory[:-2]) > 0 and memory_percent.endswith("%")


def test_top_pod_shows_running_pods(cluster: Cluster) -> None:
    run_pod(
        cluster, "sleeper", {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]}
    )
    env = [
        {"name": "FAKE_MEMORY_BYTES", "value": str(300 * 1024 * 1024)},
        {"name": "FAKE_CPU_MILLIS", "value": "250"},
    ]
    run_pod(cluster, "simulated", {"containers": [{"name": "c", "image": "img", "env": env}]}, node="fake-1")
    eventually(
        lambda: phase(cluster, "sleeper") == "Running" and phase(cluster, "simulated") == "Running", "Running"
    )
    rows = eventually(
        lambda: (r := top(cluster, "pod")) and {"sleeper", "simulated"} <= set(r) and r,
        "kubectl top pod",
        timeout=60,
    )
    assert rows["simulated"] == ["250m", "300Mi"]
    assert rows["sleeper"][0].endswith("m") and rows["sleeper"][1].endswith("Mi")
    containers = top(cluster, "pod", "simulated", "--containers")
    assert containers["simulated"] == ["c", "250m", "300Mi"]
    metrics = json.loads(
        ok(cluster, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/simulated")
    )
    [usage] = metrics["containers"]
    assert usage["name"] == "c" and usage["usage"]["memory"] == "307200Ki"
    cpu = usage["usage"]["cpu"]
    assert cpu.endswith("n") and abs(int(cpu[:-1]) - 250_000_000) < 1_000  # synthetic: 250m, float-rounded


def test_a_pod_using_more_memory_than_its_node_has_is_evicted(cluster: Cluster) -> None:
    env = [{"name": "FAKE_MEMORY_BYTES", "value": str(32 * 1024**3)}]  # all of fake-2's 32Gi
    run_pod(cluster, "hog", {"containers": [{"name": "big", "image": "img", "env": env}]}, node="fake-2")

    def evicted() -> bool:
        return ok(cluster, "get", "pod", "hog", "-o", "jsonpath={.status.reason}") == "Evicted"

    eventually(evicted, "the hog evicted", timeout=60)
    described = ok(cluster, "describe", "pod", "hog")
    assert "Status:           Failed" in described and "Reason:           Evicted" in described
    assert "The node was low on resource: memory." in described
    # the STATUS column shows the killed container's reason, as upstream's since 1.22
    # (kubernetes/kubernetes#105467): the pod's reason only while no container status says more
    columns = ok(
        cluster, "get", "pod", "hog", "-o", "custom-columns=PHASE:.status.phase,REASON:.status.reason"
    )
    assert columns.split("\n")[1].split() == ["Failed", "Evicted"]
    status = get(cluster, "pod", "hog")["status"]
    assert (status["phase"], status["reason"]) == ("Failed", "Evicted")
    assert status["message"].startswith(
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 0. "
        "Container big was using 32Gi, request is 0, has larger consumption of memory."
    )
    assert any(c["type"] == "DisruptionTarget" for c in status["conditions"])
    events = get(cluster, "events", "--field-selector", "involvedObject.name=hog")["items"]
    assert any(e["reason"] == "Evicted" and e["type"] == "Warning" for e in events)

    def pressure() -> bool:
        conditions = get(cluster, "node", "fake-2")["status"]["conditions"]
        return any(c["type"] == "MemoryPressure" and c["status"] == "True" for c in conditions)

    eventually(pressure, "fake-2 under MemoryPressure", timeout=30)
    taints = eventually(
        lambda: [t["key"] for t in get(cluster, "node", "fake-2")["spec"].get("taints") or []
                 if t["key"] == "node.kubernetes.io/memory-pressure"],
        "the memory-pressure taint", timeout=30,
    )  # fmt: skip
    assert taints == ["node.kubernetes.io/memory-pressure"]

"""PodDisruptionBudgets on ``up --nodes 2`` with real kubectl: ``kubectl create pdb``, the status
the disruption controller writes, and ``kubectl drain`` evicting one pod at a time (retrying
on the 429 while the budget allows nothing) until the replacements are Ready on the other node."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.clients.support import READY_TIMEOUT
from tests.cluster import KUBECTL, KUBECTL_DIR, Cluster, eventually, free_port, kubectl, start_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e
POD_TIMEOUT = 90.0
RETRYING = "(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(tmp_path_factory.mktemp("disruption"), free_port(), flags=["--nodes", "2"])
    try:
        running.wait_ready(timeout=READY_TIMEOUT)
        eventually(lambda: kubectl(running, "get", "serviceaccount", "default").returncode == 0, "default SA")
        eventually(lambda: len(get(running, "nodes")["items"]) == 2, "two nodes")
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def ready(pod: dict[str, Any]) -> bool:
    conditions = pod.get("status", {}).get("conditions") or []
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def web_pods(cluster: Cluster) -> list[dict[str, Any]]:
    pods = get(cluster, "pods", "-l", "app=web")["items"]
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def budget_status(cluster: Cluster, name: str) -> dict[str, Any]:
    return dict(get(cluster, "pdb", name).get("status") or {})


def test_a_budget_selecting_nothing_expects_no_pods(cluster: Cluster) -> None:
    create = ["create", "poddisruptionbudget", "empty", "--selector=app=none", "--min-available=1"]
    created = kubectl(cluster, *create, binary=str(KUBECTL_DIR / "kubectl.1.33"))  # the kubectl
    assert (created.returncode, created.stdout.strip()) == (0, "poddisruptionbudget.policy/empty created"), (
        created.stderr
    )
    status = eventually(lambda: budget_status(cluster, "empty").get("observedGeneration") == 1
                        and budget_status(cluster, "empty"), "the empty budget observed")  # fmt: skip
    assert (status["expectedPods"], status["disruptionsAllowed"]) == (0, 0)
    events = eventually(
        lambda: ok(cluster, "get", "events", "--field-selector=involvedObject.name=empty"), "the NoPods event"
    )
    assert "NoPods" in events and "No matching pods found" in events
    table = ok(cluster, "get", "pdb", "empty").splitlines()
    assert table[0].split() == [
        "NAME",
        "MIN",
        "AVAILABLE",
        "MAX",
        "UNAVAILABLE",
        "ALLOWED",
        "DISRUPTIONS",
        "AGE",
    ]
    assert table[1].split()[:4] == ["empty", "1", "N/A", "0"]


def test_drain_evicts_one_pod_at_a_time_within_the_budget(cluster: Cluster) -> None:
    nodes = sorted(n["metadata"]["name"] for n in get(cluster, "nodes")["items"])
    drained, other = nodes
    ok(cluster, "cordon", other)  # both pods on the node to drain: the budget must make drain wait
    ok(cluster, "create", "deployment", "web", "--image=nginx", "--replicas=2")
    eventually(
        lambda: len([p for p in web_pods(cluster) if ready(p) and p["spec"].get("nodeName") == drained]) == 2,
        "two Ready pods on the drained node",
        timeout=POD_TIMEOUT,
    )
    ok(cluster, "uncordon", other)
    ok(cluster, "create", "pdb", "web", "--selector=app=web", "--min-available=1")
    eventually(lambda: budget_status(cluster, "web").get("disruptionsAllowed") == 1, "one disruption allowed")

    cache = cluster.data_dir.parent / "kube-cache"
    drain = [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "--cache-dir", str(cache), "drain", drained]
    drain += ["--ignore-daemonsets", "--delete-emptydir-data", "--timeout=240s"]
    done = subprocess.run(drain, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert RETRYING in done.stderr  # the second pod waited for the first one's replacement
    assert f"node/{drained} drained" in done.stdout

    pods = web_pods(cluster)
    assert len(pods) == 2 and all(p["spec"]["nodeName"] == other for p in pods)
    eventually(
        lambda: all(ready(p) for p in web_pods(cluster)), "the replacements Ready", timeout=POD_TIMEOUT
    )
    node = get(cluster, "node", drained)
    assert node["spec"].get("unschedulable") is True
    ok(cluster, "uncordon", drained)
    assert not get(cluster, "node", drained)["spec"].get("unschedulable")
    status = eventually(lambda: budget_status(cluster, "web").get("disruptionsAllowed") == 1
                        and budget_status(cluster, "web"), "the budget restored")  # fmt: skip
    assert (status["currentHealthy"], status["desiredHealthy"], status["expectedPods"]) == (2, 1, 2)

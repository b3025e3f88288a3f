"""DaemonSets on ``up --nodes 2`` with real kubectl: one Ready pod per node, a node that joins
later (a third ``node-agent`` process) gets one, a tainted node gets none without a
toleration, and ``kubectl rollout status/history/undo ds`` after an image change."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import Cluster, eventually, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok
from tests.nodeagent.e2e.test_agent_process import Agent

pytestmark = pytest.mark.e2e
NS = "default"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("daemonsets"), flags=["--nodes", "2"])


def daemon_set(name: str, image: str = "nginx:1.25", **spec: Any) -> str:
    labels = {"app": name}
    pod_spec = {"containers": [{"name": "web", "image": image}], "automountServiceAccountToken": False}
    pod_spec.update(spec)
    return json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": name},
            "spec": {
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": pod_spec},
            },
        }
    )


def ready_pods_by_node(cluster: Cluster, name: str) -> dict[str, list[str]]:
    by_node: dict[str, list[str]] = {}
    for pod in get(cluster, "pods", "-l", f"app={name}")["items"]:
        if pod["metadata"].get("deletionTimestamp"):
            continue
        ready = any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in (pod.get("status") or {}).get("conditions") or []
        )
        if ready:
            by_node.setdefault(pod["spec"].get("nodeName", ""), []).append(pod["metadata"]["name"])
    return by_node


def node_names(cluster: Cluster) -> set[str]:
    return {n["metadata"]["name"] for n in get(cluster, "nodes")["items"]}


def one_ready_pod_on(cluster: Cluster, name: str, nodes: set[str]) -> bool:
    by_node = ready_pods_by_node(cluster, name)
    return set(by_node) == nodes and all(len(pods) == 1 for pods in by_node.values())


def test_one_ready_pod_per_node_and_a_joining_node_gets_one(cluster: Cluster, tmp_path: Path) -> None:
    nodes = {"node-1", "node-2"}
    eventually(lambda: node_names(cluster) == nodes, "both nodes to register", timeout=60)
    ok(cluster, "apply", "-f", "-", stdin=daemon_set("every"))
    eventually(lambda: one_ready_pod_on(cluster, "every", nodes), "one Ready pod per node", timeout=60)
    out = ok(cluster, "rollout", "status", "ds/every", "--timeout=60s")
    assert 'daemon set "every" successfully rolled out' in out
    status = get(cluster, "ds", "every")["status"]
    assert (status["desiredNumberScheduled"], status["numberReady"], status["numberAvailable"]) == (2, 2, 2)
    pod = get(cluster, "pods", "-l", "app=every")["items"][0]
    terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [pod["spec"]["nodeName"]]
    assert pod["metadata"]["labels"]["pod-template-generation"] == "1"

    agent = Agent(cluster, "node-3", "process", tmp_path, 2)
    agent.start()
    try:
        eventually(lambda: "node-3" in node_names(cluster), "node-3 to register", timeout=60)
        eventually(
            lambda: one_ready_pod_on(cluster, "every", {"node-1", "node-2", "node-3"}),
            "a Ready pod on the node that joined",
            timeout=60,
        )
        eventually(lambda: get(cluster, "ds", "every")["status"]["numberReady"] == 3, "numberReady 3")

        ok(cluster, "taint", "nodes", "node-3", "dedicated=special:NoSchedule")
        ok(cluster, "apply", "-f", "-", stdin=daemon_set("picky"))
        tolerant = daemon_set("tolerant", tolerations=[{"key": "dedicated", "operator": "Exists"}])
        ok(cluster, "apply", "-f", "-", stdin=tolerant)
        eventually(
            lambda: one_ready_pod_on(cluster, "tolerant", node_names(cluster)), "tolerant everywhere", 60
        )
        eventually(
            lambda: one_ready_pod_on(cluster, "picky", {"node-1", "node-2"}), "picky off the tainted node"
        )
        picky = get(cluster, "ds", "picky")["status"]
        assert (picky["desiredNumberScheduled"], picky["currentNumberScheduled"]) == (2, 2)
        # NoSchedule only keeps new pods off: the pod already there stays
        assert "node-3" in ready_pods_by_node(cluster, "every")
    finally:
        agent.kill()
        ok(cluster, "taint", "nodes", "node-3", "dedicated-")
        ok(cluster, "delete", "node", "node-3")
        ok(cluster, "delete", "ds", "every", "picky", "tolerant")


def images(cluster: Cluster, name: str) -> set[str]:
    pods = get(cluster, "pods", "-l", f"app={name}")["items"]
    return {p["spec"]["containers"][0]["image"] for p in pods if not p["metadata"].get("deletionTimestamp")}


def test_rollout_status_history_and_undo_after_an_image_change(cluster: Cluster) -> None:
    ok(cluster, "apply", "-f", "-", stdin=daemon_set("roll"))
    ok(cluster, "rollout", "status", "ds/roll", "--timeout=60s")
    ok(cluster, "set", "image", "ds/roll", "web=nginx:1.26")
    out = ok(cluster, "rollout", "status", "ds/roll", "--timeout=90s")
    assert 'daemon set "roll" successfully rolled out' in out
    assert images(cluster, "roll") == {"nginx:1.26"}
    history = ok(cluster, "rollout", "history", "ds/roll")
    assert "REVISION" in history and [
        line.split()[0] for line in history.splitlines()[2:] if line.strip()
    ] == [
        "1",
        "2",
    ]
    detail = ok(cluster, "rollout", "history", "ds/roll", "--revision=1")
    assert "nginx:1.25" in detail

    ok(cluster, "rollout", "undo", "ds/roll")
    ok(cluster, "rollout", "status", "ds/roll", "--timeout=90s")
    eventually(lambda: images(cluster, "roll") == {"nginx:1.25"}, "the pods back on the first image", 60)
    history = ok(cluster, "rollout", "history", "ds/roll")
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["2", "3"]
    revisions = get(cluster, "controllerrevisions", "-l", "app=roll")["items"]
    assert {r["revision"] for r in revisions} == {2, 3}
    ds = get(cluster, "ds", "roll")
    assert ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "3"
    assert ds["status"]["updatedNumberScheduled"] == ds["status"]["desiredNumberScheduled"] == 2
    ok(cluster, "delete", "ds", "roll")

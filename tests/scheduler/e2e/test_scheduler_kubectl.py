"""The scheduler inside ``up`` with real kubectl: Node objects made by the test (no node
agents yet), pods placed by nodeSelector, taints and tolerations, cordon and spreading;
``FailedScheduling`` and ``PodScheduled=False`` with upstream's message when nothing fits; pods
of another scheduler left alone; ``/debug/pods/NS/NAME`` says why each node lost."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.cluster import Cluster, free_port, kubectl, start_up
from tests.controllers.e2e.test_controllers_kubectl import eventually, get, namespace, ok, pods

pytestmark = pytest.mark.e2e
NODES = ("n1", "n2", "n3")


def make_node(
    admin: httpx.Client,
    name: str,
    *,
    cpu: str = "4",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
) -> None:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
    }
    if taints:
        body["spec"] = {"taints": taints}
    created = admin.post("/api/v1/nodes", json=body)
    assert created.status_code == 201, created.text
    resources = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    status = {
        "capacity": resources,
        "allocatable": resources,
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "reason": "KubeletReady",
                "message": "kubelet is posting ready status",
                "lastHeartbeatTime": now,
                "lastTransitionTime": now,
            }
        ],
    }
    written = admin.put(f"/api/v1/nodes/{name}/status", json={**created.json(), "status": status})
    assert written.status_code == 200, written.text


@pytest.fixture(scope="module")
def scheduler_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, scheduler_port: int) -> Iterator[Cluster]:
    # no heartbeats come from these nodes: keep the node lifecycle controller from tainting them
    flags = ["--node-monitor-grace-period=10m", f"--scheduler-secure-port={scheduler_port}"]
    running = start_up(tmp_path_factory.mktemp("scheduler"), free_port(), flags=flags)
    running.wait_ready()
    with running.admin_client() as admin:
        make_node(admin, "n1", labels={"disk": "ssd"})
        make_node(admin, "n2")
        make_node(admin, "n3", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    yield running
    if running.process.poll() is None:
        running.stop()


def placed(cluster: Cluster, ns: str, count: int) -> list[dict[str, Any]]:
    return eventually(
        lambda: (
            (found := pods(cluster, ns))
            and len(found) == count
            and all(p["spec"].get("nodeName") for p in found)
            and found
        ),
        f"{count} pods bound to nodes",
    )


def run_pod(cluster: Cluster, ns: str, name: str, **spec: Any) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }
    manifest = cluster.data_dir.parent / f"{ns}-{name}.json"
    manifest.write_text(json.dumps(pod))
    ok(cluster, "-n", ns, "create", "-f", str(manifest))


def test_deployment_pods_are_bound_and_spread_over_the_untainted_nodes(cluster: Cluster) -> None:
    ns = namespace(cluster, "spread")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=6")
    bound = placed(cluster, ns, 6)
    nodes = [p["spec"]["nodeName"] for p in bound]
    assert set(nodes) == {"n1", "n2"}  # n3's taint is not tolerated
    assert sorted(nodes.count(n) for n in ("n1", "n2")) == [3, 3]
    events = get(cluster, "-n", ns, "events")["items"]
    scheduled = [e for e in events if e["reason"] == "Scheduled"]
    assert scheduled and all(e["message"].startswith(f"Successfully assigned {ns}/web-") for e in scheduled)
    assert {e["source"].get("component") or e.get("reportingComponent") for e in scheduled} == {
        "default-scheduler"
    }


def test_node_selector_and_tolerations(cluster: Cluster) -> None:
    ns = namespace(cluster, "placement")
    run_pod(cluster, ns, "ssd", nodeSelector={"disk": "ssd"})
    toleration = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
    run_pod(cluster, ns, "gpu", nodeSelector={"kubernetes.io/hostname": "n3"}, tolerations=[toleration])
    bound = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in placed(cluster, ns, 2)}
    assert bound == {"ssd": "n1", "gpu": "n3"}


def test_a_pod_that_fits_nowhere_says_why(cluster: Cluster, scheduler_port: int) -> None:
    ns = namespace(cluster, "toobig")
    run_pod(
        cluster,
        ns,
        "big",
        containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "64"}}}],
    )
    expected_start = (
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu."
    )

    def condition() -> dict[str, Any] | None:
        pod = get(cluster, "-n", ns, "pod", "big")
        return next((c for c in pod["status"].get("conditions", []) if c["type"] == "PodScheduled"), None)

    scheduled = eventually(condition, "the PodScheduled condition")
    assert (scheduled["status"], scheduled["reason"]) == ("False", "Unschedulable")
    assert scheduled["message"].startswith(expected_start), scheduled["message"]
    failed = eventually(
        lambda: [e for e in get(cluster, "-n", ns, "events")["items"] if e["reason"] == "FailedScheduling"],
        "a FailedScheduling event",
    )
    assert failed[0]["type"] == "Warning" and failed[0]["message"] == scheduled["message"]
    described = ok(cluster, "-n", ns, "describe", "pod", "big")
    assert "FailedScheduling" in described and "Insufficient cpu" in described
    explained = httpx.get(f"http://127.0.0.1:{scheduler_port}/debug/pods/{ns}/big", timeout=5).json()
    assert explained["selectedNode"] == ""
    assert explained["filter"]["n1"]["plugin"] == "NodeResourcesFit"
    assert explained["filter"]["n1"]["reasons"] == ["Insufficient cpu"]
    assert explained["filter"]["n3"]["plugin"] == "TaintToleration"


def test_cordoned_nodes_get_no_new_pods(cluster: Cluster, scheduler_port: int) -> None:
    ns = namespace(cluster, "cordon")
    ok(cluster, "cordon", "n1")
    try:
        ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=3")
        assert {p["spec"]["nodeName"] for p in placed(cluster, ns, 3)} == {"n2"}
        name = pods(cluster, ns)[0]["metadata"]["name"]
        explained = httpx.get(f"http://127.0.0.1:{scheduler_port}/debug/pods/{ns}/{name}", timeout=5).json()
        assert explained["selectedNode"] == "n2"
        assert explained["filter"]["n1"]["reasons"] == ["node(s) were unschedulable"]
    finally:
        ok(cluster, "uncordon", "n1")


def test_pods_of_another_scheduler_are_left_alone(cluster: Cluster) -> None:
    ns = namespace(cluster, "other")
    run_pod(cluster, ns, "mine", schedulerName="my-scheduler")
    run_pod(cluster, ns, "ours")
    placed_names = eventually(
        lambda: {p["metadata"]["name"] for p in pods(cluster, ns) if p["spec"].get("nodeName")}, "a bound pod"
    )
    assert placed_names == {"ours"}
    mine = get(cluster, "-n", ns, "pod", "mine")
    assert not mine["spec"].get("nodeName") and not mine["status"].get("conditions")
    assert not [e for e in get(cluster, "-n", ns, "events")["items"] if e["involvedObject"]["name"] == "mine"]
    assert kubectl(cluster, "-n", ns, "get", "pod", "mine").returncode == 0


def test_a_high_priority_pod_preempts_a_lower_priority_one(cluster: Cluster) -> None:
    ns = namespace(cluster, "preempt")
    toleration = {"key": "pool", "operator": "Equal", "value": "preempt", "effect": "NoSchedule"}
    with cluster.admin_client() as admin:  # tainted: the other tests' pods stay off it
        taint = {"key": "pool", "value": "preempt", "effect": "NoSchedule"}
        make_node(admin, "n4", cpu="1", labels={"pool": "preempt"}, taints=[taint])
    try:
        ok(cluster, "create", "priorityclass", "high", "--value=1000")
        placement = {"nodeSelector": {"pool": "preempt"}, "tolerations": [toleration]}
        resources = {"requests": {"cpu": "400m"}}
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "low"},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "low"}},
                "template": {
                    "metadata": {"labels": {"app": "low"}},
                    "spec": {
                        # no node agent here: a pod bound to n4 is deleted at once only without grace
                        "terminationGracePeriodSeconds": 0,
                        "containers": [{"name": "c", "image": "nginx", "resources": resources}],
                        **placement,
                    },
                },
            },
        }
        manifest = cluster.data_dir.parent / f"{ns}-low.json"
        manifest.write_text(json.dumps(deployment))
        ok(cluster, "-n", ns, "create", "-f", str(manifest))
        low = placed(cluster, ns, 2)
        assert {p["spec"]["nodeName"] for p in low} == {"n4"}
        run_pod(
            cluster,
            ns,
            "high",
            priorityClassName="high",
            containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "600m"}}}],
            **placement,
        )
        high = eventually(
            lambda: (pod := get(cluster, "-n", ns, "pod", "high"))["spec"].get("nodeName") and pod,
            "the high-priority pod bound",
        )
        assert high["spec"]["nodeName"] == "n4" and high["spec"]["priority"] == 1000
        assert high["status"].get("nominatedNodeName") == "n4"
        preempted = eventually(
            lambda: [e for e in get(cluster, "-n", ns, "events")["items"] if e["reason"] == "Preempted"],
            "a Preempted event",
        )
        assert len(preempted) == 1, preempted
        assert preempted[0]["message"] == f"Preempted by pod {high['metadata']['uid']} on node n4"
        victim = preempted[0]["involvedObject"]["name"]
        assert victim in {p["metadata"]["name"] for p in low}
        current = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in pods(cluster, ns)}
        assert victim not in current
        on_n4 = sorted(name for name, node in current.items() if node == "n4")
        assert len(on_n4) == 2 and "high" in on_n4  # the replacement low pod waits: no room left
    finally:
        ok(cluster, "delete", "node", "n4")


def test_pod_affinity_namespace_selector_sees_namespace_labels(cluster: Cluster) -> None:
    """A term's namespaceSelector matches the labels of the other pod's namespace (the
    scheduler's namespace informer): the follower joins the db on its node, and a selector no
    namespace matches leaves a pod Pending with upstream's reason."""
    team = namespace(cluster, "team-a")
    ok(cluster, "label", "namespace", team, "team=a")
    run_pod(cluster, team, "db", nodeSelector={"kubernetes.io/hostname": "n2"})
    ns = namespace(cluster, "affinity-ns")

    def affinity(selected_team: str) -> dict[str, Any]:
        term = {
            "labelSelector": {"matchLabels": {"run": "db"}},
            "namespaceSelector": {"matchLabels": {"team": selected_team}},
            "topologyKey": "kubernetes.io/hostname",
        }
        return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}

    ok(cluster, "-n", team, "label", "pod", "db", "run=db")
    run_pod(cluster, ns, "follower", affinity=affinity("a"))
    run_pod(cluster, ns, "stray", affinity=affinity("b"))
    follower = eventually(
        lambda: get(cluster, "-n", ns, "pod", "follower")["spec"].get("nodeName"), "the follower bound"
    )
    assert follower == "n2"
    condition = eventually(
        lambda: next(
            (
                c
                for c in get(cluster, "-n", ns, "pod", "stray")["status"].get("conditions", [])
                if c["type"] == "PodScheduled" and c["status"] == "False"
            ),
            None,
        ),
        "the stray pod reported unschedulable",
    )
    assert "didn't match pod affinity rules" in condition["message"]
    assert not get(cluster, "-n", ns, "pod", "stray")["spec"].get("nodeName")

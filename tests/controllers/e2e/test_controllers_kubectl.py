"""The controller-manager inside ``up``, driven with real kubectl as a learner would: a
Deployment becomes a ReplicaSet and pods, rollouts, history and undo, scaling, cascading
deletes, namespace deletion, default service accounts, the published root CA and a lost node.

Pods are reported Ready by ``standin.ReadyPods`` (no node agents yet; issue 7)."""

from __future__ import annotations

import json
import ssl
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import yaml

from tests.cluster import Cluster, eventually, free_port, kubectl, start_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok
from tests.controllers.e2e.standin import ReadyPods

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    flags = ["--node-monitor-period=1s", "--node-monitor-grace-period=3s"]
    running = start_up(tmp_path_factory.mktemp("controllers"), free_port(), flags=flags)
    running.wait_ready()
    yield running
    if running.process.poll() is None:
        running.stop()


def namespace(cluster: Cluster, name: str) -> str:
    ok(cluster, "create", "namespace", name)
    eventually(
        lambda: kubectl(cluster, "-n", name, "get", "serviceaccount", "default").returncode == 0,
        f"the default service account in {name}",
    )
    return name


def pods(cluster: Cluster, ns: str, selector: str = "") -> list[dict[str, Any]]:
    args = ["-n", ns, "pods"] + (["-l", selector] if selector else [])
    return list(get(cluster, *args)["items"])


def live(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def test_every_namespace_gets_a_default_service_account(cluster: Cluster) -> None:
    ns = namespace(cluster, "sa-test")
    ok(cluster, "-n", ns, "delete", "serviceaccount", "default")
    eventually(
        lambda: kubectl(cluster, "-n", ns, "get", "serviceaccount", "default").returncode == 0,
        "the default service account to be re-created",
    )


def test_every_namespace_gets_the_root_ca_that_verifies_the_apiserver(cluster: Cluster) -> None:
    ns = namespace(cluster, "root-ca")
    show = ("-n", ns, "get", "configmap", "kube-root-ca.crt", "-o", "yaml")
    configmap = yaml.safe_load(eventually(lambda: ok(cluster, *show), "kube-root-ca.crt"))
    bundle = configmap["data"]["ca.crt"]
    assert configmap["metadata"]["annotations"]["kubernetes.io/description"].startswith(
        "Contains a CA bundle that can be used to verify the kube-apiserver"
    )
    with httpx.Client(verify=ssl.create_default_context(cadata=bundle), timeout=5) as client:
        assert client.get(f"{cluster.url}/readyz").status_code == 200  # the server's chain verifies

    ok(cluster, "-n", ns, "patch", "configmap", "kube-root-ca.crt", "-p", '{"data":{"ca.crt":"tampered"}}')
    eventually(
        lambda: yaml.safe_load(ok(cluster, *show))["data"] == {"ca.crt": bundle},
        "the edited CA to be rewritten",
    )
    ok(cluster, "-n", ns, "delete", "configmap", "kube-root-ca.crt")
    eventually(
        lambda: yaml.safe_load(ok(cluster, *show))["data"] == {"ca.crt": bundle},
        "kube-root-ca.crt to be re-created",
    )


def test_deployment_becomes_a_replicaset_and_owned_pods(cluster: Cluster) -> None:
    ns = namespace(cluster, "web-create")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=3")
    replicasets = eventually(lambda: get(cluster, "-n", ns, "replicasets")["items"], "a replicaset")
    assert len(replicasets) == 1
    rs = replicasets[0]
    deployment = get(cluster, "-n", ns, "deployment", "web")
    [owner] = rs["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "Deployment",
        "web",
        deployment["metadata"]["uid"],
        True,
    )
    hash_label = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{hash_label}"
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    made = eventually(lambda: len(pods(cluster, ns)) == 3 and pods(cluster, ns), "three pods")
    for pod in made:
        [ref] = pod["metadata"]["ownerReferences"]
        assert (ref["kind"], ref["name"], ref["uid"]) == (
            "ReplicaSet",
            rs["metadata"]["name"],
            rs["metadata"]["uid"],
        )
        assert pod["metadata"]["name"].startswith(rs["metadata"]["name"] + "-")
        assert pod["metadata"]["labels"]["pod-template-hash"] == hash_label
    reasons = eventually(
        lambda: (
            {"ScalingReplicaSet", "SuccessfulCreate"}
            <= {e["reason"] for e in get(cluster, "-n", ns, "events")["items"]}
        ),
        "ScalingReplicaSet and SuccessfulCreate events",
    )
    assert reasons
    described = ok(cluster, "-n", ns, "describe", "deployment", "web")
    assert f"Scaled up replica set web-{hash_label}" in described and "from 0 to 3" in described


def test_a_deleted_pod_is_replaced(cluster: Cluster) -> None:
    ns = namespace(cluster, "web-replace")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=2")
    first = eventually(lambda: len(pods(cluster, ns)) == 2 and pods(cluster, ns), "two pods")
    victim = first[0]["metadata"]["name"]
    ok(cluster, "-n", ns, "delete", "pod", victim)
    names = eventually(
        lambda: (
            (n := {p["metadata"]["name"] for p in live(pods(cluster, ns))})
            and len(n) == 2
            and victim not in n
            and n
        ),
        "a replacement pod",
    )
    assert victim not in names


def test_rollout_status_history_undo_and_scale(cluster: Cluster) -> None:
    ns = namespace(cluster, "web-rollout")
    with ReadyPods(cluster, ns):
        ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx:1.0", "--replicas=3")
        out = ok(cluster, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        assert 'deployment "web" successfully rolled out' in out
        ok(cluster, "-n", ns, "set", "image", "deployment/web", "nginx=nginx:2.0")
        out = ok(cluster, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        assert 'deployment "web" successfully rolled out' in out
        replicasets = get(cluster, "-n", ns, "replicasets")["items"]
        assert sorted(rs["spec"]["replicas"] for rs in replicasets) == [0, 3]
        history = ok(cluster, "-n", ns, "rollout", "history", "deployment/web")
        assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["1", "2"]
        ok(cluster, "-n", ns, "rollout", "undo", "deployment/web")
        ok(cluster, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        deployment = get(cluster, "-n", ns, "deployment", "web")
        assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.0"
        assert deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
        assert len(get(cluster, "-n", ns, "replicasets")["items"]) == 2  # the old RS was reused
        ok(cluster, "-n", ns, "scale", "deployment/web", "--replicas=5")
        ok(cluster, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        status = get(cluster, "-n", ns, "deployment", "web")["status"]
        assert (
            status["replicas"],
            status["updatedReplicas"],
            status["readyReplicas"],
            status["availableReplicas"],
        ) == (5, 5, 5, 5)
        conditions = {c["type"]: c["reason"] for c in status["conditions"]}
        assert conditions == {
            "Available": "MinimumReplicasAvailable",
            "Progressing": "NewReplicaSetAvailable",
        }


def test_rollout_pause_resume_and_restart(cluster: Cluster) -> None:
    ns = namespace(cluster, "web-pause")
    with ReadyPods(cluster, ns):
        ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=2")
        ok(cluster, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        ok(cluster, "-n", ns, "rollout", "pause", "deployment/web")
        ok(cluster, "-n", ns, "set", "image", "deployment/web", "nginx=nginx:2")
        eventually(
            lambda: any(
                c["reason"] == "DeploymentPaused"
                for c in get(cluster, "-n", ns, "deployment", "web")["status"]["conditions"]
            ),
            "the DeploymentPaused condition",
        )
        assert len(get(cluster, "-n", ns, "replicasets")["items"]) == 1  # paused: no rollout
        ok(cluster, "-n", ns, "rollout", "resume", "deployment/web")
        ok(cluster, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        assert len(get(cluster, "-n", ns, "replicasets")["items"]) == 2
        ok(cluster, "-n", ns, "rollout", "restart", "deployment/web")
        ok(cluster, "-n", ns, "rollout", "status", "deployment/web", "--timeout=30s")
        assert len(get(cluster, "-n", ns, "replicasets")["items"]) == 3


def test_deleting_a_deployment_removes_its_replicasets_and_pods(cluster: Cluster) -> None:
    ns = namespace(cluster, "web-delete")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=2")
    eventually(lambda: len(pods(cluster, ns)) == 2, "two pods")
    ok(cluster, "-n", ns, "delete", "deployment", "web")
    eventually(
        lambda: not get(cluster, "-n", ns, "replicasets")["items"] and not pods(cluster, ns),
        "the replicaset and pods to be collected",
    )


def test_foreground_deletion_waits_for_dependents(cluster: Cluster) -> None:
    ns = namespace(cluster, "web-foreground")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=2")
    eventually(lambda: len(pods(cluster, ns)) == 2, "two pods")
    ok(cluster, "-n", ns, "delete", "deployment", "web", "--cascade=foreground", "--timeout=30s")
    assert not get(cluster, "-n", ns, "replicasets")["items"]
    assert not pods(cluster, ns)


def test_orphan_cascade_keeps_the_replicaset(cluster: Cluster) -> None:
    ns = namespace(cluster, "web-orphan")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=2")
    eventually(lambda: len(pods(cluster, ns)) == 2, "two pods")
    ok(cluster, "-n", ns, "delete", "deployment", "web", "--cascade=orphan", "--timeout=30s")
    [rs] = get(cluster, "-n", ns, "replicasets")["items"]
    assert not rs["metadata"].get("ownerReferences")
    assert len(pods(cluster, ns)) == 2


def test_deleting_a_namespace_empties_and_removes_it(cluster: Cluster) -> None:
    ns = namespace(cluster, "doomed")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=2")
    ok(cluster, "-n", ns, "create", "configmap", "settings", "--from-literal=a=b")
    eventually(lambda: len(pods(cluster, ns)) == 2, "two pods")
    ok(cluster, "delete", "namespace", ns, "--timeout=30s")
    gone = kubectl(cluster, "get", "namespace", ns)
    assert gone.returncode == 1 and "NotFound" in gone.stderr


def test_a_lost_node_is_tainted_and_its_pods_evicted_and_replaced(cluster: Cluster) -> None:
    ns = namespace(cluster, "lost-node")
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "lost-1"},
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                    "lastHeartbeatTime": now,
                    "lastTransitionTime": now,
                }
            ]
        },
    }
    with cluster.admin_client() as admin:
        created = admin.post("/api/v1/nodes", json=node)
        assert created.status_code == 201, created.text
        status = admin.put("/api/v1/nodes/lost-1/status", json={**created.json(), "status": node["status"]})
        assert status.status_code == 200, status.text
    template_tolerations = [
        {
            "key": "node.kubernetes.io/unreachable",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 1,
        },
    ]
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=1")
    ok(
        cluster,
        "-n",
        ns,
        "patch",
        "deployment",
        "web",
        "--type=strategic",
        "-p",
        json.dumps({"spec": {"template": {"spec": {"tolerations": template_tolerations}}}}),
    )
    pod = eventually(
        lambda: (
            (
                p := [
                    x
                    for x in live(pods(cluster, ns))
                    if x["spec"].get("tolerations", [{}])[0].get("tolerationSeconds") == 1
                ]
            )
            and p[0]
        ),
        "the pod of the patched template",
    )
    name = pod["metadata"]["name"]
    with cluster.admin_client() as admin:
        bound = admin.post(
            f"/api/v1/namespaces/{ns}/pods/{name}/binding",
            json={
                "apiVersion": "v1",
                "kind": "Binding",
                "metadata": {"name": name},
                "target": {"apiVersion": "v1", "kind": "Node", "name": "lost-1"},
            },
        )
        assert bound.status_code == 201, bound.text

    def tainted() -> bool:
        found = get(cluster, "node", "lost-1")
        ready = next(c for c in found["status"]["conditions"] if c["type"] == "Ready")
        taints = {(t["key"], t["effect"]) for t in (found.get("spec") or {}).get("taints", [])}
        return (
            ready["status"] == "Unknown"
            and {
                ("node.kubernetes.io/unreachable", "NoSchedule"),
                ("node.kubernetes.io/unreachable", "NoExecute"),
            }
            <= taints
        )

    eventually(tainted, "the node to be marked Unknown and tainted unreachable")
    evicted = eventually(
        lambda: (p := get(cluster, "-n", ns, "pod", name))["metadata"].get("deletionTimestamp") and p,
        "the pod to be evicted",
    )
    assert evicted
    eventually(
        lambda: any(p["metadata"]["name"] != name for p in live(pods(cluster, ns))), "a replacement pod"
    )
    reasons = {e["reason"] for e in get(cluster, "-n", ns, "events")["items"]}
    assert "TaintManagerEviction" in reasons

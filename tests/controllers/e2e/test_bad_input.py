"""Bad input meets the controllers of one ``up`` cluster, through real kubectl: dangling owner
references are collected or dropped by the garbage collector, invalid Deployments are rejected
with upstream's messages before any controller sees them, and status writes that conflict with
concurrent edits are retried rather than lost."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.cluster import Cluster, kubectl, running_up
from tests.controllers.e2e.test_controllers_kubectl import eventually, get, live, namespace, ok, pods

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("bad-input"))


def apply(cluster: Cluster, ns: str, manifest: dict[str, Any]) -> Any:
    """``kubectl apply -f FILE`` of ``manifest`` (the completed process)."""
    path = cluster.data_dir.parent / f"{manifest['metadata']['name']}-{uuid.uuid4().hex[:8]}.json"
    path.write_text(json.dumps(manifest))
    return kubectl(cluster, "-n", ns, "apply", "-f", str(path))


def pod(name: str, owners: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "ownerReferences": owners},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def test_dangling_owner_references(cluster: Cluster) -> None:
    ns = namespace(cluster, "dangling")
    ghost = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "ghost",
        "uid": str(uuid.uuid4()),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    ok(cluster, "-n", ns, "create", "configmap", "owner", "--from-literal=a=b")
    owner = get(cluster, "-n", ns, "configmap", "owner")
    solid = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}

    orphaned = apply(cluster, ns, pod("orphaned", [ghost]))
    assert orphaned.returncode == 0, orphaned.stderr
    kept = apply(cluster, ns, pod("kept", [solid, {**ghost, "controller": False}]))
    assert kept.returncode == 0, kept.stderr

    eventually(
        lambda: kubectl(cluster, "-n", ns, "get", "pod", "orphaned").returncode == 1,
        "the pod whose only owner does not exist to be collected",
    )
    eventually(
        lambda: get(cluster, "-n", ns, "pod", "kept")["metadata"].get("ownerReferences") == [solid],
        "the dangling reference to be removed from the pod with a live owner",
    )
    survivor = get(cluster, "-n", ns, "pod", "kept")
    assert not survivor["metadata"].get("deletionTimestamp")
    assert [p["metadata"]["name"] for p in pods(cluster, ns)] == ["kept"]


def deployment(name: str, selector: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": selector,
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def rejected(cluster: Cluster, ns: str, manifest: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """kubectl's error for ``manifest``, and the Status the apiserver answers a POST of it with."""
    result = apply(cluster, ns, manifest)
    assert result.returncode == 1, result.stdout
    with cluster.admin_client() as admin:
        answer = admin.post(f"/apis/apps/v1/namespaces/{ns}/deployments", json=manifest)
    assert answer.status_code == 422, answer.text
    status = answer.json()
    assert (status["kind"], status["reason"], status["code"]) == ("Status", "Invalid", 422)
    return " ".join(result.stderr.split()), status


BOGUS_SELECTOR = {"matchExpressions": [{"key": "app", "operator": "Bogus", "values": ["web"]}]}


def test_invalid_deployments_are_rejected_and_nothing_is_created(cluster: Cluster) -> None:
    ns = namespace(cluster, "invalid")
    mismatch = deployment("mismatch", {"matchLabels": {"app": "web"}}, {"app": "other"})
    stderr, status = rejected(cluster, ns, mismatch)
    # Upstream since v1.34 renders a complex bad value as JSON (field.Error.ErrorBody); older
    # servers printed Go syntax, map[string]string{"app":"other"}.
    body = 'Invalid value: {"app":"other"}: `selector` does not match template `labels`'
    assert f'The Deployment "mismatch" is invalid: spec.template.metadata.labels: {body}' in stderr
    assert status["message"] == (
        f'Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: {body}'
    )
    assert status["details"]["causes"] == [
        {"reason": "FieldValueInvalid", "message": body, "field": "spec.template.metadata.labels"}
    ]

    stderr, status = rejected(cluster, ns, deployment("bogus", BOGUS_SELECTOR, {"app": "web"}))
    body = f"Invalid value: {json.dumps(BOGUS_SELECTOR, separators=(',', ':'))}: invalid label selector"
    assert 'The Deployment "bogus" is invalid: ' in stderr and f"spec.selector: {body}" in stderr
    cause = {"reason": "FieldValueInvalid", "message": body, "field": "spec.selector"}
    assert cause in status["details"]["causes"]

    assert get(cluster, "-n", ns, "deployments")["items"] == []
    assert get(cluster, "-n", ns, "replicasets")["items"] == []
    assert pods(cluster, ns) == []


def test_an_invalid_selector_operator_is_named(cluster: Cluster) -> None:
    ns = namespace(cluster, "invalid-operator")
    _, status = rejected(cluster, ns, deployment("bogus", BOGUS_SELECTOR, {"app": "web"}))
    operator = {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "Bogus": not a valid selector operator',
        "field": "spec.selector.matchExpressions[0].operator",
    }
    assert status["details"]["causes"][0] == operator


def test_status_writes_survive_concurrent_edits(cluster: Cluster) -> None:
    ns = namespace(cluster, "conflicts")
    ok(cluster, "-n", ns, "create", "deployment", "web", "--image=nginx", "--replicas=3")
    eventually(lambda: len(live(pods(cluster, ns))) == 3, "three pods")
    [rs] = get(cluster, "-n", ns, "replicasets")["items"]
    targets = [
        f"/apis/apps/v1/namespaces/{ns}/deployments/web",
        f"/apis/apps/v1/namespaces/{ns}/replicasets/{rs['metadata']['name']}",
    ]
    started = threading.Event()
    patched: list[int] = []
    failures: list[str] = []

    def edit() -> None:
        """Patch both objects' annotations for 2 s: each patch bumps the resourceVersion, so a
        controller writing status from an older read gets 409 Conflict."""
        deadline = time.monotonic() + 2.0
        with cluster.admin_client() as admin:
            while time.monotonic() < deadline:
                for path in targets:
                    body = {"metadata": {"annotations": {"test/tick": str(len(patched))}}}
                    try:
                        answer = admin.patch(
                            path, json=body, headers={"Content-Type": "application/merge-patch+json"}
                        )
                    except httpx.HTTPError as err:
                        failures.append(repr(err))
                        continue
                    if answer.status_code != 200:
                        failures.append(answer.text)
                    patched.append(answer.status_code)
                started.set()

    editor = threading.Thread(target=edit, daemon=True)
    editor.start()
    assert started.wait(10)
    ok(cluster, "-n", ns, "scale", "deployment/web", "--replicas=6")
    editor.join(timeout=15)
    assert not editor.is_alive()
    assert not failures, failures[:3]
    print(f"\n{len(patched)} annotation patches during the scale")

    def settled() -> bool:
        found = get(cluster, "-n", ns, "deployment", "web")
        status = found["status"]
        replicaset = get(cluster, "-n", ns, "replicaset", rs["metadata"]["name"])
        return bool(
            status.get("observedGeneration") == found["metadata"]["generation"]
            and status.get("replicas") == 6
            and status.get("updatedReplicas") == 6
            and replicaset["status"].get("replicas") == 6
            and replicaset["status"].get("observedGeneration") == replicaset["metadata"]["generation"]
        )

    eventually(settled, "the Deployment's and ReplicaSet's status to catch up with the spec")
    assert len(pods(cluster, ns)) == 6
    assert get(cluster, "-n", ns, "deployment", "web")["metadata"]["annotations"]["test/tick"]

"""ReplicationControllers, PersistentVolumes, PersistentVolumeClaims and ControllerRevisions
with real kubectl on ``up`` with a process node: an RC from a manifest gets its pods, scales with
``kubectl scale rc``, and ``kubectl delete rc`` cascades; ``kubectl get`` prints upstream's
columns for each kind."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.clients.support import module_cluster
from tests.cluster import Cluster, eventually, kubectl, kubectl_json, kubectl_ok

pytestmark = pytest.mark.e2e

RC = """
apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  replicas: 3
  selector:
    app: nginx
  template:
    metadata:
      name: nginx
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
        ports:
        - containerPort: 80
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from module_cluster(tmp_path_factory, "replication", nodes=1)


def rc_pods(cluster: Cluster) -> list[dict[str, Any]]:
    items = kubectl_json(cluster, "pods", "-l", "app=nginx")["items"]
    return [p for p in items if not p["metadata"].get("deletionTimestamp")]


def ready(pod: dict[str, Any]) -> bool:
    return any(
        c["type"] == "Ready" and c["status"] == "True" for c in pod.get("status", {}).get("conditions", [])
    )


def test_a_replication_controller_runs_scales_and_cascades(cluster: Cluster) -> None:
    assert kubectl_ok(cluster, "create", "-f", "-", stdin=RC).strip() == "replicationcontroller/nginx created"
    eventually(lambda: len(pods := rc_pods(cluster)) == 3 and all(map(ready, pods)), "three ready pods", 60)
    rc = kubectl_json(cluster, "rc", "nginx")
    for pod in rc_pods(cluster):
        [ref] = pod["metadata"]["ownerReferences"]
        assert (ref["kind"], ref["name"], ref["uid"]) == (
            "ReplicationController",
            "nginx",
            rc["metadata"]["uid"],
        )
        assert pod["metadata"]["name"].startswith("nginx-")
    eventually(
        lambda: kubectl_json(cluster, "rc", "nginx")["status"].get("readyReplicas") == 3, "readyReplicas 3"
    )
    table = kubectl_ok(cluster, "get", "rc", "-o", "wide").splitlines()
    assert table[0].split() == [
        "NAME",
        "DESIRED",
        "CURRENT",
        "READY",
        "AGE",
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
    ]
    cells = table[1].split()
    assert cells[:4] == ["nginx", "3", "3", "3"] and cells[5:] == ["nginx", "nginx", "app=nginx"]

    assert (
        kubectl_ok(cluster, "scale", "rc", "nginx", "--replicas=1").strip()
        == "replicationcontroller/nginx scaled"
    )
    eventually(lambda: len(rc_pods(cluster)) == 1, "one pod after scaling down")
    reasons = {
        e["reason"]
        for e in kubectl_json(cluster, "events")["items"]
        if e["involvedObject"]["kind"] == "ReplicationController"
    }
    assert {"SuccessfulCreate", "SuccessfulDelete"} <= reasons
    described = kubectl_ok(cluster, "describe", "rc", "nginx")
    assert "Replicas:     1 current / 1 desired" in described

    assert kubectl_ok(cluster, "delete", "rc", "nginx").strip() == 'replicationcontroller "nginx" deleted'
    eventually(lambda: rc_pods(cluster) == [], "the pods to be deleted with their controller", 60)


def test_persistent_volumes_and_claims_print_upstreams_columns(cluster: Cluster) -> None:
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv0001"},
        "spec": {
            "capacity": {"storage": "5Gi"},
            "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
            "hostPath": {"path": "/tmp/pv0001"},
        },
    }
    assert (
        kubectl_ok(cluster, "create", "-f", "-", stdin=json.dumps(pv)).strip()
        == "persistentvolume/pv0001 created"
    )
    lines = kubectl_ok(cluster, "get", "pv", "-o", "wide").splitlines()
    assert lines[0].split() == [
        "NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM", "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS", "REASON", "AGE", "VOLUMEMODE",
    ]  # fmt: skip
    cells = lines[1].split()
    # a new volume is Pending until the binder has seen it, then Available (no claim names it)
    assert cells[:4] == ["pv0001", "5Gi", "RWO,ROX", "Retain"] and cells[5] == "<unset>"
    assert cells[4] in ("Pending", "Available")
    assert cells[-1] == "Filesystem"
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": "manual",
        },
    }
    kubectl_ok(cluster, "create", "-f", "-", stdin=json.dumps(claim))
    lines = kubectl_ok(cluster, "get", "pvc").splitlines()
    assert lines[0].split() == [
        "NAME",
        "STATUS",
        "VOLUME",
        "CAPACITY",
        "ACCESS",
        "MODES",
        "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS",
        "AGE",
    ]
    assert lines[1].split()[:4] == ["data", "Pending", "manual", "<unset>"]
    refused = kubectl(
        cluster, "create", "-f", "-", stdin=json.dumps({**claim, "metadata": {"name": "x"}, "spec": {}})
    )
    assert refused.returncode == 1
    assert 'PersistentVolumeClaim "x" is invalid' in refused.stderr
    assert "spec.accessModes: Required value: at least 1 access mode is required" in refused.stderr


def test_controller_revisions_print_their_controller(cluster: Cluster) -> None:
    revision = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "web-7d4b9c"},
        "data": {"spec": {"template": {"$patch": "replace"}}},
        "revision": 2,
    }
    kubectl_ok(cluster, "create", "-f", "-", stdin=json.dumps(revision))
    lines = kubectl_ok(cluster, "get", "controllerrevisions").splitlines()
    assert lines[0].split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert lines[1].split()[:3] == ["web-7d4b9c", "<none>", "2"]

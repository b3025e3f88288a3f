"""Volumes that persist, through ``up --nodes 2`` and real kubectl (issue 16): the default
class ``standard`` waits for a first consumer, then a local-path volume is provisioned on the
pod's node, bound and mounted; its data outlives the pod; deleting the claim deletes the
volume and its directory (Delete), a Retain volume becomes Released; a claim of a missing
class stays Pending with ProvisioningFailed; a claim in use is kept until its pod is gone."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import Cluster, eventually, free_port, kubectl, start_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e
BIND_WITHIN = 60.0
HOSTNAME = "kubernetes.io/hostname"
LOCAL_PATH = "minikube-py.io/local-path"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(tmp_path_factory.mktemp("volumes"), free_port(), flags=["--nodes", "2"])
    try:
        running.wait_ready()
        eventually(lambda: kubectl(running, "get", "serviceaccount", "default").returncode == 0, "default SA")
        has_class = ("get", "storageclass", "standard")
        eventually(lambda: kubectl(running, *has_class).returncode == 0, "class standard")
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def claim(name: str, storage_class: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "64Mi"}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def pod(name: str, claim_name: str, command: str, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "automountServiceAccountToken": False,
        "terminationGracePeriodSeconds": 1,
        "containers": [
            {
                "name": "c",
                "image": "busybox",
                "command": ["sh", "-c", command],
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
            }
        ],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
    }
    if node:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node]}]}
                    ]
                }
            }
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def apply(cluster: Cluster, obj: dict[str, Any]) -> None:
    ok(cluster, "apply", "-f", "-", stdin=json.dumps(obj))


def events(cluster: Cluster, kind: str, name: str) -> list[tuple[str, str]]:
    selector = f"involvedObject.kind={kind},involvedObject.name={name}"
    items = get(cluster, "events", "--field-selector", selector)["items"]
    return [(e["reason"], e["message"]) for e in items]


def phase(cluster: Cluster, resource: str, name: str) -> str:
    return str((get(cluster, resource, name).get("status") or {}).get("phase", ""))


def gone(cluster: Cluster, *args: str) -> bool:
    result = kubectl(cluster, "get", *args)
    return result.returncode != 0 and "NotFound" in result.stderr


def test_a_claim_waits_for_its_first_consumer_then_its_data_outlives_the_pod(cluster: Cluster) -> None:
    apply(cluster, claim("data"))
    waiting = ("WaitForFirstConsumer", "waiting for first consumer to be created before binding")
    eventually(lambda: waiting in events(cluster, "PersistentVolumeClaim", "data"), "WaitForFirstConsumer")
    assert phase(cluster, "pvc", "data") == "Pending"
    assert get(cluster, "pvc", "data")["spec"]["storageClassName"] == "standard"  # the default class

    apply(cluster, pod("writer", "data", "echo kept > /data/file && sleep 600"))
    eventually(lambda: phase(cluster, "pvc", "data") == "Bound", "the claim to bind", timeout=BIND_WITHIN)
    bound = get(cluster, "pvc", "data")
    node = eventually(lambda: get(cluster, "pod", "writer")["spec"].get("nodeName"), "the writer bound")
    assert bound["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node
    assert bound["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] == LOCAL_PATH
    volume = get(cluster, "pv", bound["spec"]["volumeName"])
    assert volume["status"]["phase"] == "Bound"
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    terms = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"][0]["values"] == [node]
    directory = volume["spec"]["hostPath"]["path"]
    eventually(lambda: phase(cluster, "pod", "writer") == "Running", "the writer to run", timeout=BIND_WITHIN)
    eventually(lambda: os.path.exists(os.path.join(directory, "file")), "the file on the node")

    ok(cluster, "delete", "pod", "writer", "--wait=true")
    apply(cluster, pod("reader", "data", "cat /data/file; sleep 600"))
    eventually(lambda: phase(cluster, "pod", "reader") == "Running", "the reader to run", timeout=BIND_WITHIN)
    assert get(cluster, "pod", "reader")["spec"]["nodeName"] == node  # the volume's node affinity
    eventually(lambda: ok(cluster, "logs", "reader").strip() == "kept", "the reader to read the file")

    # in use: the claim waits (pvc-protection) until its pod is gone
    ok(cluster, "delete", "pvc", "data", "--wait=false")
    terminating = lambda: get(cluster, "pvc", "data")["metadata"].get("deletionTimestamp")  # noqa: E731
    eventually(terminating, "the claim terminating")
    assert "kubernetes.io/pvc-protection" in get(cluster, "pvc", "data")["metadata"]["finalizers"]
    assert phase(cluster, "pvc", "data") == "Bound"
    ok(cluster, "delete", "pod", "reader", "--wait=true")
    eventually(lambda: gone(cluster, "pvc", "data"), "the claim to go once unused")
    # Delete: the volume and its directory go with the claim
    volume_name = volume["metadata"]["name"]
    eventually(lambda: gone(cluster, "pv", volume_name), "the volume to be deleted", timeout=BIND_WITHIN)
    assert not os.path.exists(directory)


def test_a_retain_volume_is_released_with_its_data(cluster: Cluster) -> None:
    keep = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "keep"},
        "provisioner": "minikube-py.io/local-path",
        "reclaimPolicy": "Retain",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    apply(cluster, keep)
    apply(cluster, claim("kept", "keep"))
    apply(cluster, pod("keeper", "kept", "echo mine > /data/file && sleep 600"))
    eventually(lambda: phase(cluster, "pvc", "kept") == "Bound", "the claim to bind", timeout=BIND_WITHIN)
    name = get(cluster, "pvc", "kept")["spec"]["volumeName"]
    eventually(lambda: phase(cluster, "pod", "keeper") == "Running", "the pod to run", timeout=BIND_WITHIN)
    directory = get(cluster, "pv", name)["spec"]["hostPath"]["path"]
    ok(cluster, "delete", "pod", "keeper", "--wait=true")
    ok(cluster, "delete", "pvc", "kept", "--wait=true")
    eventually(lambda: phase(cluster, "pv", name) == "Released", "the volume to be Released")
    with open(os.path.join(directory, "file")) as kept:
        assert kept.read().strip() == "mine"
    volume = get(cluster, "pv", name)
    assert volume["spec"]["claimRef"]["name"] == "kept"  # kept for an administrator to reclaim
    ok(cluster, "delete", "pv", name, "--wait=true")  # pv-protection lets a Released volume go


def test_a_claim_of_a_class_that_does_not_exist_stays_pending(cluster: Cluster) -> None:
    apply(cluster, claim("nowhere", "x"))
    failed = ("ProvisioningFailed", 'storageclass.storage.k8s.io "x" not found')
    eventually(lambda: failed in events(cluster, "PersistentVolumeClaim", "nowhere"), "ProvisioningFailed")
    assert phase(cluster, "pvc", "nowhere") == "Pending"
    listed = ok(cluster, "get", "events", "--field-selector", "reason=ProvisioningFailed")
    for line in listed.splitlines()[1:]:
        assert "Warning" in line

"""What the local-path provisioner writes: the PersistentVolume for a claim (a ``hostPath``
directory under the selected node's local-path directory, with node affinity to that node)
and the default StorageClass ``standard``."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.volumes import ANN_DEFAULT_STORAGE_CLASS, ANN_DYNAMICALLY_PROVISIONED, claim_class

PROVISIONER_NAME = "minikube-py.io/local-path"
DEFAULT_CLASS_NAME = "standard"
HOSTNAME_LABEL = "kubernetes.io/hostname"


def default_storage_class() -> Object:
    """kind's and k3s' default class, under our provisioner's name."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": DEFAULT_CLASS_NAME,
            "annotations": {ANN_DEFAULT_STORAGE_CLASS: "true"},
        },
        "provisioner": PROVISIONER_NAME,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def volume_name(claim: Object) -> str:
    """``pvc-<claim uid>``, as every external provisioner names its volumes."""
    return f"pvc-{claim['metadata']['uid']}"


def volume_dir(root: str, claim: Object) -> str:
    """rancher's ``<root>/<volume>_<namespace>_<claim>``: an administrator reading the
    directory sees whose data it is."""
    meta = claim["metadata"]
    return f"{root.rstrip('/')}/{volume_name(claim)}_{meta['namespace']}_{meta['name']}"


def provisioned_volume(claim: Object, storage_class: Object, node: str, root: str) -> Object:
    spec = claim.get("spec") or {}
    requests = (spec.get("resources") or {}).get("requests") or {}
    meta = claim["metadata"]
    volume_spec: dict[str, Any] = {
        "capacity": {"storage": str(requests.get("storage", "0"))},
        "accessModes": list(spec.get("accessModes") or ["ReadWriteOnce"]),
        "persistentVolumeReclaimPolicy": storage_class.get("reclaimPolicy") or "Delete",
        "storageClassName": claim_class(claim),
        "volumeMode": spec.get("volumeMode") or "Filesystem",
        "claimRef": {
            "kind": "PersistentVolumeClaim",
            "apiVersion": "v1",
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta["uid"],
            "resourceVersion": meta.get("resourceVersion", ""),
        },
        "hostPath": {"path": volume_dir(root, claim), "type": "DirectoryOrCreate"},
        "nodeAffinity": {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": HOSTNAME_LABEL, "operator": "In", "values": [node]}]}
                ]
            }
        },
    }
    if storage_class.get("mountOptions"):
        volume_spec["mountOptions"] = list(storage_class["mountOptions"])
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": volume_name(claim),
            "annotations": {ANN_DYNAMICALLY_PROVISIONED: PROVISIONER_NAME},
        },
        "spec": volume_spec,
    }

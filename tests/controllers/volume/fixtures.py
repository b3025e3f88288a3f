"""Claims, volumes, classes and a harness for the volume controllers' ``sync`` tests."""

from __future__ import annotations

from typing import Any

from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES, STORAGECLASSES
from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from minikube_py.testing.fakeclient import FakeClient

NS = "default"


class Harness:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.fake = FakeClient()
        self.factory = SharedInformerFactory(self.fake, clock=self.clock)
        self.recorder = FakeRecorder()

    def seed(self, rt: ResourceType, *objs: Object) -> None:
        for obj in objs:
            stored = self.fake.seed(rt, obj)[0]
            self.factory.informer(rt).indexer.add(stored)

    def claim(self, name: str) -> Object:
        found = self.fake.stored(PERSISTENTVOLUMECLAIMS, NS, name)
        assert found is not None
        return found

    def volume(self, name: str) -> Object | None:
        return self.fake.stored(PERSISTENTVOLUMES, "", name)


def claim(
    name: str = "data", *, storage_class: str | None = "standard", size: str = "1Gi", **spec: Any
) -> Object:
    obj: Object = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}", "annotations": {}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, **spec},
        "status": {"phase": "Pending"},
    }
    if storage_class is not None:
        obj["spec"]["storageClassName"] = storage_class
    return obj


def volume(name: str = "pv1", *, storage_class: str = "standard", size: str = "1Gi", **spec: Any) -> Object:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {}},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": size},
            "storageClassName": storage_class,
            "persistentVolumeReclaimPolicy": "Retain",
            "hostPath": {"path": f"/tmp/{name}"},
            **spec,
        },
        "status": {"phase": "Available"},
    }


def storage_class(
    name: str = "standard", *, mode: str = "Immediate", provisioner: str = "example.com/p"
) -> Object:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": mode,
    }


def ref(claim_obj: Object, uid: bool = True) -> dict[str, str]:
    meta = claim_obj["metadata"]
    return {
        "kind": "PersistentVolumeClaim",
        "namespace": NS,
        "name": meta["name"],
        "uid": meta["uid"] if uid else "",
    }


__all__ = ["NS", "STORAGECLASSES", "Harness", "claim", "ref", "storage_class", "volume"]

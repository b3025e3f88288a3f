"""DefaultStorageClass and StorageObjectInUseProtection through a real apiserver (in process,
every plugin ``up`` runs): a claim without a class gets the default one (the newest when several
are marked), one naming a class (even ``""``) or the beta annotation is left alone, no default
leaves it unset, updates never default; new claims and volumes get their protection finalizer
once."""

from __future__ import annotations

from typing import Any

import httpx

from apiserver.admission.plugins.defaultstorageclass import default_storage_class

PVCS = "/api/v1/namespaces/default/persistentvolumeclaims"
PVS = "/api/v1/persistentvolumes"
CLASSES = "/apis/storage.k8s.io/v1/storageclasses"
DEFAULT = "storageclass.kubernetes.io/is-default-class"


def storage_class(name: str, default: str | None = None, beta: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if default is not None:
        key = "storageclass.beta.kubernetes.io/is-default-class" if beta else DEFAULT
        meta["annotations"] = {key: default}
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": meta,
        "provisioner": "x.io/p",
    }


def claim(name: str, **spec: Any) -> dict[str, Any]:
    base = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": base | spec,
    }


async def create(api: httpx.AsyncClient, path: str, obj: dict[str, Any]) -> dict[str, Any]:
    r = await api.post(path, json=obj)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def test_no_default_class_leaves_the_claim_without_one(admitted: httpx.AsyncClient) -> None:
    await create(admitted, CLASSES, storage_class("plain", "false"))
    created = await create(admitted, PVCS, claim("a"))
    assert "storageClassName" not in created["spec"]


async def test_a_claim_without_a_class_gets_the_default(admitted: httpx.AsyncClient) -> None:
    await create(admitted, CLASSES, storage_class("plain"))
    await create(admitted, CLASSES, storage_class("standard", "true"))
    assert (await create(admitted, PVCS, claim("a")))["spec"]["storageClassName"] == "standard"
    assert (await create(admitted, PVCS, claim("b", storageClassName="plain")))["spec"][
        "storageClassName"
    ] == "plain"
    assert (await create(admitted, PVCS, claim("c", storageClassName="")))["spec"]["storageClassName"] == ""
    legacy = claim("d")
    legacy["metadata"]["annotations"] = {"volume.beta.kubernetes.io/storage-class": "plain"}
    assert "storageClassName" not in (await create(admitted, PVCS, legacy))["spec"]


async def test_updates_are_never_defaulted(admitted: httpx.AsyncClient) -> None:
    body = await create(admitted, PVCS, claim("a"))
    await create(admitted, CLASSES, storage_class("standard", "true"))
    body["metadata"]["labels"] = {"x": "y"}
    updated = await admitted.put(f"{PVCS}/a", json=body)
    assert updated.status_code == 200, updated.text
    assert "storageClassName" not in updated.json()["spec"]


def test_the_newest_default_wins_and_the_beta_annotation_counts() -> None:
    def at(obj: dict[str, Any], created: str) -> dict[str, Any]:
        obj["metadata"]["creationTimestamp"] = created
        return obj

    classes = [
        at(storage_class("old", "true"), "2024-01-01T00:00:00Z"),
        at(storage_class("new-b", "true", beta=True), "2025-01-01T00:00:00Z"),
        at(storage_class("new-a", "true"), "2025-01-01T00:00:00Z"),
        at(storage_class("newest", "false"), "2026-01-01T00:00:00Z"),
    ]
    found = default_storage_class(classes)
    assert found is not None and found["metadata"]["name"] == "new-a"
    assert default_storage_class([storage_class("x", "True")]) is None  # only the exact "true"


async def test_new_claims_and_volumes_get_their_protection_finalizer_once(
    admitted: httpx.AsyncClient,
) -> None:
    created = await create(admitted, PVCS, claim("a"))
    assert created["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    kept = claim("b")
    kept["metadata"]["finalizers"] = ["example.com/keep", "kubernetes.io/pvc-protection"]
    assert (await create(admitted, PVCS, kept))["metadata"]["finalizers"] == kept["metadata"]["finalizers"]
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv1"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/tmp/x"},
        },
    }
    assert (await create(admitted, PVS, volume))["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    deleted = await admitted.delete(f"{PVCS}/a")
    assert deleted.status_code == 200
    terminating = (await admitted.get(f"{PVCS}/a")).json()  # held by its finalizer until a controller lets go
    assert terminating["metadata"]["deletionTimestamp"]

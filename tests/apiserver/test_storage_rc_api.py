"""PersistentVolumes, PersistentVolumeClaims, ReplicationControllers and ControllerRevisions
over the REST API (in process): defaults, status, scale, validation messages and Tables as
upstream serves them."""

from __future__ import annotations

from typing import Any

import httpx

TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
PVS = "/api/v1/persistentvolumes"
PVCS = "/api/v1/namespaces/default/persistentvolumeclaims"
RCS = "/api/v1/namespaces/default/replicationcontrollers"
REVISIONS = "/apis/apps/v1/namespaces/default/controllerrevisions"


def pv(name: str, **spec: Any) -> dict[str, Any]:
    base = {
        "capacity": {"storage": "1024Mi"},
        "accessModes": ["ReadWriteOnce"],
        "hostPath": {"path": "/tmp/x"},
    }
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": base | spec}


def pvc(name: str, **spec: Any) -> dict[str, Any]:
    base = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": base | spec,
    }


def rc(name: str, **spec: Any) -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": name}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": name},
        "spec": {"template": template} | spec,
    }


async def test_a_persistent_volume_gets_upstreams_defaults_and_row(api: httpx.AsyncClient) -> None:
    created = await api.post(PVS, json=pv("pv1", storageClassName="standard"))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert body["spec"]["volumeMode"] == "Filesystem"
    assert body["status"]["phase"] == "Pending" and body["status"]["lastPhaseTransitionTime"]
    assert "generation" not in body["metadata"] and "namespace" not in body["metadata"]
    table = (await api.get(PVS, headers=TABLE)).json()
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == [
        "Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass",
        "VolumeAttributesClass", "Reason", "Age", "VolumeMode",
    ]  # fmt: skip
    cells = table["rows"][0]["cells"]
    assert cells[:9] == ["pv1", "1Gi", "RWO", "Retain", "Pending", "", "standard", "<unset>", ""]
    assert cells[10] == "Filesystem"


async def test_a_persistent_volume_status_update_stamps_a_new_phase(api: httpx.AsyncClient) -> None:
    body = (await api.post(PVS, json=pv("pv2"))).json()
    body["status"] = {"phase": "Available"}
    updated = await api.put(f"{PVS}/pv2/status", json=body)
    assert updated.status_code == 200, updated.text
    assert updated.json()["status"]["phase"] == "Available"
    assert updated.json()["status"]["lastPhaseTransitionTime"]


async def test_a_persistent_volume_needs_capacity_modes_and_one_source(api: httpx.AsyncClient) -> None:
    bad = pv("pv3", nfs={"server": "a", "path": "/b"})
    del bad["spec"]["accessModes"]
    answer = await api.post(PVS, json=bad)
    assert answer.status_code == 422
    assert answer.json()["message"] == (
        'PersistentVolume "pv3" is invalid: [spec.accessModes: Required value, '
        "spec.nfs: Forbidden: may not specify more than 1 volume type]"
    )


async def test_a_claim_is_pending_with_a_filesystem_volume_and_row(api: httpx.AsyncClient) -> None:
    created = await api.post(PVCS, json=pvc("data"))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["status"] == {"phase": "Pending"} and body["spec"]["volumeMode"] == "Filesystem"
    table = (await api.get(PVCS, headers=TABLE)).json()
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == [
        "Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass",
        "Age", "VolumeMode",
    ]  # fmt: skip
    cells = table["rows"][0]["cells"]
    assert cells[:7] == ["data", "Pending", "", "", "", "", "<unset>"] and cells[8] == "Filesystem"


async def test_a_claim_needs_access_modes_and_a_storage_request(api: httpx.AsyncClient) -> None:
    answer = await api.post(PVCS, json=pvc("bad", accessModes=[], resources={}))
    assert answer.status_code == 422
    assert answer.json()["message"] == (
        'PersistentVolumeClaim "bad" is invalid: [spec.accessModes: Required value: at least 1 access '
        "mode is required, spec.resources[storage]: Required value]"
    )


async def test_a_replication_controller_defaults_from_its_template(api: httpx.AsyncClient) -> None:
    created = await api.post(RCS, json=rc("web"))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["spec"]["replicas"] == 1 and body["spec"]["selector"] == {"app": "web"}
    assert body["metadata"]["labels"] == {"app": "web"} and body["metadata"]["generation"] == 1
    assert body["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    assert body["status"] == {"replicas": 0}
    table = (await api.get(RCS, headers=TABLE)).json()
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector",
    ]  # fmt: skip
    cells = table["rows"][0]["cells"]
    assert cells[:4] == ["web", 1, 0, 0] and cells[5:] == ["c", "nginx", "app=web"]


async def test_a_replication_controller_scales_through_its_scale_subresource(api: httpx.AsyncClient) -> None:
    await api.post(RCS, json=rc("web"))
    scale = (await api.get(f"{RCS}/web/scale")).json()
    assert (scale["kind"], scale["apiVersion"]) == ("Scale", "autoscaling/v1")
    assert scale["spec"] == {"replicas": 1} and scale["status"] == {"replicas": 0, "selector": "app=web"}
    patch = {"spec": {"replicas": 3}}
    patched = await api.patch(
        f"{RCS}/web/scale", json=patch, headers={"content-type": "application/merge-patch+json"}
    )
    assert patched.status_code == 200, patched.text
    assert (await api.get(f"{RCS}/web")).json()["spec"]["replicas"] == 3


async def test_a_replication_controller_selector_must_match_its_template(api: httpx.AsyncClient) -> None:
    answer = await api.post(RCS, json=rc("web", selector={"app": "other"}))
    assert answer.status_code == 422
    assert answer.json()["message"] == (
        'ReplicationController "web" is invalid: spec.template.metadata.labels: Invalid value: '
        '{"app":"web"}: selector does not match labels in spec.template'
    )


async def test_a_controller_revision_keeps_its_data(api: httpx.AsyncClient) -> None:
    owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "u1", "controller": True}
    revision = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "web-1", "ownerReferences": [owner]},
        "data": {"spec": {"template": {}}},
        "revision": 1,
    }
    created = await api.post(REVISIONS, json=revision)
    assert created.status_code == 201, created.text
    table = (await api.get(REVISIONS, headers=TABLE)).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Controller", "Revision", "Age"]
    assert table["rows"][0]["cells"][:3] == ["web-1", "statefulset.apps/web", 1]
    body = created.json()
    body["data"] = {"spec": {"template": {"metadata": {}}}}
    refused = await api.put(f"{REVISIONS}/web-1", json=body)
    assert refused.status_code == 422 and "data: Invalid value" in refused.json()["message"]
    missing = await api.post(REVISIONS, json={**revision, "metadata": {"name": "web-2"}, "data": None})
    assert missing.json()["message"] == (
        'ControllerRevision.apps "web-2" is invalid: data: Required value: data is mandatory'
    )

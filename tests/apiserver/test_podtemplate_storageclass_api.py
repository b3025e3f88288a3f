"""PodTemplate and StorageClass over the REST API (in process): CRUD, generation, immutable
fields, the Table, discovery and OpenAPI, all derived from one model and one strategy each."""

from __future__ import annotations

from typing import Any

import httpx

TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
TEMPLATES = "/api/v1/namespaces/default/podtemplates"
CLASSES = "/apis/storage.k8s.io/v1/storageclasses"


def template(name: str, image: str = "nginx", **labels: str) -> dict[str, Any]:
    spec = {"containers": [{"name": "web", "image": image}]}
    return {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": name},
        "template": {"metadata": {"labels": labels}, "spec": spec},
    }


async def test_podtemplate_crud_and_generation(api: httpx.AsyncClient) -> None:
    created = await api.post(TEMPLATES, json=template("t1", app="web"))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["metadata"]["generation"] == 1
    assert body["template"]["spec"]["restartPolicy"] == "Always"
    body["metadata"]["labels"] = {"team": "a"}
    relabelled = (await api.put(f"{TEMPLATES}/t1", json=body)).json()
    assert relabelled["metadata"]["generation"] == 1  # metadata is not the template
    relabelled["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    changed = (await api.put(f"{TEMPLATES}/t1", json=relabelled)).json()
    assert changed["metadata"]["generation"] == 2
    table = (await api.get(TEMPLATES, headers=TABLE)).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Containers", "Images", "Pod Labels"]
    assert table["rows"][0]["cells"] == ["t1", "web", "nginx:2", "app=web"]
    deleted = await api.delete(f"{TEMPLATES}/t1")
    assert deleted.status_code == 200 and deleted.json()["kind"] == "Status"
    assert (await api.get(f"{TEMPLATES}/t1")).status_code == 404


async def test_podtemplate_without_containers_is_invalid(api: httpx.AsyncClient) -> None:
    bad = template("t2")
    bad["template"]["spec"]["containers"] = []
    answer = await api.post(TEMPLATES, json=bad)
    assert answer.status_code == 422
    assert answer.json()["message"] == (
        'PodTemplate "t2" is invalid: template.spec.containers: Required value'
    )


async def test_storageclass_defaults_immutability_and_table(api: httpx.AsyncClient) -> None:
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"}}
    sc |= {"provisioner": "example.com/fast", "parameters": {"type": "ssd"}}
    created = await api.post(CLASSES, json=sc)
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["reclaimPolicy"], body["volumeBindingMode"]) == ("Delete", "Immediate")
    assert "namespace" not in body["metadata"]
    patched = await api.patch(
        f"{CLASSES}/fast",
        json={"parameters": {"type": "hdd"}, "reclaimPolicy": "Retain"},
        headers={"content-type": "application/merge-patch+json"},
    )
    assert patched.status_code == 422
    assert patched.json()["message"] == (
        'StorageClass.storage.k8s.io "fast" is invalid: [parameters: Forbidden: updates to parameters '
        "are forbidden., reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.]"
    )
    expanded = await api.patch(
        f"{CLASSES}/fast",
        json={"allowVolumeExpansion": True},
        headers={"content-type": "application/merge-patch+json"},
    )
    assert expanded.status_code == 200 and expanded.json()["allowVolumeExpansion"] is True
    table = (await api.get(CLASSES, headers=TABLE)).json()
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name",
        "Provisioner",
        "ReclaimPolicy",
        "VolumeBindingMode",
        "AllowVolumeExpansion",
        "Age",
    ]
    assert table["rows"][0]["cells"][:5] == ["fast", "example.com/fast", "Delete", "Immediate", "true"]


async def test_both_kinds_are_in_discovery_and_openapi(api: httpx.AsyncClient) -> None:
    core = (await api.get("/api/v1")).json()["resources"]
    assert {
        "name": "podtemplates",
        "singularName": "podtemplate",
        "namespaced": True,
        "kind": "PodTemplate",
    }.items() <= next(r for r in core if r["name"] == "podtemplates").items()
    storage = (await api.get("/apis/storage.k8s.io/v1")).json()["resources"]
    assert ("storageclasses", ["sc"], False) in [
        (r["name"], r.get("shortNames"), r["namespaced"]) for r in storage
    ]
    document = (await api.get("/openapi/v3/apis/storage.k8s.io/v1")).json()
    schema = document["components"]["schemas"]["io.k8s.api.storage.v1.StorageClass"]
    assert "provisioner" in schema["required"]
    assert schema["properties"]["reclaimPolicy"]["enum"] == ["Delete", "Recycle", "Retain"]
    assert "/apis/storage.k8s.io/v1/watch/storageclasses" in document["paths"]

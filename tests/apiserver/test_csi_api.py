"""CSIDrivers, CSINodes and VolumeAttachments (storage.k8s.io/v1) over the REST API (in
process): upstream's defaults, validation messages, immutable fields and Tables."""

from __future__ import annotations

from typing import Any

import httpx

TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
STORAGE = "/apis/storage.k8s.io/v1"


def obj(kind: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": kind, "metadata": {"name": name}, **fields}


async def cells(api: httpx.AsyncClient, resource: str) -> tuple[list[str], list[Any]]:
    table = (await api.get(f"{STORAGE}/{resource}", headers=TABLE)).json()
    return [c["name"] for c in table["columnDefinitions"]], table["rows"][0]["cells"]


async def test_a_csi_driver_gets_upstreams_defaults_and_row(api: httpx.AsyncClient) -> None:
    created = await api.post(f"{STORAGE}/csidrivers", json=obj("CSIDriver", "hostpath.csi.k8s.io", spec={}))
    assert created.status_code == 201, created.text
    assert created.json()["spec"] == {
        "attachRequired": True,
        "podInfoOnMount": False,
        "storageCapacity": False,
        "fsGroupPolicy": "ReadWriteOnceWithFSType",
        "requiresRepublish": False,
        "seLinuxMount": False,
        "volumeLifecycleModes": ["Persistent"],
    }
    names, row = await cells(api, "csidrivers")
    assert names == [
        "Name", "AttachRequired", "PodInfoOnMount", "StorageCapacity", "TokenRequests", "RequiresRepublish",
        "Modes", "Age",
    ]  # fmt: skip
    assert row[:7] == ["hostpath.csi.k8s.io", True, False, False, "<unset>", False, "Persistent"]


async def test_a_csi_driver_refuses_bad_modes_and_keeps_its_attach_requirement(
    api: httpx.AsyncClient,
) -> None:
    bad = obj("CSIDriver", "d1", spec={"volumeLifecycleModes": ["Sometimes"], "fsGroupPolicy": "Any"})
    answer = await api.post(f"{STORAGE}/csidrivers", json=bad)
    assert answer.status_code == 422
    assert answer.json()["message"] == (
        'CSIDriver.storage.k8s.io "d1" is invalid: [spec.fsGroupPolicy: Unsupported value: "Any": supported '
        'values: "File", "None", "ReadWriteOnceWithFSType", spec.volumeLifecycleModes: Unsupported value: '
        '"Sometimes": supported values: "Ephemeral", "Persistent"]'
    )
    body = (await api.post(f"{STORAGE}/csidrivers", json=obj("CSIDriver", "d2", spec={}))).json()
    body["spec"]["attachRequired"] = False
    refused = await api.put(f"{STORAGE}/csidrivers/d2", json=body)
    assert refused.status_code == 422
    assert "spec.attachedRequired: Invalid value: false: field is immutable" in refused.json()["message"]


async def test_a_csi_node_counts_its_drivers_and_keeps_their_node_ids(api: httpx.AsyncClient) -> None:
    spec = {"drivers": [{"name": "hostpath.csi.k8s.io", "nodeID": "node-1", "topologyKeys": ["zone"]}]}
    created = await api.post(f"{STORAGE}/csinodes", json=obj("CSINode", "node-1", spec=spec))
    assert created.status_code == 201, created.text
    names, row = await cells(api, "csinodes")
    assert names == ["Name", "Drivers", "Age"] and row[:2] == ["node-1", 1]
    body = created.json()
    body["spec"]["drivers"][0]["nodeID"] = "other"
    refused = await api.put(f"{STORAGE}/csinodes/node-1", json=body)
    assert refused.json()["message"] == (
        'CSINode.storage.k8s.io "node-1" is invalid: spec.drivers[0].nodeID: Invalid value: "other": '
        "field is immutable"
    )
    missing = obj("CSINode", "node-2", spec={"drivers": [{"name": "a"}, {"name": "a", "nodeID": "x"}]})
    answer = await api.post(f"{STORAGE}/csinodes", json=missing)
    assert answer.json()["message"] == (
        'CSINode.storage.k8s.io "node-2" is invalid: [spec.drivers[0].nodeID: Required value: nodeID must be '
        'provided, spec.drivers[1].name: Duplicate value: "a"]'
    )


async def test_a_volume_attachment_has_a_status_and_a_fixed_spec(api: httpx.AsyncClient) -> None:
    spec = {
        "attacher": "hostpath.csi.k8s.io",
        "source": {"persistentVolumeName": "pv1"},
        "nodeName": "node-1",
    }
    created = await api.post(f"{STORAGE}/volumeattachments", json=obj("VolumeAttachment", "va1", spec=spec))
    assert created.status_code == 201, created.text
    body = created.json()
    body["status"] = {"attached": True}
    kept = (await api.put(f"{STORAGE}/volumeattachments/va1", json=body)).json()
    assert kept["status"] == {"attached": False}  # the main resource keeps the status
    kept["status"] = {"attached": True}
    attached = await api.put(f"{STORAGE}/volumeattachments/va1/status", json=kept)
    assert attached.json()["status"] == {"attached": True}
    names, row = await cells(api, "volumeattachments")
    assert names == ["Name", "Attacher", "PV", "Node", "Attached", "Age"]
    assert row[:5] == ["va1", "hostpath.csi.k8s.io", "pv1", "node-1", True]
    moved = attached.json()
    moved["spec"]["nodeName"] = "node-2"
    refused = await api.put(f"{STORAGE}/volumeattachments/va1", json=moved)
    assert refused.status_code == 422 and "spec: Invalid value:" in refused.json()["message"]
    assert refused.json()["message"].endswith("field is immutable")


async def test_a_volume_attachment_needs_one_source_an_attacher_and_a_node(api: httpx.AsyncClient) -> None:
    source = {"persistentVolumeName": "pv1", "inlineVolumeSpec": {}}
    answer = await api.post(
        f"{STORAGE}/volumeattachments", json=obj("VolumeAttachment", "va2", spec={"source": source})
    )
    assert answer.json()["message"] == (
        'VolumeAttachment.storage.k8s.io "va2" is invalid: [spec.attacher: Required value: attacher name is '
        "required, spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and "
        'persistentVolumeName, spec.nodeName: Invalid value: "": a lowercase RFC 1123 subdomain must '
        "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"
    )


async def test_a_csi_driver_token_request_lasts_ten_minutes_and_names_its_audience_once(
    api: httpx.AsyncClient,
) -> None:
    tokens = [{"audience": "a", "expirationSeconds": 60}, {"audience": "a"}]
    answer = await api.post(
        f"{STORAGE}/csidrivers", json=obj("CSIDriver", "d3", spec={"tokenRequests": tokens})
    )
    assert answer.json()["message"] == (
        'CSIDriver.storage.k8s.io "d3" is invalid: [spec.tokenRequests[0].expirationSeconds: Invalid value: '
        "60: may not specify a duration less than 10 minutes, spec.tokenRequests[1].audience: Duplicate "
        'value: "a"]'
    )
    good = obj("CSIDriver", "d4", spec={"tokenRequests": [{"audience": "vault"}, {"audience": "gcp"}]})
    assert (await api.post(f"{STORAGE}/csidrivers", json=good)).status_code == 201
    table = (await api.get(f"{STORAGE}/csidrivers/d4", headers=TABLE)).json()
    assert table["rows"][0]["cells"][4] == "vault,gcp"

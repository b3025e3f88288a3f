"""CRUD through ``RESTClient`` against a real HTTPS apiserver: paths, query parameters,
bodies and errors decoded from the server's ``Status``."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.errors import ApiError
from minikube_py.client import APPLY_PATCH, JSON_PATCH, STRATEGIC_MERGE_PATCH, RESTClient
from minikube_py.client.resourcetypes import CONFIGMAPS, DEPLOYMENTS, NAMESPACES, NODES, PODS


def configmap(name: str, labels: dict[str, str] | None = None, **data: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def pod(name: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    container = {"name": "app", "image": "nginx:1.27"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [container], **spec},
    }


async def test_create_get_and_list_with_label_selector(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    created = await cms.create(configmap("a", {"app": "web"}, k="1"))
    await cms.create(configmap("b", {"app": "db"}))
    assert created["metadata"]["namespace"] == "default"
    assert created["metadata"]["uid"]
    got = await cms.get("a")
    assert got["data"] == {"k": "1"}
    assert got["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    listed = await cms.list(label_selector="app=web")
    assert listed["kind"] == "ConfigMapList"
    assert [i["metadata"]["name"] for i in listed["items"]] == ["a"]
    assert int(listed["metadata"]["resourceVersion"]) >= int(created["metadata"]["resourceVersion"])
    everything = await cms.list(label_selector="app")
    assert sorted(i["metadata"]["name"] for i in everything["items"]) == ["a", "b"]


async def test_list_pages_with_limit_and_continue(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    for i in range(5):
        await cms.create(configmap(f"page-{i}", {"paged": "yes"}))
    names, token, pages = [], "", 0
    while True:
        page = await cms.list(label_selector="paged=yes", limit=2, continue_=token)
        pages += 1
        names += [i["metadata"]["name"] for i in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert pages == 3
    assert names == [f"page-{i}" for i in range(5)]


async def test_field_selector_and_all_namespaces(client: RESTClient) -> None:
    await client.resource(NAMESPACES).create({"metadata": {"name": "other"}})
    await client.resource(CONFIGMAPS, "default").create(configmap("same"))
    await client.resource(CONFIGMAPS, "other").create(configmap("same"))
    everywhere = client.resource(CONFIGMAPS)
    listed = await everywhere.list(field_selector="metadata.name=same")
    assert sorted(i["metadata"]["namespace"] for i in listed["items"]) == ["default", "other"]
    other_only = await everywhere.list(field_selector="metadata.name=same,metadata.namespace=other")
    assert [i["metadata"]["namespace"] for i in other_only["items"]] == ["other"]


async def test_create_without_handle_namespace_uses_the_objects(client: RESTClient) -> None:
    everywhere = client.resource(CONFIGMAPS)
    obj = configmap("from-meta")
    obj["metadata"]["namespace"] = "kube-public"
    created = await everywhere.create(obj)
    assert created["metadata"]["namespace"] == "kube-public"
    assert (await client.resource(CONFIGMAPS, "kube-public").get("from-meta"))["metadata"]["uid"]
    with pytest.raises(ApiError) as err:
        await everywhere.create(configmap("nowhere"))
    assert (err.value.code, err.value.reason) == (400, "BadRequest")


async def test_cluster_scoped_resources_ignore_the_namespace(client: RESTClient) -> None:
    nodes = client.resource(NODES, "default")
    assert nodes.namespace is None
    await nodes.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    assert (await client.resource(NODES).get("n1"))["metadata"]["name"] == "n1"


async def test_not_found_carries_upstreams_status(client: RESTClient) -> None:
    with pytest.raises(ApiError) as err:
        await client.resource(CONFIGMAPS, "default").get("missing")
    assert (err.value.code, err.value.reason) == (404, "NotFound")
    assert err.value.message == 'configmaps "missing" not found'
    assert (err.value.name, err.value.kind) == ("missing", "configmaps")
    with pytest.raises(ApiError) as grouped:
        await client.resource(DEPLOYMENTS, "default").get("missing")
    assert grouped.value.message == 'deployments.apps "missing" not found'
    assert grouped.value.group == "apps"


async def test_already_exists_and_invalid(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    await cms.create(configmap("dup"))
    with pytest.raises(ApiError) as exists:
        await cms.create(configmap("dup"))
    assert (exists.value.code, exists.value.reason) == (409, "AlreadyExists")
    with pytest.raises(ApiError) as invalid:
        await cms.create(configmap("Not_A_Name"))
    assert (invalid.value.code, invalid.value.reason) == (422, "Invalid")
    assert invalid.value.causes and invalid.value.causes[0].field == "metadata.name"


async def test_update_with_stale_resource_version_conflicts(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    first = await cms.create(configmap("c", v="1"))
    second = await cms.update({**first, "data": {"v": "2"}})
    assert second["data"] == {"v": "2"}
    assert second["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]
    with pytest.raises(ApiError) as err:
        await cms.update({**first, "data": {"v": "stale"}})
    assert (err.value.code, err.value.reason) == (409, "Conflict")
    assert err.value.message.startswith('Operation cannot be fulfilled on configmaps "c"')
    assert (await cms.get("c"))["data"] == {"v": "2"}


async def test_update_status_writes_only_the_status(client: RESTClient) -> None:
    pods = client.resource(PODS, "default")
    created = await pods.create(pod("p"))
    changed = {
        **created,
        "spec": {**created["spec"], "activeDeadlineSeconds": 5},
        "status": {"phase": "Running", "podIP": "10.244.0.7"},
    }
    updated = await pods.update_status(changed)
    assert updated["status"]["phase"] == "Running"
    assert updated["status"]["podIP"] == "10.244.0.7"
    assert "activeDeadlineSeconds" not in updated["spec"]


async def test_merge_strategic_and_json_patches(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    await cms.create(configmap("m", a="1", b="2"))
    merged = await cms.patch("m", {"data": {"a": None, "c": "3"}})
    assert merged["data"] == {"b": "2", "c": "3"}
    jsoned = await cms.patch(
        "m", [{"op": "replace", "path": "/data/b", "value": "20"}], patch_type=JSON_PATCH
    )
    assert jsoned["data"] == {"b": "20", "c": "3"}

    pods = client.resource(PODS, "default")
    await pods.create(pod("sp"))
    sidecar = {"name": "sidecar", "image": "busybox:1.36"}
    patched = await pods.patch("sp", {"spec": {"containers": [sidecar]}}, patch_type=STRATEGIC_MERGE_PATCH)
    # strategic merge: containers merge by name (a merge patch would have replaced the list)
    assert [c["name"] for c in patched["spec"]["containers"]] == ["sidecar", "app"]


async def test_patch_status_subresource_and_field_manager(client: RESTClient) -> None:
    pods = client.resource(PODS, "default")
    await pods.create(pod("ps"))
    patched = await pods.patch(
        "ps", {"status": {"phase": "Succeeded"}}, subresource="status", field_manager="tester"
    )
    assert patched["status"]["phase"] == "Succeeded"
    managers = {(m["manager"], m.get("subresource", "")) for m in patched["metadata"]["managedFields"]}
    assert ("tester", "status") in managers


async def test_delete_with_propagation_policy_preconditions_and_grace(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    created = await cms.create(configmap("d"))
    with pytest.raises(ApiError) as err:
        await cms.delete("d", preconditions={"uid": "not-the-uid"})
    assert (err.value.code, err.value.reason) == (409, "Conflict")
    kept = await cms.delete("d", propagation_policy="Foreground")
    assert kept["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert kept["metadata"]["deletionTimestamp"]
    assert kept["metadata"]["uid"] == created["metadata"]["uid"]

    await cms.create(configmap("gone"))
    status = await cms.delete("gone", propagation_policy="Background")
    assert status["kind"] in ("Status", "ConfigMap")
    with pytest.raises(ApiError) as missing:
        await cms.get("gone")
    assert missing.value.code == 404

    pods = client.resource(PODS, "default")
    await pods.create(pod("graceful", nodeName="node-1"))
    terminating = await pods.delete("graceful")
    assert terminating["metadata"]["deletionGracePeriodSeconds"] == 30
    await pods.delete("graceful", grace_period_seconds=0)
    with pytest.raises(ApiError) as removed:
        await pods.get("graceful")
    assert removed.value.code == 404


async def test_create_subresource_binding(client: RESTClient) -> None:
    pods = client.resource(PODS, "default")
    await pods.create(pod("b"))
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "b", "namespace": "default"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"},
    }
    result = await pods.create_subresource("b", "binding", binding)
    assert result["kind"] == "Status" and result["status"] == "Success"
    assert (await pods.get("b"))["spec"]["nodeName"] == "node-1"
    with pytest.raises(ApiError) as err:
        await client.resource(PODS).create_subresource("b", "binding", binding)  # namespace from the body
    assert (err.value.code, err.value.reason) == (409, "Conflict")
    assert "already assigned" in err.value.message


async def test_apply_patch(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    applied = await cms.patch("ap", configmap("ap", x="1"), patch_type=APPLY_PATCH, field_manager="me")
    assert applied["data"] == {"x": "1"}
    with pytest.raises(ApiError) as conflict:
        await cms.patch("ap", configmap("ap", x="2"), patch_type=APPLY_PATCH, field_manager="you")
    assert (conflict.value.code, conflict.value.reason) == (409, "Conflict")
    forced = await cms.patch(
        "ap", configmap("ap", x="2"), patch_type=APPLY_PATCH, field_manager="you", force=True
    )
    assert forced["data"] == {"x": "2"}

"""The served OpenAPI documents are complete and valid: every verb the catalog serves on each
path with upstream's operationIds, actions, kinds, parameters and bodies (v3 per group-version,
checked with openapi-spec-validator), ``/openapi/v2`` as Swagger 2.0 JSON and as gnostic
protobuf, and upstream's ETag caching."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate

from apiserver.endpoints.openapi import V2_PROTOBUF, OpenAPI
from apiserver.registry.catalog import Catalog
from apiserver.storage.memory import MemoryKV
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.protobuf.wire import iter_fields

SCHEMAS = "#/components/schemas/"
POD = "/api/v1/namespaces/{namespace}/pods/{name}"


@pytest.fixture(scope="module")
def openapi() -> OpenAPI:
    catalog = Catalog(MemoryKV())
    return OpenAPI(catalog.scheme, catalog.returns_deleted_object)


@pytest.fixture(scope="module")
def core(openapi: OpenAPI) -> dict[str, Any]:
    return openapi.v3_document("api/v1")


@pytest.fixture(scope="module")
def apps(openapi: OpenAPI) -> dict[str, Any]:
    return openapi.v3_document("apis/apps/v1")


def test_every_v3_document_is_valid_openapi(openapi: OpenAPI) -> None:
    for group, version in builtin_scheme().group_versions():
        path = f"apis/{group}/{version}" if group else f"api/{version}"
        validate(openapi.v3_document(path))  # raises on an invalid document


def test_v2_document_is_valid_swagger(openapi: OpenAPI) -> None:
    validate(openapi.v2_document)


def _operations(doc: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    return {
        op["operationId"]: (path, method, op)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method != "parameters"
    }


def test_pod_operations_are_named_as_upstream(core: dict[str, Any]) -> None:
    ops = _operations(core)
    expected = {
        "listCoreV1NamespacedPod": ("/api/v1/namespaces/{namespace}/pods", "get", "list"),
        "createCoreV1NamespacedPod": ("/api/v1/namespaces/{namespace}/pods", "post", "post"),
        "deleteCoreV1CollectionNamespacedPod": (
            "/api/v1/namespaces/{namespace}/pods",
            "delete",
            "deletecollection",
        ),
        "readCoreV1NamespacedPod": (POD, "get", "get"),
        "replaceCoreV1NamespacedPod": (POD, "put", "put"),
        "patchCoreV1NamespacedPod": (POD, "patch", "patch"),
        "deleteCoreV1NamespacedPod": (POD, "delete", "delete"),
        "listCoreV1PodForAllNamespaces": ("/api/v1/pods", "get", "list"),
        "watchCoreV1NamespacedPodList": ("/api/v1/watch/namespaces/{namespace}/pods", "get", "watchlist"),
        "watchCoreV1NamespacedPod": ("/api/v1/watch/namespaces/{namespace}/pods/{name}", "get", "watch"),
        "watchCoreV1PodListForAllNamespaces": ("/api/v1/watch/pods", "get", "watchlist"),
        "readCoreV1NamespacedPodStatus": (POD + "/status", "get", "get"),
        "patchCoreV1NamespacedPodStatus": (POD + "/status", "patch", "patch"),
        "createCoreV1NamespacedPodBinding": (POD + "/binding", "post", "post"),
        "createCoreV1NamespacedPodEviction": (POD + "/eviction", "post", "post"),
        "readCoreV1NamespacedPodLog": (POD + "/log", "get", "get"),
        "connectCoreV1GetNamespacedPodExec": (POD + "/exec", "get", "connect"),
        "connectCoreV1PostNamespacedPodExec": (POD + "/exec", "post", "connect"),
        "replaceCoreV1NamespaceFinalize": ("/api/v1/namespaces/{name}/finalize", "put", "put"),
        "createCoreV1NamespacedServiceAccountToken": (
            "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
            "post",
            "post",
        ),
        "listCoreV1Node": ("/api/v1/nodes", "get", "list"),
        "deleteCoreV1CollectionNode": ("/api/v1/nodes", "delete", "deletecollection"),
        "readCoreV1NamespaceStatus": ("/api/v1/namespaces/{name}/status", "get", "get"),
        "watchCoreV1NodeList": ("/api/v1/watch/nodes", "get", "watchlist"),
        "readCoreV1Node": ("/api/v1/nodes/{name}", "get", "get"),
    }
    for operation_id, (path, method, action) in expected.items():
        assert operation_id in ops, operation_id
        found_path, found_method, op = ops[operation_id]
        assert (found_path, found_method, op["x-kubernetes-action"]) == (path, method, action)
        assert op["tags"] == ["core_v1"]


def test_kinds_of_operations(core: dict[str, Any], apps: dict[str, Any]) -> None:
    ops = _operations(core) | _operations(apps)
    gvk = {name: op["x-kubernetes-group-version-kind"] for name, (_, _, op) in ops.items()}
    assert gvk["readCoreV1NamespacedPod"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert gvk["createCoreV1NamespacedPodEviction"] == {
        "group": "policy",
        "version": "v1",
        "kind": "Eviction",
    }
    assert gvk["readAppsV1NamespacedDeploymentScale"] == {
        "group": "autoscaling",
        "version": "v1",
        "kind": "Scale",
    }
    assert gvk["patchAppsV1NamespacedDeploymentStatus"] == {
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
    }


def test_path_parameters_are_declared(openapi: OpenAPI) -> None:
    for group, version in builtin_scheme().group_versions():
        doc = openapi.v3_document(f"apis/{group}/{version}" if group else f"api/{version}")
        for path, item in doc["paths"].items():
            declared = {p["name"] for p in item.get("parameters", []) if p["in"] == "path"}
            templated = {part[1:-1] for part in path.split("/") if part.startswith("{")}
            assert declared == templated, path


def test_bodies_and_responses(core: dict[str, Any]) -> None:
    item = core["paths"][POD]
    assert item["put"]["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": SCHEMAS + "io.k8s.api.core.v1.Pod"
    }
    assert set(item["patch"]["requestBody"]["content"]) == {
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
    }
    assert {p["name"] for p in item["patch"]["parameters"]} == {
        "dryRun",
        "fieldManager",
        "fieldValidation",
        "force",
    }
    ok = item["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": SCHEMAS + "io.k8s.api.core.v1.Pod"}
    deleted = item["delete"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert deleted == {"$ref": SCHEMAS + "io.k8s.api.core.v1.Pod"}  # pods return the deleted object
    configmap = core["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["delete"]
    status = configmap["responses"]["200"]["content"]["application/json"]["schema"]
    assert status == {"$ref": SCHEMAS + "io.k8s.apimachinery.pkg.apis.meta.v1.Status"}
    listing = core["paths"]["/api/v1/namespaces/{namespace}/pods"]["get"]
    assert {"watch", "labelSelector", "fieldSelector", "limit", "continue", "resourceVersion"} <= {
        p["name"] for p in listing["parameters"]
    }
    assert set(listing["responses"]["200"]["content"]) == {
        "application/json",
        "application/json;stream=watch",
    }
    log = core["paths"][POD + "/log"]["get"]["responses"]["200"]["content"]
    assert log == {"text/plain": {"schema": {"type": "string"}}}


def test_verbs_follow_the_catalog(core: dict[str, Any], openapi: OpenAPI) -> None:
    namespaces = core["paths"]["/api/v1/namespaces"]
    assert set(namespaces) == {"get", "post", "parameters"}  # namespaces have no deletecollection
    reviews = openapi.v3_document("apis/authorization.k8s.io/v1")["paths"]
    assert set(reviews["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"]) == {"post", "parameters"}
    assert "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/{name}" not in reviews


def _message(data: bytes) -> dict[int, list[Any]]:
    fields: dict[int, list[Any]] = {}
    for number, _wire, value in iter_fields(data):
        fields.setdefault(number, []).append(value)
    return fields


def _named(entries: list[bytes]) -> dict[str, bytes]:
    return {bytes(_message(e)[1][0]).decode(): bytes(_message(e)[2][0]) for e in entries}


def test_v2_protobuf_is_the_same_document(openapi: OpenAPI) -> None:
    document = openapi.v2_document
    body = openapi._v2_protobuf[0]
    top = _message(body)
    assert bytes(top[1][0]) == b"2.0"
    paths = _named(_message(bytes(top[8][0]))[2])
    assert list(paths) == list(document["paths"])
    get = _message(_message(paths[POD])[2][0])  # PathItem.get
    assert bytes(get[5][0]) == b"readCoreV1NamespacedPod"
    definitions = _named(_message(bytes(top[9][0]))[1])
    assert list(definitions) == list(document["definitions"])
    pod = _message(definitions["io.k8s.api.core.v1.Pod"])
    extensions = _named(pod[31])
    gvk = json.loads(bytes(_message(extensions["x-kubernetes-group-version-kind"])[2][0]))
    assert gvk == [{"group": "", "kind": "Pod", "version": "v1"}]


def test_v2_refs_point_into_definitions(openapi: OpenAPI) -> None:
    text = json.dumps(openapi.v2_document)
    assert SCHEMAS not in text
    spec = openapi.v2_document["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert spec["items"] == {"$ref": "#/definitions/io.k8s.api.core.v1.Container"}
    quantity = openapi.v2_document["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"]
    assert quantity["type"] == "string" and "oneOf" not in quantity


async def test_v2_negotiation_and_etag(api: httpx.AsyncClient) -> None:
    plain = await api.get("/openapi/v2")
    assert plain.status_code == 200 and plain.headers["content-type"] == "application/json"
    assert plain.json()["swagger"] == "2.0"
    kubectl_accept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
    proto = await api.get("/openapi/v2", headers={"Accept": kubectl_accept})
    assert proto.status_code == 200 and proto.headers["content-type"] == V2_PROTOBUF
    assert "@" not in proto.headers["content-type"]  # kubectl's mime parser rejects it
    assert proto.content[:5] == b"\n\x032.0"
    etag = proto.headers["etag"]
    assert etag != plain.headers["etag"]
    again = await api.get("/openapi/v2", headers={"Accept": kubectl_accept, "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""


async def test_v3_document_etag_and_hash(api: httpx.AsyncClient) -> None:
    index = (await api.get("/openapi/v3")).json()["paths"]
    url = index["api/v1"]["serverRelativeURL"]
    doc = await api.get(url)
    assert doc.status_code == 200 and doc.headers["cache-control"] == "public, immutable"
    assert doc.json()["paths"][POD]["get"]["operationId"] == "readCoreV1NamespacedPod"
    fresh = await api.get("/openapi/v3/api/v1", headers={"If-None-Match": doc.headers["etag"]})
    assert fresh.status_code == 304
    missing = await api.get("/openapi/v3/apis/nope/v1")
    assert missing.status_code == 404 and missing.json()["reason"] == "NotFound"


def test_operation_ids_are_unique(openapi: OpenAPI) -> None:
    """Client generators name methods after them: one per operation in the whole server."""
    ids = [
        op["operationId"]
        for item in openapi.v2_document["paths"].values()
        for method, op in item.items()
        if method != "parameters"
    ]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


async def test_v3_stale_hash_redirects_to_the_current_document(api: httpx.AsyncClient) -> None:
    current = (await api.get("/openapi/v3")).json()["paths"]["apis/apps/v1"]["serverRelativeURL"]
    stale = await api.get("/openapi/v3/apis/apps/v1?hash=0123")
    assert stale.status_code == 301 and stale.headers["location"] == current
    plain = await api.get("/openapi/v3/apis/apps/v1")
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache, private"

"""The OpenAPI v3 documents: PATCH operations for kubectl's field validation check, complete
schemas for explain, and strategic merge patch metadata. (The paths, the validity of the
documents and ``/openapi/v2`` are tested in test_openapi_paths.py.)"""

from __future__ import annotations

import json
from typing import Any

import pytest

from apiserver.endpoints.openapi import OpenAPI, group_version_document
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.scheme import Scheme

SCHEMES = "#/components/schemas/"


@pytest.fixture(scope="module")
def scheme() -> Scheme:
    return builtin_scheme()


@pytest.fixture(scope="module")
def core(scheme: Scheme) -> dict[str, Any]:
    return group_version_document(scheme, "", "v1")


@pytest.fixture(scope="module")
def apps(scheme: Scheme) -> dict[str, Any]:
    return group_version_document(scheme, "apps", "v1")


def test_patch_operations_declare_field_validation(apps: dict[str, Any]) -> None:
    operation = apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert operation["x-kubernetes-group-version-kind"] == {
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
    }
    field_validation = next(p for p in operation["parameters"] if p["name"] == "fieldValidation")
    assert field_validation["in"] == "query"


def test_every_kind_of_the_group_version_has_a_schema(scheme: Scheme) -> None:
    for group, version in scheme.group_versions():
        doc = group_version_document(scheme, group, version)
        marked = {
            (g["group"], g["version"], g["kind"])
            for schema in doc["components"]["schemas"].values()
            for g in schema.get("x-kubernetes-group-version-kind", [])
        }
        for rt in scheme.in_group_version(group, version):
            assert (group, version, rt.kind) in marked
            assert (group, version, rt.kind + "List") in marked


def test_every_reference_resolves_within_its_document(scheme: Scheme) -> None:
    for group, version in scheme.group_versions():
        doc = group_version_document(scheme, group, version)
        schemas = doc["components"]["schemas"]
        for target in _refs(doc):
            assert target.removeprefix(SCHEMES) in schemas, (group, version, target)


def test_subresource_kinds_are_included(core: dict[str, Any], apps: dict[str, Any]) -> None:
    scale = apps["components"]["schemas"]["io.k8s.api.autoscaling.v1.Scale"]
    assert scale["x-kubernetes-group-version-kind"] == [
        {"group": "autoscaling", "kind": "Scale", "version": "v1"}
    ]
    assert "io.k8s.api.policy.v1.Eviction" in core["components"]["schemas"]
    assert "io.k8s.api.core.v1.Binding" in core["components"]["schemas"]


def test_strategic_merge_patch_metadata(core: dict[str, Any], apps: dict[str, Any]) -> None:
    schemas = core["components"]["schemas"]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    volumes = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["volumes"]
    assert volumes["x-kubernetes-patch-strategy"] == "merge,retainKeys"
    ports = schemas["io.k8s.api.core.v1.Container"]["properties"]["ports"]
    assert ports["x-kubernetes-patch-merge-key"] == "containerPort"
    finalizers = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["finalizers"]
    assert finalizers["x-kubernetes-patch-strategy"] == "merge"
    assert "x-kubernetes-patch-merge-key" not in finalizers
    tolerations = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["tolerations"]
    assert "x-kubernetes-patch-strategy" not in tolerations
    strategy = apps["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"]
    assert strategy["x-kubernetes-patch-strategy"] == "retainKeys"


def test_index_links_every_document_with_a_content_hash(scheme: Scheme) -> None:
    first, second = OpenAPI(scheme), OpenAPI(scheme)
    urls = json.loads(bytes(first.index(None).body))["paths"]  # type: ignore[arg-type]
    assert urls == json.loads(bytes(second.index(None).body))["paths"]  # type: ignore[arg-type]
    assert urls["apis/apps/v1"]["serverRelativeURL"].startswith("/openapi/v3/apis/apps/v1?hash=")
    hashes = {u["serverRelativeURL"].split("hash=")[1] for u in urls.values()}
    assert len(hashes) == len(urls) == len(scheme.group_versions())


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if "$ref" in value else []
        return found + [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


def test_shared_models_carry_patch_metadata_in_every_document(scheme: Scheme) -> None:
    """ObjectMeta is one model in every group: its merge strategies are in each document,
    whichever kinds the group has."""
    for group, version in scheme.group_versions():
        schemas = group_version_document(scheme, group, version)["components"]["schemas"]
        meta = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]
        assert meta["finalizers"]["x-kubernetes-patch-strategy"] == "merge", (group, version)

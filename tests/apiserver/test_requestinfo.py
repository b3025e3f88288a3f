"""RequestInfo parsing, table-driven from upstream's documented examples."""

from __future__ import annotations

import pytest

from apiserver.request.info import request_info

CASES = [
    # method, path, query, (verb, group, version, namespace, resource, subresource, name)
    ("GET", "/api/v1/namespaces", {}, ("list", "", "v1", "", "namespaces", "", "")),
    ("GET", "/api/v1/namespaces/other", {}, ("get", "", "v1", "other", "namespaces", "", "other")),
    (
        "GET",
        "/api/v1/namespaces/other/status",
        {},
        ("get", "", "v1", "other", "namespaces", "status", "other"),
    ),
    (
        "PUT",
        "/api/v1/namespaces/other/finalize",
        {},
        ("update", "", "v1", "other", "namespaces", "finalize", "other"),
    ),
    ("GET", "/api/v1/namespaces/other/pods", {}, ("list", "", "v1", "other", "pods", "", "")),
    ("GET", "/api/v1/namespaces/other/pods/foo", {}, ("get", "", "v1", "other", "pods", "", "foo")),
    ("GET", "/api/v1/namespaces/other/pods/foo/log", {}, ("get", "", "v1", "other", "pods", "log", "foo")),
    ("GET", "/api/v1/pods", {}, ("list", "", "v1", "", "pods", "", "")),
    ("GET", "/api/v1/pods", {"watch": "true"}, ("watch", "", "v1", "", "pods", "", "")),
    # upstream's Convert_Slice_string_To_bool: only 0 and false (any case) are false
    ("GET", "/api/v1/pods", {"watch": "True"}, ("watch", "", "v1", "", "pods", "", "")),
    ("GET", "/api/v1/pods", {"watch": ""}, ("watch", "", "v1", "", "pods", "", "")),
    ("GET", "/api/v1/pods", {"watch": "yes"}, ("watch", "", "v1", "", "pods", "", "")),
    ("GET", "/api/v1/pods", {"watch": "FALSE"}, ("list", "", "v1", "", "pods", "", "")),
    ("GET", "/api/v1/pods", {"watch": "0"}, ("list", "", "v1", "", "pods", "", "")),
    # with a name, upstream decodes no ListOptions: a plain get
    (
        "GET",
        "/api/v1/namespaces/other/pods/foo",
        {"watch": "true"},
        ("get", "", "v1", "other", "pods", "", "foo"),
    ),
    ("GET", "/api/v1/watch/namespaces/other/pods", {}, ("watch", "", "v1", "other", "pods", "", "")),
    ("POST", "/api/v1/namespaces/other/pods", {}, ("create", "", "v1", "other", "pods", "", "")),
    (
        "PATCH",
        "/apis/apps/v1/namespaces/d/deployments/web/scale",
        {},
        ("patch", "apps", "v1", "d", "deployments", "scale", "web"),
    ),
    ("DELETE", "/api/v1/namespaces/other/pods/foo", {}, ("delete", "", "v1", "other", "pods", "", "foo")),
    ("DELETE", "/api/v1/namespaces/other/pods", {}, ("deletecollection", "", "v1", "other", "pods", "", "")),
    (
        "GET",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin",
        {},
        ("get", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "", "admin"),
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "query", "expected"), CASES, ids=[f"{c[0]} {c[1]}" for c in CASES]
)
def test_resource_requests(method: str, path: str, query: dict[str, str], expected: tuple[str, ...]) -> None:
    info = request_info(method, path, query)
    assert info.is_resource_request
    got = (
        info.verb,
        info.api_group,
        info.api_version,
        info.namespace,
        info.resource,
        info.subresource,
        info.name,
    )
    assert got == expected


@pytest.mark.parametrize(
    "path", ["/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/healthz", "/openapi/v3"]
)
def test_non_resource_requests(path: str) -> None:
    info = request_info("GET", path, {})
    assert not info.is_resource_request and info.verb == "get"

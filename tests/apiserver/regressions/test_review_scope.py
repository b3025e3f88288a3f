"""Regressions from a review of the REST layer: each test asserts upstream's behaviour
for a case the first cut got wrong (or checks one it got right)."""

from __future__ import annotations

import json

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}, "data": {"a": "1"}}


async def test_cluster_scoped_resource_under_namespace_is_404(api):
    r = await api.get("/api/v1/nodes")
    assert r.status_code == 200
    # upstream: nodes are not served under /namespaces/{ns}/ -> 404 NotFound
    r = await api.get("/api/v1/namespaces/default/nodes")
    assert r.status_code == 404, r.text
    r = await api.get("/apis/rbac.authorization.k8s.io/v1/namespaces/default/clusterroles")
    assert r.status_code == 404, r.text


async def test_watch_with_name_only_sees_that_object(api):
    for n in ("c1", "c2"):
        body = {**CM, "metadata": {"name": n}}
        assert (await api.post("/api/v1/namespaces/default/configmaps", json=body)).status_code == 201
    # upstream serves ?watch on a named path as a plain get (it reads ListOptions only without
    # a name); a watch of one object is the /watch/ prefix
    got = await api.get("/api/v1/namespaces/default/configmaps/c1?watch=true")
    assert got.json()["metadata"]["name"] == "c1" and got.json()["kind"] == "ConfigMap"
    lines = []
    async with api.stream("GET", "/api/v1/watch/namespaces/default/configmaps/c1?timeoutSeconds=1") as r:
        assert r.status_code == 200
        async for line in r.aiter_lines():
            if line:
                lines.append(json.loads(line))
    names = [e["object"]["metadata"]["name"] for e in lines]
    assert names == ["c1"], names


async def test_post_to_a_named_url_is_405(api):
    r = await api.post("/api/v1/namespaces/default/configmaps/c9", json=CM)
    assert r.status_code == 405 and r.json()["reason"] == "MethodNotAllowed"


async def test_unknown_propagation_policy_is_422_and_deletes_nothing(api):
    assert (await api.post("/api/v1/namespaces/default/configmaps", json=CM)).status_code == 201
    r = await api.request(
        "DELETE", "/api/v1/namespaces/default/configmaps/c1", json={"propagationPolicy": "Foo"}
    )
    assert r.status_code == 422 and r.json()["reason"] == "Invalid"
    assert 'Unsupported value: "Foo"' in r.json()["message"]
    assert (await api.get("/api/v1/namespaces/default/configmaps/c1")).status_code == 200

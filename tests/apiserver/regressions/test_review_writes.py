"""Regressions from a review of the REST layer: each test asserts upstream's behaviour
for a case the first cut got wrong (or checks one it got right)."""

from __future__ import annotations

NS = "/api/v1/namespaces/default"
CM = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "c1", "finalizers": ["x/y"]},
    "data": {"a": "1"},
}


async def test_dry_run_delete_with_finalizers_leaves_object_untouched(api):
    assert (await api.post(f"{NS}/configmaps", json=CM)).status_code == 201
    r = await api.delete(f"{NS}/configmaps/c1?dryRun=All")
    assert r.status_code == 200, r.text
    got = (await api.get(f"{NS}/configmaps/c1")).json()
    assert "deletionTimestamp" not in got["metadata"], got


async def test_eviction_bad_delete_options_is_status_not_500(api):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    assert (await api.post(f"{NS}/pods", json=pod)).status_code == 201, "create"
    body = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "p"},
        "deleteOptions": {"gracePeriodSeconds": "abc"},
    }
    r = await api.post(f"{NS}/pods/p/eviction", json=body)
    assert r.status_code == 400, r.text


async def test_binding_bad_annotations_is_status_not_500(api):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    assert (await api.post(f"{NS}/pods", json=pod)).status_code == 201
    body = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p", "annotations": ["x"]},
        "target": {"kind": "Node", "name": "n1"},
    }
    r = await api.post(f"{NS}/pods/p/binding", json=body)
    assert r.status_code in (400, 422), r.text

"""Regressions from a review of the REST layer: each test asserts upstream's behaviour
for a case the first cut got wrong (or checks one it got right)."""

from __future__ import annotations

NS = "/api/v1/namespaces/default"
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}, "data": {"a": "1"}}


async def test_deletecollection_without_namespace_does_not_wipe_all_namespaces(api):
    assert (await api.post(f"{NS}/configmaps", json=CM)).status_code == 201
    r = await api.delete("/api/v1/configmaps")
    # upstream only serves list/watch at /api/v1/configmaps: 405, nothing deleted
    assert r.status_code == 405, r.text
    assert (await api.get(f"{NS}/configmaps/c1")).status_code == 200


async def test_delete_preconditions_not_object_is_400(api):
    assert (await api.post(f"{NS}/configmaps", json=CM)).status_code == 201
    r = await api.request("DELETE", f"{NS}/configmaps/c1", json={"preconditions": "x"})
    assert r.status_code == 400, r.text
    assert (await api.get(f"{NS}/configmaps/c1")).status_code == 200


async def test_name_not_string_is_422(api):
    r = await api.post(f"{NS}/configmaps", json={**CM, "metadata": {"name": 5}})
    assert r.status_code in (400, 422), r.text


async def test_generate_name_not_string_is_4xx(api):
    r = await api.post(f"{NS}/configmaps", json={**CM, "metadata": {"generateName": 5}})
    assert r.status_code in (400, 422), r.text


async def test_evict_scheduled_pod_bad_grace_is_400(api):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
    }
    assert (await api.post(f"{NS}/pods", json=pod)).status_code == 201
    body = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "p"},
        "deleteOptions": {"gracePeriodSeconds": "abc"},
    }
    r = await api.post(f"{NS}/pods/p/eviction", json=body)
    assert r.status_code == 400, r.text

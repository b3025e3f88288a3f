"""Regressions from a review of the REST layer: each test asserts upstream's behaviour
for a case the first cut got wrong (or checks one it got right)."""

from __future__ import annotations

NS = "/apis/apps/v1/namespaces/default/deployments"
DEP = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d", "labels": {"app": "d"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "d"}},
        "template": {
            "metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
        },
    },
}
MP = {"content-type": "application/merge-patch+json"}


async def test_status_patch_does_not_change_spec(api):
    assert (await api.post(NS, json=DEP)).status_code == 201
    r = await api.patch(
        f"{NS}/d/status", content=b'{"spec":{"replicas":5},"status":{"replicas":3}}', headers=MP
    )
    assert r.status_code == 200, r.text
    got = (await api.get(f"{NS}/d")).json()
    assert got["spec"]["replicas"] == 1 and got["status"]["replicas"] == 3, got


async def test_main_patch_does_not_change_status(api):
    assert (await api.post(NS, json=DEP)).status_code == 201
    r = await api.patch(f"{NS}/d", content=b'{"status":{"replicas":3}}', headers=MP)
    assert r.status_code == 200, r.text
    assert "replicas" not in (await api.get(f"{NS}/d")).json().get("status", {})


async def test_scale_dry_run_leaves_object(api):
    assert (await api.post(NS, json=DEP)).status_code == 201
    r = await api.patch(f"{NS}/d/scale?dryRun=All", content=b'{"spec":{"replicas":4}}', headers=MP)
    assert r.status_code == 200, r.text
    assert (await api.get(f"{NS}/d")).json()["spec"]["replicas"] == 1


async def test_bad_scale_patch_is_4xx(api):
    assert (await api.post(NS, json=DEP)).status_code == 201
    r = await api.put(f"{NS}/d/scale", json={"spec": {"replicas": 2}, "metadata": "x"})
    assert r.status_code in (400, 422), r.text
    assert (await api.get(f"{NS}/d")).json()["spec"]["replicas"] == 1


async def test_status_update_cannot_set_deletion_timestamp_or_change_uid(api):
    created = (await api.post(NS, json=DEP)).json()
    body = {**created, "metadata": {**created["metadata"], "uid": "other"}}
    await api.put(f"{NS}/d/status", json=body)
    assert (await api.get(f"{NS}/d")).json()["metadata"]["uid"] == created["metadata"]["uid"]

"""DELETE over HTTP (in-process apiserver): DeleteOptions in the body and the query, upstream's
status codes, namespaces that terminate, and ``namespaces/{name}/finalize``."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

NS = "/api/v1/namespaces"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
POD_SPEC = {"containers": [{"name": "c", "image": "i"}]}


def deployment(name: str) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": POD_SPEC},
        },
    }


def namespace(name: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, **meta}}


async def delete(api: httpx.AsyncClient, url: str, body: dict[str, Any] | None = None) -> httpx.Response:
    return await api.request("DELETE", url, json=body)


async def test_foreground_and_orphan_are_recorded_as_finalizers(api: httpx.AsyncClient) -> None:
    for name, policy, finalizer in (("fg", "Foreground", "foregroundDeletion"), ("or", "Orphan", "orphan")):
        assert (await api.post(DEPLOYMENTS, json=deployment(name))).status_code == 201
        r = await delete(api, f"{DEPLOYMENTS}/{name}", {"kind": "DeleteOptions", "propagationPolicy": policy})
        assert r.status_code == 200, r.text
        assert r.json()["kind"] == "Deployment" and r.json()["metadata"]["finalizers"] == [finalizer]
        got = (await api.get(f"{DEPLOYMENTS}/{name}")).json()["metadata"]
        assert got["finalizers"] == [finalizer] and got["deletionTimestamp"]


async def test_background_is_the_default_for_deployments(api: httpx.AsyncClient) -> None:
    assert (await api.post(DEPLOYMENTS, json=deployment("bg"))).status_code == 201
    r = await api.delete(f"{DEPLOYMENTS}/bg")
    assert r.status_code == 200
    assert (await api.get(f"{DEPLOYMENTS}/bg")).status_code == 404


async def test_orphan_dependents_false_kept_is_202_and_the_query_counts(api: httpx.AsyncClient) -> None:
    body = deployment("od")
    body["metadata"]["finalizers"] = ["example.com/hold"]
    assert (await api.post(DEPLOYMENTS, json=body)).status_code == 201
    r = await api.delete(f"{DEPLOYMENTS}/od?orphanDependents=true")
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["example.com/hold", "orphan"]
    r = await delete(api, f"{DEPLOYMENTS}/od", {"orphanDependents": False})
    assert r.status_code == 202, r.text  # upstream's only 202: kept, and cascading asked for
    assert r.json()["metadata"]["finalizers"] == ["example.com/hold"]


async def test_orphan_dependents_false_deleted_at_once_is_200(api: httpx.AsyncClient) -> None:
    assert (await api.post(DEPLOYMENTS, json=deployment("od2"))).status_code == 201
    r = await delete(api, f"{DEPLOYMENTS}/od2", {"orphanDependents": False})
    assert r.status_code == 200 and (await api.get(f"{DEPLOYMENTS}/od2")).status_code == 404


@pytest.mark.parametrize(
    ("body", "query", "code", "message"),
    [
        (
            {"orphanDependents": True, "propagationPolicy": "Foreground"},
            "",
            422,
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": '
            "orphanDependents and deletionPropagation cannot be both set",
        ),
        (
            None,
            "?propagationPolicy=Orphan&orphanDependents=false",
            422,
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": '
            "orphanDependents and deletionPropagation cannot be both set",
        ),
        (
            {"propagationPolicy": "Sideways"},
            "",
            422,
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
            'supported values: "Foreground", "Background", "Orphan", "nil"',
        ),
    ],
)
async def test_bad_delete_options(
    api: httpx.AsyncClient, body: dict[str, Any] | None, query: str, code: int, message: str
) -> None:
    assert (await api.post(DEPLOYMENTS, json=deployment("bad"))).status_code == 201
    r = await delete(api, f"{DEPLOYMENTS}/bad{query}", body)
    assert (r.status_code, r.json()["message"]) == (code, message)
    assert (await api.get(f"{DEPLOYMENTS}/bad")).json()["metadata"].get("deletionTimestamp") is None


async def test_options_are_validated_before_the_object_is_looked_up(api: httpx.AsyncClient) -> None:
    """Upstream's DELETE handler validates DeleteOptions first: bad options on a missing object
    are a 422, not a 404."""
    r = await delete(api, f"{DEPLOYMENTS}/nope", {"orphanDependents": True, "propagationPolicy": "Orphan"})
    assert r.status_code == 422


async def test_dry_run_foreground_changes_nothing(api: httpx.AsyncClient) -> None:
    created = (await api.post(DEPLOYMENTS, json=deployment("dry"))).json()
    r = await delete(api, f"{DEPLOYMENTS}/dry", {"propagationPolicy": "Foreground", "dryRun": ["All"]})
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert (await api.get(f"{DEPLOYMENTS}/dry")).json() == created


async def test_removing_the_last_finalizer_deletes_the_marked_object(api: httpx.AsyncClient) -> None:
    assert (await api.post(DEPLOYMENTS, json=deployment("gc"))).status_code == 201
    assert (await delete(api, f"{DEPLOYMENTS}/gc", {"propagationPolicy": "Orphan"})).status_code == 200
    patch = {"metadata": {"finalizers": None}}
    headers = {"content-type": "application/merge-patch+json"}
    r = await api.patch(f"{DEPLOYMENTS}/gc", json=patch, headers=headers)
    assert r.status_code == 200, r.text
    assert (await api.get(f"{DEPLOYMENTS}/gc")).status_code == 404


# namespaces


async def test_namespace_delete_terminates_and_blocks_new_content(api: httpx.AsyncClient) -> None:
    assert (await api.post(NS, json=namespace("doomed"))).status_code == 201
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "before"}}
    assert (await api.post(f"{NS}/doomed/configmaps", json=cm)).status_code == 201
    r = await api.delete(f"{NS}/doomed")
    assert r.status_code == 200 and r.json()["status"] == {"phase": "Terminating"}
    assert r.json()["metadata"]["deletionTimestamp"]
    again = await api.delete(f"{NS}/doomed")
    assert again.status_code == 200 and again.json() == r.json()  # a no-op
    listed = (await api.get(f"{NS}?fieldSelector=status.phase%3DTerminating")).json()["items"]
    assert [n["metadata"]["name"] for n in listed] == ["doomed"]
    created = await api.post(f"{NS}/doomed/configmaps", json={**cm, "metadata": {"name": "after"}})
    assert created.status_code == 403, created.text
    assert created.json()["message"] == (
        'configmaps "after" is forbidden: unable to create new content in namespace doomed '
        "because it is being terminated"
    )
    assert created.json()["details"]["causes"][0]["reason"] == "NamespaceTerminating"
    assert (await api.get(f"{NS}/doomed/configmaps/before")).status_code == 200


async def test_terminating_namespace_never_flips_back_to_active(api: httpx.AsyncClient) -> None:
    assert (await api.post(NS, json=namespace("t1"))).status_code == 201
    terminating = (await api.delete(f"{NS}/t1")).json()
    revived = {**terminating, "status": {"phase": "Active"}, "spec": {"finalizers": []}}
    r = await api.put(f"{NS}/t1", json=revived)
    assert r.status_code == 200, r.text
    assert r.json()["status"]["phase"] == "Terminating" and r.json()["spec"]["finalizers"] == ["kubernetes"]
    r = await api.put(f"{NS}/t1/status", json={**r.json(), "status": {"phase": "Active"}})
    assert r.status_code == 422, r.text
    headers = {"content-type": "application/merge-patch+json"}
    r = await api.patch(f"{NS}/t1/status", json={"status": {"phase": "Active"}}, headers=headers)
    assert r.status_code == 422
    assert (await api.get(f"{NS}/t1")).json()["status"]["phase"] == "Terminating"


async def test_finalize_empties_spec_finalizers_and_removes_the_namespace(api: httpx.AsyncClient) -> None:
    assert (await api.post(NS, json=namespace("fin"))).status_code == 201
    terminating = (await api.delete(f"{NS}/fin")).json()
    bad = {**terminating, "spec": {"finalizers": ["kubernetes", "Not Valid"]}}
    r = await api.put(f"{NS}/fin/finalize", json=bad)
    assert r.status_code == 422 and r.json()["details"]["causes"][0]["field"] == "spec.finalizers[1]"
    wrong_kind = {**terminating, "kind": "ConfigMap"}
    assert (await api.put(f"{NS}/fin/finalize", json=wrong_kind)).status_code == 400
    keep = {**terminating, "spec": {"finalizers": ["example.com/cleanup"]}, "status": {"phase": "Active"}}
    r = await api.put(f"{NS}/fin/finalize", json=keep)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["finalizers"] == ["example.com/cleanup"]
    assert r.json()["status"]["phase"] == "Terminating" and r.json()["kind"] == "Namespace"
    stale = await api.put(f"{NS}/fin/finalize", json={**terminating, "spec": {"finalizers": []}})
    assert stale.status_code == 409  # the body's resourceVersion is checked as for any update
    r = await api.put(f"{NS}/fin/finalize", json={**r.json(), "spec": {"finalizers": []}})
    assert r.status_code == 200, r.text
    assert (await api.get(f"{NS}/fin")).status_code == 404


async def test_namespace_with_metadata_finalizers_outlives_finalize(api: httpx.AsyncClient) -> None:
    assert (await api.post(NS, json=namespace("held", finalizers=["example.com/x"]))).status_code == 201
    terminating = (await api.delete(f"{NS}/held")).json()
    r = await api.put(f"{NS}/held/finalize", json={**terminating, "spec": {"finalizers": []}})
    assert r.status_code == 200
    got = await api.get(f"{NS}/held")
    assert got.status_code == 200 and got.json()["status"]["phase"] == "Terminating"
    headers = {"content-type": "application/merge-patch+json"}
    patch = {"metadata": {"finalizers": None}}
    assert (await api.patch(f"{NS}/held", json=patch, headers=headers)).status_code == 200
    assert (await api.get(f"{NS}/held")).status_code == 404


async def test_finalize_is_update_only_and_discovered(api: httpx.AsyncClient) -> None:
    resources = (await api.get("/api/v1")).json()["resources"]
    finalize = next(r for r in resources if r["name"] == "namespaces/finalize")
    assert (finalize["kind"], finalize["verbs"], finalize["namespaced"]) == ("Namespace", ["update"], False)
    assert (await api.get(f"{NS}/default/finalize")).status_code == 405
    assert (await api.get("/api/v1/namespaces/default/configmaps/x/finalize")).status_code == 404


async def test_namespace_uid_precondition(api: httpx.AsyncClient) -> None:
    assert (await api.post(NS, json=namespace("pre"))).status_code == 201
    r = await delete(api, f"{NS}/pre", {"preconditions": {"uid": "not-it"}})
    assert r.status_code == 409 and (await api.get(f"{NS}/pre")).json()["status"]["phase"] == "Active"

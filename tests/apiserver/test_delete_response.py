"""What DELETE answers (in-process apiserver): a ``Status`` naming the object removed, the object
itself for kinds whose upstream registry returns deleted objects or when the object is kept,
the listed objects for a collection; and the option checks that come before any of it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

NS = "/api/v1/namespaces/default"
CONFIGMAPS = f"{NS}/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
MERGE = {"content-type": "application/merge-patch+json"}
LABEL_KEY_FORMAT = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def configmap(name: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}}


def deployment(name: str) -> dict[str, Any]:
    labels = {"app": name}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": labels}, "template": template},
    }


async def create(api: httpx.AsyncClient, url: str, obj: dict[str, Any]) -> dict[str, Any]:
    r = await api.post(url, json=obj)
    assert r.status_code == 201, r.text
    created: dict[str, Any] = r.json()
    return created


async def delete(
    api: httpx.AsyncClient, url: str, body: dict[str, Any] | None = None, **headers: str
) -> httpx.Response:
    return await api.request("DELETE", url, json=body, headers=headers)


# the answer


async def test_removed_configmap_is_answered_with_a_status(api: httpx.AsyncClient) -> None:
    uid = (await create(api, CONFIGMAPS, configmap("gone")))["metadata"]["uid"]
    r = await api.delete(f"{CONFIGMAPS}/gone")
    assert r.status_code == 200
    assert r.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": "gone", "kind": "configmaps", "uid": uid},  # kind: the resource
    }
    assert (await api.get(f"{CONFIGMAPS}/gone")).status_code == 404


async def test_status_names_the_group(api: httpx.AsyncClient) -> None:
    uid = (await create(api, DEPLOYMENTS, deployment("web")))["metadata"]["uid"]
    details = (await api.delete(f"{DEPLOYMENTS}/web")).json()["details"]
    assert details == {"name": "web", "group": "apps", "kind": "deployments", "uid": uid}


@pytest.mark.parametrize(
    ("resource", "obj"),
    [
        ("pods", {"kind": "Pod", "spec": {"containers": [{"name": "c", "image": "i"}]}}),
        ("services", {"kind": "Service", "spec": {"ports": [{"port": 80}]}}),
        ("serviceaccounts", {"kind": "ServiceAccount"}),
        # regression: was a Status, which the official Python client fails to decode as the
        # V1ResourceQuota its delete_namespaced_resource_quota returns
        ("resourcequotas", {"kind": "ResourceQuota", "spec": {"hard": {"pods": "1"}}}),
    ],
)
async def test_kinds_returning_deleted_objects(
    api: httpx.AsyncClient, resource: str, obj: dict[str, Any]
) -> None:
    created = await create(api, f"{NS}/{resource}", {"apiVersion": "v1", "metadata": {"name": "x"}, **obj})
    r = await api.delete(f"{NS}/{resource}/x")
    assert r.status_code == 200
    assert r.json()["kind"] == obj["kind"] and r.json()["metadata"]["uid"] == created["metadata"]["uid"]
    assert (await api.get(f"{NS}/{resource}/x")).status_code == 404


async def test_kept_object_is_answered_with_itself(api: httpx.AsyncClient) -> None:
    await create(api, CONFIGMAPS, configmap("held", finalizers=["example.com/hold"]))
    r = await api.delete(f"{CONFIGMAPS}/held")
    assert r.status_code == 200
    assert r.json()["kind"] == "ConfigMap" and r.json()["metadata"]["deletionTimestamp"]


async def test_dry_run_removal_is_a_status_and_keeps_the_object(api: httpx.AsyncClient) -> None:
    await create(api, CONFIGMAPS, configmap("dry"))
    r = await delete(api, f"{CONFIGMAPS}/dry", {"dryRun": ["All"]})
    assert r.status_code == 200 and r.json()["kind"] == "Status"
    assert r.json()["details"]["name"] == "dry"
    assert (await api.get(f"{CONFIGMAPS}/dry")).status_code == 200


async def test_status_is_never_a_table(api: httpx.AsyncClient) -> None:
    await create(api, CONFIGMAPS, configmap("tab"))
    r = await delete(api, f"{CONFIGMAPS}/tab", **TABLE)
    assert r.status_code == 200 and r.json()["kind"] == "Status"


async def test_delete_collection_answers_with_the_listed_objects(api: httpx.AsyncClient) -> None:
    for name in ("a", "b"):
        await create(api, CONFIGMAPS, configmap(name, labels={"batch": "1"}))
    await create(api, CONFIGMAPS, configmap("other"))
    r = await api.delete(f"{CONFIGMAPS}?labelSelector=batch%3D1")
    assert r.status_code == 200, r.text
    listed = r.json()
    assert (listed["kind"], listed["apiVersion"]) == ("ConfigMapList", "v1")
    assert listed["metadata"]["resourceVersion"]
    assert [(o["kind"], o["metadata"]["name"]) for o in listed["items"]] == [
        ("ConfigMap", "a"),
        ("ConfigMap", "b"),
    ]
    names = [o["metadata"]["name"] for o in (await api.get(CONFIGMAPS)).json()["items"]]
    assert "a" not in names and "b" not in names and "other" in names


# options, checked before the object is looked up


@pytest.mark.parametrize(
    ("method", "url", "body", "message"),
    [
        (
            "POST",
            f"{CONFIGMAPS}?dryRun=Everything",
            configmap("new"),
            'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Everything"]: '
            'supported values: "All"',
        ),
        (
            "PUT",
            f"{CONFIGMAPS}/there?dryRun=",
            configmap("there"),
            'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: [""]: '
            'supported values: "All"',
        ),
        (
            "PATCH",
            f"{CONFIGMAPS}/there?dryRun=all",
            {"data": {"a": "b"}},
            'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["all"]: '
            'supported values: "All"',
        ),
        (
            "DELETE",
            f"{CONFIGMAPS}/there",
            {"dryRun": ["All", "Some"]},
            'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["All","Some"]: '
            'supported values: "All"',
        ),
        (
            "DELETE",
            f"{CONFIGMAPS}/there",
            {"propagationPolicy": ""},
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "": '
            'supported values: "Foreground", "Background", "Orphan", "nil"',
        ),
        (
            "DELETE",
            f"{CONFIGMAPS}/there?propagationPolicy=",
            None,
            'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "": '
            'supported values: "Foreground", "Background", "Orphan", "nil"',
        ),
        (
            "DELETE",
            f"{CONFIGMAPS}/missing",
            {"propagationPolicy": "Orphan", "orphanDependents": True, "dryRun": ["x"]},
            'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Orphan": '
            "orphanDependents and deletionPropagation cannot be both set, "
            'dryRun: Unsupported value: ["x"]: supported values: "All"]',
        ),
    ],
)
async def test_bad_options_are_invalid(
    api: httpx.AsyncClient, method: str, url: str, body: dict[str, Any] | None, message: str
) -> None:
    before = await create(api, CONFIGMAPS, configmap("there"))
    headers = MERGE if method == "PATCH" else {}
    r = await api.request(method, url, json=body, headers=headers)
    assert r.status_code == 422, r.text
    status = r.json()
    assert (status["reason"], status["message"]) == ("Invalid", message)
    assert (status["details"]["group"], status["details"]["kind"]) == ("meta.k8s.io", message.split(".")[0])
    assert "name" not in status["details"]
    assert (await api.get(f"{CONFIGMAPS}/there")).json() == before
    assert (await api.get(f"{CONFIGMAPS}/new")).status_code == 404


async def test_a_body_hides_the_query(api: httpx.AsyncClient) -> None:
    """Upstream reads DeleteOptions from the body when there is one, else from the query."""
    await create(api, CONFIGMAPS, configmap("q"))
    r = await delete(api, f"{CONFIGMAPS}/q?dryRun=All", {"kind": "DeleteOptions", "apiVersion": "v1"})
    assert r.status_code == 200 and r.json()["kind"] == "Status"
    assert (await api.get(f"{CONFIGMAPS}/q")).status_code == 404


# metadata.finalizers


@pytest.mark.parametrize(
    ("finalizers", "message"),
    [
        (
            ["orphan", "foregroundDeletion"],
            'ConfigMap "f" is invalid: metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
            "finalizer orphan and foregroundDeletion cannot be both set",
        ),
        (["a b"], f'ConfigMap "f" is invalid: metadata.finalizers: Invalid value: "a b": {LABEL_KEY_FORMAT}'),
        (
            ["example.com/ok", "-bad.com/x"],
            'ConfigMap "f" is invalid: metadata.finalizers: Invalid value: "-bad.com/x": prefix part a '
            "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
            "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
            "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
    ],
)
async def test_invalid_finalizers(api: httpx.AsyncClient, finalizers: list[str], message: str) -> None:
    r = await api.post(CONFIGMAPS, json=configmap("f", finalizers=finalizers))
    assert r.status_code == 422, r.text
    assert r.json()["message"] == message
    assert r.json()["details"]["causes"][-1]["field"] == "metadata.finalizers"


async def test_unqualified_finalizer_is_accepted_without_warning(api: httpx.AsyncClient) -> None:
    """Only custom resources warn about a name without "/"; built-in kinds take it as it is."""
    r = await api.post(CONFIGMAPS, json=configmap("plain", finalizers=["my-finalizer"]))
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["finalizers"] == ["my-finalizer"] and "warning" not in r.headers


async def test_no_finalizer_may_be_added_while_deleting(api: httpx.AsyncClient) -> None:
    await create(api, CONFIGMAPS, configmap("doomed", finalizers=["example.com/a"]))
    assert (await api.delete(f"{CONFIGMAPS}/doomed")).status_code == 200
    add = {"metadata": {"finalizers": ["example.com/a", "z.com/z", "b.com/b"]}}
    r = await api.patch(f"{CONFIGMAPS}/doomed", json=add, headers=MERGE)
    assert r.status_code == 422, r.text
    assert r.json()["message"] == (
        'ConfigMap "doomed" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added '
        'if the object is being deleted, found new finalizers []string{"b.com/b", "z.com/z"}'
    )
    r = await api.patch(f"{CONFIGMAPS}/doomed", json={"metadata": {"labels": {"a": "b"}}}, headers=MERGE)
    assert r.status_code == 200, r.text  # an update keeping the finalizers is fine
    r = await api.patch(f"{CONFIGMAPS}/doomed", json={"metadata": {"finalizers": None}}, headers=MERGE)
    assert r.status_code == 200 and (await api.get(f"{CONFIGMAPS}/doomed")).status_code == 404


async def test_finalizers_may_be_added_before_deletion(api: httpx.AsyncClient) -> None:
    await create(api, CONFIGMAPS, configmap("alive"))
    r = await api.patch(f"{CONFIGMAPS}/alive", json={"metadata": {"finalizers": ["x.com/y"]}}, headers=MERGE)
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["x.com/y"]

"""``pods/{name}/ephemeralcontainers`` over HTTP (in-process apiserver): GET, the strategic merge
patch ``kubectl debug`` sends, PUT, and upstream's rules (only additions; no ports, probes,
resources or subPath; unique names; a target that exists; not on create, not through a pod
update, not on static pods), with upstream's 422 messages, plus discovery and the edit role."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

PODS = "/api/v1/namespaces/default/pods"
EPHEMERAL = f"{PODS}/web/ephemeralcontainers"
SMP = {"Content-Type": "application/strategic-merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
# what kubectl 1.33 `debug web --image=busybox --target=app -i` sends
KUBECTL_DEBUG = {
    "spec": {
        "ephemeralContainers": [
            {
                "image": "busybox",
                "name": "debugger-x7k2p",
                "resources": {},
                "stdin": True,
                "targetContainerName": "app",
                "terminationMessagePolicy": "File",
            }
        ]
    }
}


def pod(**spec: Any) -> dict[str, Any]:
    containers = [{"name": "app", "image": "nginx"}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": containers, "initContainers": [{"name": "setup", "image": "busybox"}], **spec},
    }


def debug(name: str, **fields: Any) -> dict[str, Any]:
    return {"spec": {"ephemeralContainers": [{"name": name, "image": "busybox", **fields}]}}


@pytest.fixture
async def web(api: httpx.AsyncClient) -> dict[str, Any]:
    r = await api.post(PODS, json=pod())
    assert r.status_code == 201, r.text
    return dict(r.json())


def causes(r: httpx.Response) -> list[tuple[str, str]]:
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["reason"] == "Invalid" and body["details"]["kind"] == "Pod"
    return [(c.get("field", ""), c["message"]) for c in body["details"]["causes"]]


async def test_kubectl_debug_patch_adds_a_defaulted_ephemeral_container(
    api: httpx.AsyncClient, web: dict[str, Any]
) -> None:
    r = await api.get(EPHEMERAL)
    assert r.status_code == 200 and r.json()["kind"] == "Pod" and r.json()["apiVersion"] == "v1"
    r = await api.patch(EPHEMERAL, json=KUBECTL_DEBUG, headers=SMP)
    assert r.status_code == 200, r.text
    added = r.json()["spec"]["ephemeralContainers"]
    assert added == [
        {
            "image": "busybox",
            "imagePullPolicy": "Always",
            "name": "debugger-x7k2p",
            "resources": {},
            "stdin": True,
            "targetContainerName": "app",
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }
    ]
    # a second one is merged in by name, in the order kubectl's two-way patch asks
    second = debug("second")
    second["spec"]["$setElementOrder/ephemeralContainers"] = [{"name": "debugger-x7k2p"}, {"name": "second"}]
    r = await api.patch(EPHEMERAL, json=second, headers=SMP)
    assert [c["name"] for c in r.json()["spec"]["ephemeralContainers"]] == ["debugger-x7k2p", "second"]
    stored = (await api.get(f"{PODS}/web")).json()
    assert stored["spec"]["ephemeralContainers"] == r.json()["spec"]["ephemeralContainers"]


async def test_the_subresource_changes_nothing_but_the_ephemeral_containers(
    api: httpx.AsyncClient, web: dict[str, Any]
) -> None:
    wanted = copy.deepcopy(web)
    wanted["metadata"]["labels"] = {"changed": "yes"}
    wanted["spec"]["containers"][0]["image"] = "other"
    wanted["spec"]["ephemeralContainers"] = [{"name": "dbg", "image": "busybox"}]
    r = await api.put(EPHEMERAL, json=wanted)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["metadata"]["labels"] == {"app": "web"}
    assert got["spec"]["containers"][0]["image"] == "nginx"
    assert [c["name"] for c in got["spec"]["ephemeralContainers"]] == ["dbg"]


async def test_existing_ephemeral_containers_may_not_be_removed_or_changed(
    api: httpx.AsyncClient, web: dict[str, Any]
) -> None:
    assert (await api.patch(EPHEMERAL, json=debug("dbg"), headers=SMP)).status_code == 200
    removed = [{"op": "remove", "path": "/spec/ephemeralContainers/0"}]
    assert causes(await api.patch(EPHEMERAL, json=removed, headers=JSON_PATCH)) == [
        ("spec.ephemeralContainers", 'Forbidden: existing ephemeral containers "dbg" may not be removed\n')
    ]
    changed = [{"op": "replace", "path": "/spec/ephemeralContainers/0/image", "value": "alpine"}]
    assert causes(await api.patch(EPHEMERAL, json=changed, headers=JSON_PATCH)) == [
        (
            "spec.ephemeralContainers[dbg]",
            'Forbidden: existing ephemeral containers "dbg" may not be changed\n',
        )
    ]


@pytest.mark.parametrize(
    ("fields", "want"),
    [
        ({"name": "app"}, ("spec.ephemeralContainers[0].name", 'Duplicate value: "app"')),
        ({"name": "setup"}, ("spec.ephemeralContainers[0].name", 'Duplicate value: "setup"')),
        (
            {"targetContainerName": "nosuch"},
            ("spec.ephemeralContainers[0].targetContainerName", 'Not found: "nosuch"'),
        ),
        (
            {"ports": [{"containerPort": 80}]},
            ("spec.ephemeralContainers[0].ports", "Forbidden: cannot be set for an Ephemeral Container"),
        ),
        (
            {"readinessProbe": {"exec": {"command": ["true"]}}},
            (
                "spec.ephemeralContainers[0].readinessProbe",
                "Forbidden: cannot be set for an Ephemeral Container",
            ),
        ),
        (
            {"resources": {"limits": {"cpu": "1"}}},
            ("spec.ephemeralContainers[0].resources", "Forbidden: cannot be set for an Ephemeral Container"),
        ),
        (
            {"volumeMounts": [{"name": "v", "mountPath": "/x", "subPath": "y"}]},
            (
                "spec.ephemeralContainers[0].volumeMounts[0].subPath",
                "Forbidden: cannot be set for an Ephemeral Container",
            ),
        ),
        ({"image": ""}, ("spec.ephemeralContainers[0].image", "Required value")),
    ],
)
async def test_upstream_rules_for_a_new_ephemeral_container(
    api: httpx.AsyncClient, web: dict[str, Any], fields: dict[str, Any], want: tuple[str, str]
) -> None:
    body = debug(str(fields.pop("name", "dbg")), **fields)
    assert want in causes(await api.patch(EPHEMERAL, json=body, headers=SMP))
    assert "ephemeralContainers" not in (await api.get(f"{PODS}/web")).json()["spec"]


async def test_not_on_create_and_not_through_a_pod_update(
    api: httpx.AsyncClient, web: dict[str, Any]
) -> None:
    made = pod(ephemeralContainers=[{"name": "dbg", "image": "busybox"}])
    made["metadata"]["name"] = "born-with-one"
    assert causes(await api.post(PODS, json=made)) == [
        ("spec.ephemeralContainers", "Forbidden: cannot be set on create")
    ]
    r = await api.patch(f"{PODS}/web", json=debug("dbg"), headers=SMP)
    [(field, message)] = causes(r)
    assert field == "spec" and message.startswith("Forbidden: pod updates may not change fields other than")


async def test_static_pods_do_not_support_ephemeral_containers(api: httpx.AsyncClient) -> None:
    mirror = pod()
    mirror["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
    assert (await api.post(PODS, json=mirror)).status_code == 201
    r = await api.patch(EPHEMERAL, json=debug("dbg"), headers=SMP)
    assert causes(r) == [("", "Forbidden: static pods do not support ephemeral containers")]


async def test_other_verbs_and_missing_pods(api: httpx.AsyncClient, web: dict[str, Any]) -> None:
    r = await api.delete(EPHEMERAL)
    assert r.status_code == 405 and r.json()["reason"] == "MethodNotAllowed"
    r = await api.patch(f"{PODS}/ghost/ephemeralcontainers", json=debug("dbg"), headers=SMP)
    assert r.status_code == 404 and r.json()["details"]["name"] == "ghost"  # kubectl tells it apart


async def test_discovery_lists_the_subresource_and_edit_may_patch_it(api: httpx.AsyncClient) -> None:
    resources = (await api.get("/api/v1")).json()["resources"]
    [found] = [r for r in resources if r["name"] == "pods/ephemeralcontainers"]
    assert found["kind"] == "Pod" and sorted(found["verbs"]) == ["get", "patch", "update"]
    # edit aggregates system:aggregate-to-edit (admin aggregates edit)
    edit = (await api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles/system:aggregate-to-edit")).json()
    assert any(
        "pods/ephemeralcontainers" in rule.get("resources", []) and "patch" in rule["verbs"]
        for rule in edit["rules"]
    )


async def test_bodies_that_do_not_decode_are_refused_on_every_verb(
    api: httpx.AsyncClient, web: dict[str, Any]
) -> None:
    """Regression: the subresource skipped the typed decoding every other write runs, so a
    ``stdin: "yes"`` ephemeral container was stored."""
    bad = debug("dbg", stdin="yes")
    r = await api.patch(EPHEMERAL, json=bad, headers=SMP)
    assert r.status_code == 422, r.text
    assert "unrecognized type: bool" in r.json()["message"], r.text
    desired = copy.deepcopy(web)
    desired["spec"]["ephemeralContainers"] = bad["spec"]["ephemeralContainers"]
    r = await api.put(EPHEMERAL, json=desired)
    assert r.status_code == 400, r.text
    assert "cannot unmarshal string into Go struct field" in r.json()["message"]
    stored = (await api.get(f"{PODS}/web")).json()
    assert "ephemeralContainers" not in stored["spec"]

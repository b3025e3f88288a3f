"""Unknown fields are dropped before storing, as upstream's decoding into Go structs drops them:
create, update, every patch type and the status subresource, under ``Warn`` and ``Ignore``
(``Strict`` refuses them). Server-side apply refuses them under every directive, as upstream's
typed conversion does. Maps (labels, annotations, ConfigMap data) keep every key."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from apiserver.endpoints.fieldvalidation import FieldValidation, check_apply
from apiserver.patch.schemas import schema_for
from minikube_py.api import errors
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.scheme import ResourceType

PODS = "/api/v1/namespaces/default/pods"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
MERGE = {"content-type": "application/merge-patch+json"}
STRATEGIC = {"content-type": "application/strategic-merge-patch+json"}
JSON_PATCH = {"content-type": "application/json-patch+json"}
APPLY = {"content-type": "application/apply-patch+yaml"}
LENIENT = ["Warn", "Ignore"]
FOUND_POD_TYPE = builtin_scheme().by_kind("v1", "Pod")
assert FOUND_POD_TYPE is not None
POD_TYPE: ResourceType = FOUND_POD_TYPE


def pod(name: str = "web") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"}, "annotations": {"note/any": "{}"}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "env": [{"name": "A", "value": "1"}]}]},
    }


def with_unknown(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with unknown fields at the top, in metadata, in spec and nested in containers[]."""
    out = copy.deepcopy(obj)
    out["bogus"] = 1
    out["metadata"]["labelz"] = {"x": "y"}
    out["spec"]["foo"] = {"bar": 1}
    container = out["spec"]["containers"][0]
    container["imagee"] = "typo"
    container["env"][0]["valu"] = "2"
    return out


UNKNOWN_WARNINGS = [
    '299 - "unknown field \\"bogus\\""',
    '299 - "unknown field \\"metadata.labelz\\""',
    '299 - "unknown field \\"spec.containers[0].env[0].valu\\""',
    '299 - "unknown field \\"spec.containers[0].imagee\\""',
    '299 - "unknown field \\"spec.foo\\""',
]


def assert_known_only(obj: dict[str, Any]) -> None:
    assert "bogus" not in obj
    assert "labelz" not in obj["metadata"]
    assert "foo" not in obj["spec"]
    container = obj["spec"]["containers"][0]
    assert "imagee" not in container and container["image"] == "nginx"
    assert container["env"] == [{"name": "A", "value": "1"}]
    assert obj["metadata"]["labels"] == {"app": "web"}
    assert obj["metadata"]["annotations"] == {"note/any": "{}"}


async def stored(api: httpx.AsyncClient, url: str) -> dict[str, Any]:
    response = await api.get(url)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def managed_paths(obj: dict[str, Any]) -> str:
    return json.dumps([entry.get("fieldsV1") for entry in obj["metadata"].get("managedFields", [])])


@pytest.mark.parametrize("directive", LENIENT)
async def test_create_stores_no_unknown_field(api: httpx.AsyncClient, directive: str) -> None:
    response = await api.post(PODS, params={"fieldValidation": directive}, json=with_unknown(pod()))
    assert response.status_code == 201, response.text
    assert_known_only(response.json())
    got = await stored(api, f"{PODS}/web")
    assert_known_only(got)
    assert not {"f:bogus", "f:labelz", "f:imagee", "f:valu", "f:foo"} & set(managed_paths(got).split('"'))
    warnings = sorted(response.headers.get_list("warning"))
    assert warnings == (UNKNOWN_WARNINGS if directive == "Warn" else [])


async def test_strict_create_still_refuses_and_stores_nothing(api: httpx.AsyncClient) -> None:
    response = await api.post(PODS, params={"fieldValidation": "Strict"}, json=with_unknown(pod()))
    assert response.status_code == 400
    assert (await api.get(f"{PODS}/web")).status_code == 404


@pytest.mark.parametrize("directive", LENIENT)
async def test_update_stores_no_unknown_field(api: httpx.AsyncClient, directive: str) -> None:
    created = (await api.post(PODS, json=pod())).json()
    desired = with_unknown(created)
    response = await api.put(f"{PODS}/web", params={"fieldValidation": directive}, json=desired)
    assert response.status_code == 200, response.text
    assert_known_only(await stored(api, f"{PODS}/web"))
    assert len(response.headers.get_list("warning")) == (5 if directive == "Warn" else 0)


PATCHES = [
    (
        MERGE,
        {"bogus": 1, "metadata": {"labelz": {"x": "y"}}, "spec": {"foo": {"bar": 1}}},
    ),
    (
        STRATEGIC,
        {
            "bogus": 1,
            "metadata": {"labelz": {"x": "y"}},
            "spec": {"foo": {"bar": 1}, "containers": [{"name": "c", "imagee": "typo"}]},
        },
    ),
    (
        JSON_PATCH,
        [
            {"op": "add", "path": "/bogus", "value": 1},
            {"op": "add", "path": "/metadata/labelz", "value": {"x": "y"}},
            {"op": "add", "path": "/spec/foo", "value": {"bar": 1}},
            {"op": "add", "path": "/spec/containers/0/imagee", "value": "typo"},
        ],
    ),
]


@pytest.mark.parametrize("directive", LENIENT)
@pytest.mark.parametrize(("headers", "patch"), PATCHES, ids=["merge", "strategic", "json"])
async def test_patches_store_no_unknown_field(
    api: httpx.AsyncClient, directive: str, headers: dict[str, str], patch: Any
) -> None:
    await api.post(PODS, json=pod())
    response = await api.patch(
        f"{PODS}/web", params={"fieldValidation": directive}, json=patch, headers=headers
    )
    assert response.status_code == 200, response.text
    assert_known_only(response.json())
    assert_known_only(await stored(api, f"{PODS}/web"))
    assert bool(response.headers.get_list("warning")) == (directive == "Warn")


@pytest.mark.parametrize("directive", LENIENT)
async def test_status_subresource_stores_no_unknown_field(api: httpx.AsyncClient, directive: str) -> None:
    await api.post(PODS, json=pod())
    patch = {"status": {"phase": "Running", "phaze": "typo", "conditions": [{"type": "Ready", "x": 1}]}}
    response = await api.patch(
        f"{PODS}/web/status", params={"fieldValidation": directive}, json=patch, headers=MERGE
    )
    assert response.status_code == 200, response.text
    status = (await stored(api, f"{PODS}/web"))["status"]
    assert status["phase"] == "Running" and "phaze" not in status
    assert status["conditions"] == [{"type": "Ready", "status": ""}]  # status: never omitted upstream


async def test_maps_keep_every_key(api: httpx.AsyncClient) -> None:
    data = {"apiVersion": "x", "spec": "y", "bogus": "z"}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": data}
    response = await api.post(CONFIGMAPS, json=cm)
    assert response.status_code == 201 and response.headers.get_list("warning") == []
    assert (await stored(api, f"{CONFIGMAPS}/cm"))["data"] == data


async def test_an_emptied_object_stays(api: httpx.AsyncClient) -> None:
    body = pod()
    body["spec"]["containers"][0]["securityContext"] = {"privilegd": True}
    await api.post(PODS, params={"fieldValidation": "Ignore"}, json=body)
    assert (await stored(api, f"{PODS}/web"))["spec"]["containers"][0]["securityContext"] == {}


def deployment_yaml(extra: str = "") -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: c
        image: nginx
{extra}"""


@pytest.mark.parametrize("directive", ["Warn", "Ignore", "Strict"])
async def test_apply_refuses_undeclared_fields_and_stores_nothing(
    api: httpx.AsyncClient, directive: str
) -> None:
    body = deployment_yaml("        imagee: typo\n")
    params = {"fieldManager": "m", "fieldValidation": directive}
    response = await api.patch(f"{DEPLOYMENTS}/web", params=params, content=body, headers=APPLY)
    assert response.status_code == 400, response.text
    assert response.json()["message"] == (
        "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): "
        '.spec.template.spec.containers[name="c"].imagee: field not declared in schema'
    )
    assert (await api.get(f"{DEPLOYMENTS}/web")).status_code == 404


async def test_apply_to_an_existing_object_changes_nothing(api: httpx.AsyncClient) -> None:
    params = {"fieldManager": "m"}
    created = await api.patch(f"{DEPLOYMENTS}/web", params=params, content=deployment_yaml(), headers=APPLY)
    assert created.status_code == 201, created.text
    body = deployment_yaml("  bogus: 1\n").replace(
        "metadata:\n  name: web", "metadata:\n  labelz: {}\n  name: web"
    )
    response = await api.patch(f"{DEPLOYMENTS}/web", params=params, content=body, headers=APPLY)
    assert response.status_code == 400
    assert response.json()["message"].endswith(
        "errors:\n  .metadata.labelz: field not declared in schema\n"
        "  .spec.bogus: field not declared in schema"
    )
    after = await stored(api, f"{DEPLOYMENTS}/web")
    assert after["metadata"]["resourceVersion"] == created.json()["metadata"]["resourceVersion"]


async def test_apply_with_known_fields_only_still_works(api: httpx.AsyncClient) -> None:
    response = await api.patch(
        f"{DEPLOYMENTS}/web", params={"fieldManager": "m"}, content=deployment_yaml(), headers=APPLY
    )
    assert response.status_code == 201, response.text


def test_a_retried_update_warns_again() -> None:
    check = FieldValidation(POD_TYPE, {}, "UpdateOptions")
    desired = with_unknown(pod())
    update = check.check_update(desired)
    first = update(pod())
    assert first is desired
    assert len(check.warnings) == 5
    first["metadata"]["resourceVersion"] = "7"  # what the store writes into an attempt
    second = update(pod())
    assert len(check.warnings) == 5
    assert second is not desired and "resourceVersion" not in second["metadata"]
    assert_known_only(second)


def test_apply_paths_name_keyed_items_by_key_and_atomic_items_by_index() -> None:
    config = pod()
    config["spec"]["tolerations"] = [{"key": "k", "operator": "Exists", "efect": "NoSchedule"}]
    config["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "nam": "http"}]
    with pytest.raises(errors.ApiError) as caught:
        check_apply(POD_TYPE, schema_for("", "Pod"), config)
    assert (caught.value.code, caught.value.reason) == (400, "BadRequest")
    assert caught.value.message == (
        "failed to create typed patch object (/web; /v1, Kind=Pod): errors:\n"
        '  .spec.containers[name="c"].ports[containerPort=80].nam: field not declared in schema\n'
        "  .spec.tolerations[0].efect: field not declared in schema"
    )


def test_apply_of_another_kind_is_left_to_the_apply() -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "bogus": 1}
    check_apply(POD_TYPE, schema_for("", "Pod"), config)  # the apply answers "invalid object type"
    config = {**with_unknown(pod()), "metadata": {"name": "web", "managedFields": [{}]}}
    check_apply(POD_TYPE, schema_for("", "Pod"), config)  # "metadata.managedFields must be nil"

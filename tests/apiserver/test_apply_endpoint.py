"""Server-side apply over HTTP, in process: status codes, Status bodies, YAML bodies, and the
managedFields every write records."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

APPLY = {"content-type": "application/apply-patch+yaml"}
CM = "/api/v1/namespaces/default/configmaps"
DEPLOY = "/apis/apps/v1/namespaces/default/deployments"

CONFIG_YAML = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  labels: {{app: web}}
data:
  when: 2024-05-01
  flag: "yes"
"""


def managers(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e.get("manager", ""), e["operation"]) for e in obj["metadata"].get("managedFields", [])]


async def apply(api: httpx.AsyncClient, url: str, body: str, **params: str) -> httpx.Response:
    return await api.patch(url, content=body, headers=APPLY, params={"fieldManager": "m", **params})


async def test_apply_creates_then_updates(api: httpx.AsyncClient) -> None:
    created = await apply(api, f"{CM}/web", CONFIG_YAML.format(name="web"))
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["data"] == {"when": "2024-05-01", "flag": "yes"}  # YAML timestamps stay strings
    assert managers(body) == [("m", "Apply")]
    assert body["metadata"]["managedFields"][0]["fieldsV1"] == {
        "f:data": {"f:flag": {}, "f:when": {}},
        "f:metadata": {"f:labels": {"f:app": {}}},
    }
    again = await apply(api, f"{CM}/web", '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"}}')
    assert again.status_code == 200
    assert "data" not in again.json() and "labels" not in again.json()["metadata"]  # no longer applied


async def test_apply_without_field_manager_is_422(api: httpx.AsyncClient) -> None:
    response = await api.patch(f"{CM}/web", content=CONFIG_YAML.format(name="web"), headers=APPLY)
    assert response.status_code == 422
    status = response.json()
    assert status["message"] == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'
    )
    assert status["details"] == {
        "group": "meta.k8s.io",
        "kind": "PatchOptions",
        "causes": [
            {
                "reason": "FieldValueRequired",
                "message": "Required value: is required for apply patch",
                "field": "fieldManager",
            }
        ],
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("a: [1, 2", "error decoding YAML: while parsing a flow sequence"),
        ("- 1\n- 2\n", "error decoding YAML: error unmarshaling JSON: json: cannot unmarshal array"),
        ("a: !!binary aGk=\n", "error decoding YAML: json: unsupported type: bytes"),
        ("a: .inf\n", "error decoding YAML: json: unsupported value: inf"),
        ("a: &x [*x]\n", "error decoding YAML: document contains excessive aliasing or nesting"),
    ],
)
async def test_bad_yaml_is_400(api: httpx.AsyncClient, body: str, message: str) -> None:
    response = await apply(api, f"{CM}/web", body)
    assert response.status_code == 400
    assert response.json()["reason"] == "BadRequest"
    assert response.json()["message"].startswith(message)


@pytest.mark.parametrize(
    ("url", "body", "code", "message"),
    [
        (f"{CM}/other", CONFIG_YAML.format(name="web"), 400, "the name of the object (web) does not match"),
        (
            "/api/v1/namespaces/nope/configmaps/web",
            CONFIG_YAML.format(name="web"),
            404,
            'namespaces "nope" not found',
        ),
        (f"{CM}/web", "apiVersion: v1\nkind: Secret\n", 400, "invalid object type: /v1, Kind=Secret"),
        (
            f"{DEPLOY}/d/status",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
            404,
            'deployments.apps "d" not found',
        ),
    ],
)
async def test_apply_refusals(api: httpx.AsyncClient, url: str, body: str, code: int, message: str) -> None:
    response = await apply(api, url, body)
    assert response.status_code == code
    assert message in response.json()["message"]


async def test_conflict_is_409_with_causes_and_force_takes_over(api: httpx.AsyncClient) -> None:
    await apply(api, f"{CM}/web", CONFIG_YAML.format(name="web"))
    changed = CONFIG_YAML.format(name="web").replace('"yes"', '"no"')
    response = await api.patch(f"{CM}/web", content=changed, headers=APPLY, params={"fieldManager": "other"})
    assert response.status_code == 409
    assert response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'Apply failed with 1 conflict: conflict with "m": .data.flag',
        "reason": "Conflict",
        "details": {
            "causes": [
                {"reason": "FieldManagerConflict", "message": 'conflict with "m"', "field": ".data.flag"}
            ]
        },
        "code": 409,
    }
    # force=x is no 400: upstream converts it as any boolean parameter (tests/apiserver/test_bool_params.py)
    forced = await api.patch(
        f"{CM}/web", content=changed, headers=APPLY, params={"fieldManager": "other", "force": "true"}
    )
    assert forced.status_code == 200 and forced.json()["data"]["flag"] == "no"
    assert sorted(managers(forced.json())) == [("m", "Apply"), ("other", "Apply")]


async def test_dry_run_apply_creates_nothing(api: httpx.AsyncClient) -> None:
    response = await apply(api, f"{CM}/dry", CONFIG_YAML.format(name="dry"), dryRun="All")
    assert response.status_code == 201 and response.json()["metadata"]["name"] == "dry"
    assert (await api.get(f"{CM}/dry")).status_code == 404


async def test_every_write_records_its_manager(api: httpx.AsyncClient) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w"}, "data": {"a": "1"}}
    created = await api.post(CM, json=body, headers={"user-agent": "my-tool/1.0 (linux)"})
    assert managers(created.json()) == [("my-tool", "Update")]
    merge = {"content-type": "application/merge-patch+json"}
    patched = await api.patch(
        f"{CM}/w", json={"data": {"b": "2"}}, headers=merge, params={"fieldManager": "p"}
    )
    assert managers(patched.json()) == [("my-tool", "Update"), ("p", "Update")]
    assert patched.json()["metadata"]["managedFields"][1]["fieldsV1"] == {"f:data": {"f:b": {}}}
    forced = await api.patch(f"{CM}/w", json={}, headers=merge, params={"force": "true"})
    assert (
        forced.status_code == 422
        and "force: Forbidden: may not be specified for non-apply patch" in forced.text
    )
    current = patched.json()
    current["metadata"]["managedFields"] = []  # a client resetting them
    replaced = await api.put(f"{CM}/w", json=current, params={"fieldManager": "r"})
    assert "managedFields" not in replaced.json()["metadata"]


async def test_field_manager_must_be_printable_and_short(api: httpx.AsyncClient) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w"}}
    response = await api.post(CM, json=body, params={"fieldManager": "x" * 129})
    assert response.status_code == 422
    assert response.json()["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes'
    )
    bell = await api.post(CM, json=body, params={"fieldManager": "a\x07"})
    assert "invalid character U+0007 (at position 1)" in bell.json()["message"]

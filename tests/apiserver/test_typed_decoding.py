"""Typed decoding of request bodies (issue 13 item 1): every write path refuses values that do
not decode into upstream's Go types, with upstream's status and message, and stores nothing."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.api.protobuf.proto_builder import envelope
from tests.api.protobuf.upstream import UPSTREAM as T

DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"
PODS = "/api/v1/namespaces/default/pods"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
MERGE = {"Content-Type": "application/merge-patch+json"}
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}
REPLICAS_FIELD = "Go struct field DeploymentSpec.spec.replicas of type int32"


def deployment(replicas: Any = 1) -> dict[str, Any]:
    labels = {"app": "web"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": labels},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }


def raw_with(obj: dict[str, Any], placeholder: str, literal: str) -> bytes:
    """``obj`` as JSON with the string ``placeholder`` replaced by the literal text ``literal``."""
    return json.dumps(obj).replace(json.dumps(placeholder), literal).encode()


def assert_bad_request(response: httpx.Response, message: str) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["kind"], body["status"], body["reason"]) == ("Status", "Failure", "BadRequest")
    assert body["message"] == message


def deployment_message(detail: str) -> str:
    return f'Deployment in version "v1" cannot be handled as a Deployment: {detail}'


@pytest.mark.parametrize(
    ("literal", "what"),
    [
        ("1e308", "number 1e308"),
        ("2.5", "number 2.5"),
        ("2147483648", "number 2147483648"),
        ("3.0", "number 3.0"),
        ('"3"', "string"),
        ("true", "bool"),
        ("{}", "object"),
    ],
)
async def test_create_refuses_replicas_that_are_no_int32(
    api: httpx.AsyncClient, literal: str, what: str
) -> None:
    body = raw_with(deployment("REPLICAS"), "REPLICAS", literal)
    response = await api.post(DEPLOYS, content=body, headers={"Content-Type": "application/json"})
    assert_bad_request(response, deployment_message(f"json: cannot unmarshal {what} into {REPLICAS_FIELD}"))
    assert (await api.get(f"{DEPLOYS}/web")).status_code == 404


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            raw_with(pod(terminationGracePeriodSeconds="X"), "X", "1e308"),
            "json: cannot unmarshal number 1e308 into Go struct field "
            "PodSpec.spec.terminationGracePeriodSeconds of type int64",
        ),
        (
            json.dumps({**pod(), "metadata": {"name": "p", "generation": "x"}}).encode(),
            "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64",
        ),
        (
            json.dumps({**pod(), "metadata": {"name": "p", "labels": {"a": 1}}}).encode(),
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
        ),
        (
            json.dumps(pod(containers=[{"name": "c", "ports": [{"containerPort": "8"}]}])).encode(),
            "json: cannot unmarshal string into Go struct field "
            "ContainerPort.spec.containers.ports.containerPort of type int32",
        ),
        (
            json.dumps(pod(containers=[{"name": "c", "resources": {"limits": {"cpu": "lots"}}}])).encode(),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            json.dumps({**pod(), "metadata": {"name": "p", "creationTimestamp": "yesterday"}}).encode(),
            'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
        ),
        (
            json.dumps(pod(containers="c")).encode(),
            "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type "
            "[]v1.Container",
        ),
    ],
)
async def test_create_refuses_pods_that_do_not_decode(
    api: httpx.AsyncClient, body: bytes, message: str
) -> None:
    response = await api.post(PODS, content=body, headers={"Content-Type": "application/json"})
    assert_bad_request(response, f'Pod in version "v1" cannot be handled as a Pod: {message}')
    assert (await api.get(f"{PODS}/p")).status_code == 404


async def test_configmap_immutable_must_be_a_boolean(api: httpx.AsyncClient) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "immutable": "yes"}
    response = await api.post(CONFIGMAPS, json=body)
    assert_bad_request(
        response,
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go '
        "struct field ConfigMap.immutable of type bool",
    )


async def test_type_errors_come_before_unknown_fields(api: httpx.AsyncClient) -> None:
    body = deployment("3")
    body["spec"]["bogus"] = 1
    response = await api.post(DEPLOYS, params={"fieldValidation": "Strict"}, json=body)
    assert_bad_request(response, deployment_message(f"json: cannot unmarshal string into {REPLICAS_FIELD}"))


async def test_valid_values_still_decode(api: httpx.AsyncClient) -> None:
    body = deployment(2147483647)
    body["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": 1.5, "memory": "1Gi"}}
    body["spec"]["strategy"] = {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}
    response = await api.post(DEPLOYS, json=body)
    assert response.status_code == 201, response.text


async def test_update_refuses_and_keeps_the_stored_object(api: httpx.AsyncClient) -> None:
    created = (await api.post(DEPLOYS, json=deployment())).json()
    created["spec"]["replicas"] = 2.5
    response = await api.put(f"{DEPLOYS}/web", json=created)
    expected = deployment_message(f"json: cannot unmarshal number 2.5 into {REPLICAS_FIELD}")
    assert_bad_request(response, expected)
    assert (await api.get(f"{DEPLOYS}/web")).json()["spec"]["replicas"] == 1


async def test_status_update_refuses_a_bad_count(api: httpx.AsyncClient) -> None:
    created = (await api.post(DEPLOYS, json=deployment())).json()
    created["status"] = {"replicas": "many"}
    response = await api.put(f"{DEPLOYS}/web/status", json=created)
    assert_bad_request(
        response,
        deployment_message(
            "json: cannot unmarshal string into Go struct field DeploymentStatus.status.replicas of "
            "type int32"
        ),
    )


@pytest.mark.parametrize(
    ("headers", "patch"),
    [
        (MERGE, {"spec": {"replicas": 2.5}}),
        (JSON_PATCH, [{"op": "replace", "path": "/spec/replicas", "value": 2.5}]),
    ],
)
async def test_json_and_merge_patches_are_invalid_on_patch(
    api: httpx.AsyncClient, headers: dict[str, str], patch: Any
) -> None:
    await api.post(DEPLOYS, json=deployment())
    response = await api.patch(f"{DEPLOYS}/web", content=json.dumps(patch), headers=headers)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["reason"] == "Invalid"
    [cause] = body["details"]["causes"]
    assert cause["field"] == "patch"
    assert cause["message"].startswith('Invalid value: "{')  # the patched object, as upstream
    assert cause["message"].endswith(f": json: cannot unmarshal number 2.5 into {REPLICAS_FIELD}")
    assert body["message"].startswith(' "" is invalid: patch: Invalid value: ')
    assert (await api.get(f"{DEPLOYS}/web")).json()["spec"]["replicas"] == 1


async def test_strategic_merge_patch_answers_as_the_converter(api: httpx.AsyncClient) -> None:
    await api.post(DEPLOYS, json=deployment())
    response = await api.patch(f"{DEPLOYS}/web", json={"spec": {"replicas": 2.5}}, headers=STRATEGIC)
    assert response.status_code == 422, response.text
    assert response.json()["message"] == (
        ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:2.5]]": cannot convert float64 to int32'
    )
    # An integral float is an integer to the converter: stored as one.
    response = await api.patch(f"{DEPLOYS}/web", content=b'{"spec":{"replicas":3.0}}', headers=STRATEGIC)
    assert response.status_code == 200, response.text
    assert json.loads(response.content)["spec"]["replicas"] == 3
    assert type(json.loads((await api.get(f"{DEPLOYS}/web")).content)["spec"]["replicas"]) is int
    big = await api.patch(f"{DEPLOYS}/web", json={"spec": {"replicas": 2**31}}, headers=STRATEGIC)
    assert big.status_code == 422
    assert big.json()["message"].endswith("cannot convert int64 to int32")


async def test_server_side_apply_refuses_wrong_kinds_and_non_integers(api: httpx.AsyncClient) -> None:
    params = {"fieldManager": "me"}
    url = f"{DEPLOYS}/web"
    wrong = await api.patch(url, params=params, content=json.dumps(deployment("3")), headers=APPLY)
    assert_bad_request(
        wrong,
        "failed to create typed patch object (/web; apps/v1, Kind=Deployment): .spec.replicas: "
        "expected numeric (int or float), got string",
    )
    fraction = await api.patch(url, params=params, content=json.dumps(deployment(2.5)), headers=APPLY)
    assert_bad_request(
        fraction,
        "failed to convert new object (/web; apps/v1, Kind=Deployment) to proper version: "
        "cannot convert float64 to int32",
    )
    assert (await api.get(f"{DEPLOYS}/web")).status_code == 404
    fine = await api.patch(url, params=params, content=json.dumps(deployment(2)), headers=APPLY)
    assert fine.status_code == 201, fine.text


async def test_scale_subresource_checks_its_body(api: httpx.AsyncClient) -> None:
    await api.post(DEPLOYS, json=deployment())
    scale = (await api.get(f"{DEPLOYS}/web/scale")).json()
    scale["spec"]["replicas"] = 1e308
    response = await api.put(f"{DEPLOYS}/web/scale", json=scale)
    assert_bad_request(
        response,
        'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 1e+308 '
        "into Go struct field ScaleSpec.spec.replicas of type int32",
    )
    patched = await api.patch(f"{DEPLOYS}/web/scale", json={"spec": {"replicas": "9"}}, headers=MERGE)
    assert patched.status_code == 422, patched.text
    assert patched.json()["details"]["causes"][0]["message"].endswith(
        "json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32"
    )
    assert (await api.get(f"{DEPLOYS}/web")).json()["spec"]["replicas"] == 1


async def test_binding_and_eviction_bodies_are_decoded(api: httpx.AsyncClient) -> None:
    await api.post(PODS, json=pod())
    binding = await api.post(f"{PODS}/p/binding", json={"target": "node"})
    assert_bad_request(
        binding,
        'Binding in version "v1" cannot be handled as a Binding: json: cannot unmarshal string '
        "into Go struct field Binding.target of type v1.ObjectReference",
    )
    eviction = await api.post(f"{PODS}/p/eviction", json={"metadata": "x"})
    assert_bad_request(
        eviction,
        'Eviction in version "v1" cannot be handled as a Eviction: json: cannot unmarshal string '
        "into Go struct field Eviction.metadata of type v1.ObjectMeta",
    )
    assert (await api.get(f"{PODS}/p")).status_code == 200


async def test_protobuf_bodies_are_checked_too(api: httpx.AsyncClient) -> None:
    limits = {"cpu": T["Quantity"](string="lots")}
    container = T["Container"](name="c", image="nginx", resources=T["ResourceRequirements"](limits=limits))
    template = T["PodTemplateSpec"](spec=T["PodSpec"](containers=[container]))
    message = T["Deployment"](
        metadata=T["ObjectMeta"](name="web"), spec=T["DeploymentSpec"](template=template)
    )
    body = envelope("apps/v1", "Deployment", message.SerializeToString())
    protobuf = {"Content-Type": "application/vnd.kubernetes.protobuf"}
    response = await api.post(DEPLOYS, content=body, headers=protobuf)
    assert_bad_request(
        response,
        deployment_message(
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        ),
    )
    assert (await api.get(f"{DEPLOYS}/web")).status_code == 404

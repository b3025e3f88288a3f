"""Upstream's rules for built-in Secret types and the total annotation size, through the API
(issue 13, item 6): a ``dockerconfigjson`` Secret of non-JSON data, or 300 KiB of annotations,
was stored."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

SECRETS = "/api/v1/namespaces/default/secrets"
REDACTED = 'Invalid value: "<secret contents redacted>":'
GO_MAP = "map[string]interface {}"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


async def create(api: httpx.AsyncClient, body: dict[str, Any]) -> httpx.Response:
    return await api.post(SECRETS, json={"apiVersion": "v1", "kind": "Secret", **body})


def causes(response: httpx.Response) -> list[tuple[str, str, str]]:
    return [(c["reason"], c["field"], c["message"]) for c in response.json()["details"]["causes"]]


@pytest.mark.parametrize(
    ("kind", "data", "expected"),
    [
        (
            "kubernetes.io/dockerconfigjson",
            {".dockerconfigjson": b64("not json")},
            [
                (
                    "FieldValueInvalid",
                    "data[.dockerconfigjson]",
                    f"{REDACTED} invalid character 'o' in literal null (expecting 'u')",
                )
            ],
        ),
        (
            "kubernetes.io/dockerconfigjson",
            {},
            [("FieldValueRequired", "data[.dockerconfigjson]", "Required value")],
        ),
        (
            "kubernetes.io/dockerconfigjson",
            {".dockerconfigjson": b64("[1]")},
            [
                (
                    "FieldValueInvalid",
                    "data[.dockerconfigjson]",
                    f"{REDACTED} json: cannot unmarshal array into Go value of type {GO_MAP}",
                )
            ],
        ),
        (
            "kubernetes.io/dockercfg",
            {".dockercfg": b64("")},
            [
                (
                    "FieldValueInvalid",
                    "data[.dockercfg]",
                    'Invalid value: "<secret contents redacted>": unexpected end of JSON input',
                )
            ],
        ),
        (
            "kubernetes.io/dockercfg",
            {"x": b64("{}")},
            [("FieldValueRequired", "data[.dockercfg]", "Required value")],
        ),
        (
            "kubernetes.io/basic-auth",
            {},
            [
                ("FieldValueRequired", "data[username]", "Required value"),
                ("FieldValueRequired", "data[password]", "Required value"),
            ],
        ),
        (
            "kubernetes.io/ssh-auth",
            {"ssh-privatekey": ""},
            [("FieldValueRequired", "data[ssh-privatekey]", "Required value")],
        ),
        (
            "kubernetes.io/tls",
            {"tls.crt": b64("c")},
            [("FieldValueRequired", "data[tls.key]", "Required value")],
        ),
        (
            "kubernetes.io/service-account-token",
            {},
            [
                (
                    "FieldValueRequired",
                    "metadata.annotations[kubernetes.io/service-account.name]",
                    "Required value",
                )
            ],
        ),
    ],
)
async def test_typed_secret_rules(
    api: httpx.AsyncClient, kind: str, data: dict[str, str], expected: list[tuple[str, str, str]]
) -> None:
    response = await create(api, {"metadata": {"name": "s"}, "type": kind, "data": data})
    assert response.status_code == 422, response.text
    assert causes(response) == expected
    assert (await api.get(f"{SECRETS}/s")).status_code == 404


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("kubernetes.io/dockerconfigjson", {"data": {".dockerconfigjson": b64('{"auths":{}}')}}),
        ("kubernetes.io/dockerconfigjson", {"stringData": {".dockerconfigjson": "null"}}),  # Go: a nil map
        ("kubernetes.io/dockercfg", {"stringData": {".dockercfg": "{}"}}),
        ("kubernetes.io/basic-auth", {"stringData": {"password": ""}}),
        ("kubernetes.io/ssh-auth", {"stringData": {"ssh-privatekey": "k"}}),
        ("kubernetes.io/tls", {"data": {"tls.crt": "", "tls.key": ""}}),
        (
            "kubernetes.io/service-account-token",
            {"metadata": {"name": "s", "annotations": {"kubernetes.io/service-account.name": "default"}}},
        ),
        ("example.com/anything", {"data": {}}),
    ],
)
async def test_well_formed_typed_secrets_are_created(
    api: httpx.AsyncClient, kind: str, body: dict[str, Any]
) -> None:
    response = await create(api, {"metadata": {"name": "s"}, "type": kind, **body})
    assert response.status_code == 201, response.text


async def test_secret_data_over_1_mib_is_too_long(api: httpx.AsyncClient) -> None:
    data = {"a": b64("x" * (600 * 1024)), "b": b64("y" * (600 * 1024))}
    response = await create(api, {"metadata": {"name": "big"}, "data": data})
    assert response.status_code == 422
    assert causes(response) == [("FieldValueTooLong", "data", "Too long: may not be more than 1048576 bytes")]


async def test_annotations_over_256_kib_in_all_are_too_long(api: httpx.AsyncClient) -> None:
    annotations = {f"note-{i}": "x" * (100 * 1024) for i in range(3)}  # 300 KiB, each under it
    response = await api.post(
        "/api/v1/namespaces/default/configmaps",
        json={"metadata": {"name": "big", "annotations": annotations}},
    )
    assert response.status_code == 422
    assert response.json()["message"] == (
        'ConfigMap "big" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes'
    )
    just = {"Note": "x" * (256 * 1024 - 4)}  # exactly 256 KiB; keys are case-insensitive
    ok = await api.post(
        "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "ok", "annotations": just}}
    )
    assert ok.status_code == 201, ok.text

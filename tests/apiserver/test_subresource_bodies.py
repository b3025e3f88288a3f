"""Binding and Eviction bodies that do not decode into upstream's types are a 400 and change
nothing (issue 13, item 6): ``{"target": "node"}`` was a 500, ``{"metadata": "x"}`` evicted."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

NS = "/api/v1/namespaces/default"


@pytest.fixture
async def pod(api: httpx.AsyncClient) -> str:
    body = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    assert (await api.post(f"{NS}/pods", json=body)).status_code == 201
    return "p"


def decode_error(kind: str, version: str, what: str, field: str, go_type: str, struct: str = "") -> str:
    """Go's message names the innermost struct holding the field (``ObjectReference`` for
    ``target.name``) and the field's whole path."""
    return (
        f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot unmarshal {what} '
        f"into Go struct field {struct or kind}.{field} of type {go_type}"
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"target": "node"}, decode_error("Binding", "v1", "string", "target", "v1.ObjectReference")),
        (
            {"metadata": {"name": "p"}, "target": {"name": 3}},
            decode_error("Binding", "v1", "number", "target.name", "string", "ObjectReference"),
        ),
        (
            {"metadata": [], "target": {"name": "n"}},
            decode_error("Binding", "v1", "array", "metadata", "v1.ObjectMeta"),
        ),
        (
            {"metadata": {"name": "p", "annotations": {"a": True}}, "target": {"name": "n"}},
            decode_error("Binding", "v1", "bool", "metadata.annotations", "string", "ObjectMeta"),
        ),
        (
            {"metadata": {"name": "other"}, "target": {"name": "n"}},
            "name in URL does not match name in Binding object",
        ),
        ({"target": {"name": "n"}}, "name in URL does not match name in Binding object"),
    ],
)
async def test_bad_binding_is_400(
    api: httpx.AsyncClient, pod: str, body: dict[str, Any], message: str
) -> None:
    response = await api.post(
        f"{NS}/pods/{pod}/binding", json={"apiVersion": "v1", "kind": "Binding", **body}
    )
    assert (response.status_code, response.json()["message"]) == (400, message)
    assert "nodeName" not in (await api.get(f"{NS}/pods/{pod}")).json()["spec"]


async def test_good_binding_binds(api: httpx.AsyncClient, pod: str) -> None:
    body = {"metadata": {"name": pod}, "target": {"kind": "Node", "name": "n1"}}
    assert (await api.post(f"{NS}/pods/{pod}/binding", json=body)).status_code == 201
    assert (await api.get(f"{NS}/pods/{pod}")).json()["spec"]["nodeName"] == "n1"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"metadata": "x"}, decode_error("Eviction", "v1", "string", "metadata", "v1.ObjectMeta")),
        (
            {"metadata": {"name": "p"}, "deleteOptions": 1},
            decode_error("Eviction", "v1", "number", "deleteOptions", "v1.DeleteOptions"),
        ),
        ({"metadata": {"name": "q"}}, "name in URL does not match name in Eviction object"),
        ({}, "name in URL does not match name in Eviction object"),
    ],
)
async def test_bad_eviction_is_400_and_evicts_nothing(
    api: httpx.AsyncClient, pod: str, body: dict[str, Any], message: str
) -> None:
    full = {"apiVersion": "policy/v1", "kind": "Eviction", **body}
    response = await api.post(f"{NS}/pods/{pod}/eviction", json=full)
    assert (response.status_code, response.json()["message"]) == (400, message)
    assert (await api.get(f"{NS}/pods/{pod}")).status_code == 200

"""Regression (found by tests/apiserver/test_schemathesis.py): a LimitRange created without
``spec.limits`` was answered and stored without the field its OpenAPI schema requires, which
typed clients refuse to read; it now reads back with an empty list."""

from __future__ import annotations

import httpx
import pytest

LIMITRANGES = "/api/v1/namespaces/default/limitranges"


@pytest.mark.parametrize("spec", [None, {}, {"limits": None}])
async def test_a_limitrange_without_limits_has_an_empty_list(
    api: httpx.AsyncClient, spec: dict[str, object] | None
) -> None:
    body: dict[str, object] = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr"}}
    if spec is not None:
        body["spec"] = spec
    created = await api.post(LIMITRANGES, json=body)
    assert created.status_code == 201, created.text
    assert created.json()["spec"] == {"limits": []}
    assert (await api.get(f"{LIMITRANGES}/lr")).json()["spec"] == {"limits": []}

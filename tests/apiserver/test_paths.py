"""Paths upstream's muxes answer with or without a trailing slash (issue 13, item 14): its
go-restful web services (``/version``, ``/api``, discovery) match both; its plain mux
(health checks, ``/metrics``, ``/openapi/v2``) only the exact path."""

from __future__ import annotations

import httpx
import pytest


async def test_version_with_a_trailing_slash_is_the_version(api: httpx.AsyncClient) -> None:
    plain, slashed = await api.get("/version"), await api.get("/version/")
    assert slashed.status_code == 200
    assert slashed.content == plain.content
    assert slashed.headers["content-type"] == "application/json"


@pytest.mark.parametrize("path", ["/api", "/apis", "/api/v1", "/apis/apps", "/apis/apps/v1"])
async def test_discovery_with_a_trailing_slash(api: httpx.AsyncClient, path: str) -> None:
    plain, slashed = await api.get(path), await api.get(path + "/")
    assert (plain.status_code, slashed.status_code) == (200, 200)
    assert slashed.json() == plain.json()


@pytest.mark.parametrize("path", ["/healthz/", "/livez/", "/readyz/", "/metrics/", "/openapi/v2/"])
async def test_exact_paths_stay_exact(api: httpx.AsyncClient, path: str) -> None:
    assert (await api.get(path)).status_code == 404

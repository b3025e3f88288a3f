"""Flow control in the whole in-process apiserver (``build_app``): classification headers on
real responses, ``/metrics``, and the gate staying open by default."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest

from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.flowcontrol.schema import object_uid
from apiserver.registry.catalog import Catalog
from apiserver.security import SecurityConfig
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV
from tests.flowcontrol.conftest import SMALL, client_for, user_headers


@contextlib.asynccontextmanager
async def apiserver(security: SecurityConfig) -> AsyncIterator[httpx.AsyncClient]:
    kv = MemoryKV()
    catalog = Catalog(kv)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        async with client_for(build_app(kv, catalog, security=security)) as client:
            yield client
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


@pytest.fixture
async def api_pf() -> AsyncIterator[httpx.AsyncClient]:
    async with apiserver(SMALL) as client:
        yield client


async def test_responses_name_their_flow_schema_and_priority_level(api_pf: httpx.AsyncClient) -> None:
    admin = user_headers("admin", "system:masters")
    created = await api_pf.post(
        "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "c"}}, headers=admin
    )
    assert created.status_code == 201
    assert created.headers["x-kubernetes-pf-prioritylevel-uid"] == object_uid(
        "prioritylevelconfigurations", "exempt"
    )
    listed = await api_pf.get("/api/v1/namespaces/default/configmaps", headers=user_headers("alice"))
    assert listed.status_code in (200, 403)  # authorization may refuse alice; flow control ran first
    assert listed.headers["x-kubernetes-pf-flowschema-uid"] == object_uid("flowschemas", "global-default")


async def test_metrics_lists_the_flow_control_series(api_pf: httpx.AsyncClient) -> None:
    admin = user_headers("admin", "system:masters")
    await api_pf.get("/api/v1/namespaces", headers=user_headers("alice"))
    response = await api_pf.get("/metrics", headers=admin)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert "# TYPE apiserver_flowcontrol_rejected_requests_total counter" in response.text
    assert (
        'apiserver_flowcontrol_current_executing_requests{flow_schema="exempt",priority_level="exempt"} 1'
        in response.text.splitlines()  # the /metrics request itself
    )
    assert (
        'apiserver_flowcontrol_current_executing_requests{flow_schema="global-default",'
        'priority_level="global-default"} 0' in response.text.splitlines()
    )


async def test_without_configuration_flow_control_is_off() -> None:
    async with apiserver(SecurityConfig()) as client:
        response = await client.get("/api/v1/namespaces", headers=user_headers("admin", "system:masters"))
        assert response.status_code == 200
        assert not any(k.startswith("x-kubernetes-pf-") for k in response.headers)
        assert (await client.get("/metrics", headers=user_headers("admin", "system:masters"))).text == ""

"""Service addresses over HTTP, from the apiserver's configured ranges
(``--service-cluster-ip-range``, ``--service-node-port-range``): the ``kubernetes`` Service at
the first address, loopback cluster IPs accepted, upstream's 422s for taken or out-of-range
values, and an older data dir's ``kubernetes`` Service moved into the range."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.registry.catalog import Catalog
from apiserver.registry.resources.serviceallocator import ServiceNetwork
from apiserver.server import build_app
from apiserver.storage.memory import MemoryKV
from tests.waiting import eventually

NETWORK = ServiceNetwork("127.77.0.0/24", "30000-30100")
SERVICES = "/api/v1/namespaces/default/services"


@contextlib.asynccontextmanager
async def apiserver(kv: MemoryKV, network: ServiceNetwork) -> AsyncIterator[httpx.AsyncClient]:
    catalog = Catalog(kv, service_network=network)
    caches = asyncio.create_task(catalog.run())
    try:
        await catalog.wait_ready()
        await ensure_bootstrap_objects(catalog)
        transport = httpx.ASGITransport(app=build_app(kv, catalog))
        async with httpx.AsyncClient(transport=transport, base_url="http://apiserver") as client:
            yield client
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches


@pytest.fixture
async def api() -> AsyncIterator[httpx.AsyncClient]:
    kv = MemoryKV()
    async with apiserver(kv, NETWORK) as client:
        yield client
    await kv.close()


def service(name: str, **spec: Any) -> dict[str, Any]:
    ports = spec.pop("ports", [{"port": 80}])
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"ports": ports, **spec},
    }


async def refused(api: httpx.AsyncClient, body: dict[str, Any]) -> str:
    response = await api.post(SERVICES, json=body)
    assert response.status_code == 422, response.text
    status = response.json()
    assert (status["reason"], status["details"]["kind"]) == ("Invalid", "Service")
    return str(status["message"])


async def test_the_kubernetes_service_has_the_first_address_of_the_range(api: httpx.AsyncClient) -> None:
    spec = (await api.get(f"{SERVICES}/kubernetes")).json()["spec"]
    assert (spec["clusterIP"], spec["clusterIPs"]) == ("127.77.0.1", ["127.77.0.1"])
    message = await refused(api, service("mine", clusterIP="127.77.0.1"))
    assert message == (
        'Service "mine" is invalid: spec.clusterIPs: Invalid value: ["127.77.0.1"]: '
        "failed to allocate IP 127.77.0.1: provided IP is already allocated"
    )


async def test_a_chosen_loopback_ip_is_served_once(api: httpx.AsyncClient) -> None:
    created = await api.post(SERVICES, json=service("dns", clusterIP="127.77.0.10"))
    assert created.status_code == 201, created.text
    assert created.json()["spec"]["clusterIPs"] == ["127.77.0.10"]  # loopback: accepted here
    assert await refused(api, service("dns2", clusterIP="127.77.0.10")) == (
        'Service "dns2" is invalid: spec.clusterIPs: Invalid value: ["127.77.0.10"]: '
        "failed to allocate IP 127.77.0.10: provided IP is already allocated"
    )


async def test_an_ip_outside_the_range_is_refused(api: httpx.AsyncClient) -> None:
    assert await refused(api, service("far", clusterIP="127.96.0.10")) == (
        'Service "far" is invalid: spec.clusterIPs: Invalid value: ["127.96.0.10"]: failed to allocate IP '
        "127.96.0.10: the provided IP (127.96.0.10) is not in the valid range. "
        "The range of valid IPs is 127.77.0.0/24"
    )


async def test_dynamic_ips_come_from_the_upper_band(api: httpx.AsyncClient) -> None:
    for i in range(5):
        response = await api.post(SERVICES, json=service(f"web{i}"))
        ip = response.json()["spec"]["clusterIP"]
        assert ip.startswith("127.77.0.") and 17 <= int(ip.rsplit(".", 1)[1]) <= 254


async def test_node_ports_as_upstream(api: httpx.AsyncClient) -> None:
    first = await api.post(
        SERVICES, json=service("a", type="NodePort", ports=[{"port": 80, "nodePort": 30080}])
    )
    assert first.status_code == 201, first.text
    taken = service("b", type="NodePort", ports=[{"port": 80, "nodePort": 30080}])
    assert await refused(api, taken) == (
        'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: '
        "provided port is already allocated"
    )
    outside = service("c", type="NodePort", ports=[{"port": 80, "nodePort": 30101}])
    assert await refused(api, outside) == (
        'Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 30101: provided port is not in the '
        "valid range. The range of valid ports is 30000-30100"
    )
    dynamic = await api.post(SERVICES, json=service("d", type="NodePort"))
    assert 30016 <= dynamic.json()["spec"]["ports"][0]["nodePort"] <= 30100  # above the static band
    assert (await api.delete(f"{SERVICES}/a")).status_code == 200

    async def recreated() -> bool:
        return (await api.post(SERVICES, json=taken)).status_code == 201

    await eventually(recreated, "the deleted service's node port to be free again")


async def test_an_older_kubernetes_service_moves_into_the_range() -> None:
    kv = MemoryKV()
    try:
        async with apiserver(kv, ServiceNetwork("10.96.0.0/12")) as old:  # an older version's range
            assert (await old.get(f"{SERVICES}/kubernetes")).json()["spec"]["clusterIP"] == "10.96.0.1"
        async with apiserver(kv, ServiceNetwork()) as new:
            spec = (await new.get(f"{SERVICES}/kubernetes")).json()["spec"]
            assert (spec["clusterIP"], spec["clusterIPs"]) == ("127.96.0.1", ["127.96.0.1"])
    finally:
        await kv.close()

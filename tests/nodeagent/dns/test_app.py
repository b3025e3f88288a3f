"""The whole DNS component against a real apiserver on loopback (in this process): records
follow Services and EndpointSlices written through the API, the kube-dns Service and
Endpoints are written and put right, ``/metrics``, ``/health`` and ``/ready`` answer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import dns.asyncquery
import dns.message
import dns.rcode
import httpx
import pytest

from minikube_py.api.errors import ApiError
from minikube_py.client import RESTClient
from minikube_py.client.config import load_kubeconfig
from minikube_py.client.resourcetypes import SERVICES
from minikube_py.pki import ClusterPKI, ensure_cluster_pki
from nodeagent.dns.app import run_dns
from nodeagent.dns.informers import ENDPOINTSLICES
from nodeagent.dns.kubedns import ENDPOINTS, Listening, dns_ip_from_kubernetes
from nodeagent.dns.options import DNSOptions
from tests.client.apiserver import RunningApiserver, running_apiserver
from tests.nodeagent.dns.fixtures import endpoint, endpoint_slice, service
from tests.waiting import eventually


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> ClusterPKI:
    return ensure_cluster_pki(tmp_path_factory.mktemp("dns-pki") / "pki")


@pytest.fixture
async def apiserver(tmp_path: Path, pki: ClusterPKI) -> AsyncIterator[RunningApiserver]:
    async with running_apiserver(tmp_path, pki=pki) as running:
        yield running


@pytest.fixture
async def client(apiserver: RunningApiserver) -> AsyncIterator[RESTClient]:
    async with RESTClient.from_kubeconfig(apiserver.kubeconfig) as rest:
        yield rest


@pytest.fixture
async def where(apiserver: RunningApiserver) -> AsyncIterator[Listening]:
    listening: asyncio.Future[Listening] = asyncio.get_running_loop().create_future()
    options = DNSOptions(port=0, metrics_port=0, upstreams=())
    task = asyncio.create_task(
        run_dns(load_kubeconfig(apiserver.kubeconfig), options, on_listening=listening.set_result)
    )
    try:
        yield await asyncio.wait_for(listening, 10)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def ask(where: Listening, name: str, rdtype: str = "A") -> dns.message.Message:
    query = dns.message.make_query(name, rdtype)
    return await dns.asyncquery.udp(query, where.host, port=where.port, timeout=2)


async def addresses(where: Listening, name: str) -> list[str]:
    response = await ask(where, name)
    return sorted(str(r) for rrset in response.answer for r in rrset)


async def test_records_follow_the_api(client: RESTClient, where: Listening) -> None:
    services = client.resource(SERVICES, "default")
    web = await services.create({**service("web", cluster_ip=""), "apiVersion": "v1", "kind": "Service"})
    ip = web["spec"]["clusterIP"]
    await eventually(lambda: addresses(where, "web.default.svc.cluster.local"), "web's A record")
    assert await addresses(where, "web.default.svc.cluster.local") == [ip]
    await services.create({**service("db", cluster_ip="None"), "apiVersion": "v1", "kind": "Service"})
    body = endpoint_slice("db-1", "db", [endpoint("127.1.0.2", "db-0"), endpoint("127.1.0.3")])
    await client.resource(ENDPOINTSLICES, "default").create(
        {**body, "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice"}
    )

    async def headless() -> bool:
        return await addresses(where, "db.default.svc.cluster.local") == ["127.1.0.2", "127.1.0.3"]

    await eventually(headless, "db's endpoints")
    assert await addresses(where, "db-0.db.default.svc.cluster.local") == ["127.1.0.2"]
    await services.delete("web")

    async def gone() -> bool:
        return (await ask(where, "web.default.svc.cluster.local")).rcode() == dns.rcode.NXDOMAIN

    await eventually(gone, "web's NXDOMAIN")


async def kube_dns_endpoints(client: RESTClient) -> dict[str, Any] | None:
    try:
        return dict(await client.resource(ENDPOINTS, "kube-system").get("kube-dns"))
    except ApiError:
        return None


async def test_kube_dns_service_and_endpoints_name_the_server(client: RESTClient, where: Listening) -> None:
    kubernetes = await client.resource(SERVICES, "default").get("kubernetes")
    expected_ip = dns_ip_from_kubernetes(kubernetes["spec"]["clusterIP"])
    endpoints = await eventually(lambda: kube_dns_endpoints(client), "the kube-dns Endpoints")
    svc = await client.resource(SERVICES, "kube-system").get("kube-dns")
    assert svc["spec"]["clusterIP"] == expected_ip
    assert not svc["spec"].get("selector")
    assert {p["name"]: (p["port"], p["protocol"]) for p in svc["spec"]["ports"]} == {
        "dns": (53, "UDP"), "dns-tcp": (53, "TCP"), "metrics": (9153, "TCP"),
    }  # fmt: skip
    assert svc["metadata"]["labels"]["k8s-app"] == "kube-dns"
    [subset] = endpoints["subsets"]
    assert [a["ip"] for a in subset["addresses"]] == ["127.0.0.1"]
    assert {p["name"]: p["port"] for p in subset["ports"]} == {
        "dns": where.port, "dns-tcp": where.port, "metrics": where.metrics_port,
    }  # fmt: skip
    # the server answers for itself too
    assert await addresses(where, "kube-dns.kube-system.svc.cluster.local") == [expected_ip]


async def test_kube_dns_endpoints_are_put_right(client: RESTClient, where: Listening) -> None:
    handle = client.resource(ENDPOINTS, "kube-system")
    current = await eventually(lambda: kube_dns_endpoints(client), "the kube-dns Endpoints")
    current["subsets"][0]["ports"] = [{"name": "dns", "port": 1, "protocol": "UDP"}]
    await handle.update(current)
    # the Service's change wakes the reconciler; a changed Endpoints waits for its next pass,
    # so poke the Service (as any edit of it would)
    svc = await client.resource(SERVICES, "kube-system").get("kube-dns")
    svc["metadata"].setdefault("annotations", {})["touched"] = "yes"
    await client.resource(SERVICES, "kube-system").update(svc)

    async def fixed() -> bool:
        ports = (await handle.get("kube-dns"))["subsets"][0]["ports"]
        return {p["name"] for p in ports} == {"dns", "dns-tcp", "metrics"}

    await eventually(fixed, "the Endpoints put right")


async def test_metrics_health_and_ready(where: Listening) -> None:
    await ask(where, "web.default.svc.cluster.local")
    base = f"http://{where.host}:{where.metrics_port}"
    async with httpx.AsyncClient(base_url=base) as http:
        assert (await http.get("/health")).text == "OK"
        await eventually(lambda: http.get("/ready"), "ready")

        async def ready() -> bool:
            return (await http.get("/ready")).status_code == 200

        await eventually(ready, "/ready 200")
        metrics = (await http.get("/metrics")).text
    assert 'coredns_dns_requests_total{family="1",proto="udp"' in metrics
    assert "coredns_dns_responses_total{" in metrics and 'rcode="NXDOMAIN"' in metrics

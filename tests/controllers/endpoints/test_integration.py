"""The three endpoints controllers against a real apiserver over HTTPS on loopback (in this
process, memory store): Endpoints and EndpointSlices follow pods as their status changes,
selector-less Endpoints are mirrored, the ``kubernetes`` Service lists this apiserver at its
real port, and loopback addresses are accepted where upstream refuses them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from controllers.endpoint import EndpointsController
from controllers.endpointslice import EndpointSliceController
from controllers.endpointslicemirroring import EndpointSliceMirroringController
from minikube_py.api.errors import ApiError
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client import RESTClient
from minikube_py.client.resourcetypes import ENDPOINTS, ENDPOINTSLICES, NODES, PODS, SERVICES
from tests.client.apiserver import RunningApiserver, running_apiserver
from tests.controllers.endpoints.fixtures import NS, node, pod, service
from tests.waiting import eventually


@pytest.fixture
async def apiserver(tmp_path: Path) -> AsyncIterator[RunningApiserver]:
    async with running_apiserver(tmp_path) as running:
        yield running


@contextlib.asynccontextmanager
async def controllers(apiserver: RunningApiserver) -> AsyncIterator[RESTClient]:
    """The three controllers, two workers each, over one informer factory, until the block ends."""
    async with RESTClient.from_kubeconfig(apiserver.kubeconfig) as client:
        factory = SharedInformerFactory(client)
        running = [
            EndpointsController(client, factory),
            EndpointSliceController(client, factory),
            EndpointSliceMirroringController(client, factory),
        ]

        async def run_all() -> None:
            async with asyncio.TaskGroup() as tasks:
                factory.start(tasks)
                for controller in running:
                    tasks.create_task(controller.run(2))

        runner = asyncio.create_task(run_all())
        try:
            yield client
        finally:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner


async def set_ready(client: RESTClient, name: str, ready: bool) -> None:
    current = await client.resource(PODS, NS).get(name)
    wanted = pod(name, current["status"].get("podIP", ""), ready=ready)
    current["status"] = wanted["status"]
    await client.resource(PODS, NS).update_status(current)


async def create_pod(client: RESTClient, name: str, ip: str, ready: bool = True) -> None:
    body = pod(name, ip, ready=ready)
    status = body.pop("status")
    body["metadata"].pop("uid")
    created = await client.resource(PODS, NS).create(body)
    created["status"] = status
    await client.resource(PODS, NS).update_status(created)


async def addresses(client: RESTClient) -> tuple[list[str], list[str]] | None:
    try:
        endpoints = await client.resource(ENDPOINTS, NS).get("web")
    except ApiError as err:
        if err.code == 404:
            return None  # not written yet
        raise
    subsets = endpoints.get("subsets") or [{}]
    ready = sorted(a["ip"] for s in subsets for a in s.get("addresses") or [])
    not_ready = sorted(a["ip"] for s in subsets for a in s.get("notReadyAddresses") or [])
    return ready, not_ready


async def slice_endpoints(client: RESTClient, service_name: str = "web") -> list[tuple[str, bool]]:
    listed = await client.resource(ENDPOINTSLICES, NS).list(
        label_selector=f"kubernetes.io/service-name={service_name}"
    )
    return sorted(
        (e["addresses"][0], bool(e["conditions"]["ready"])) for s in listed["items"] for e in s["endpoints"]
    )


async def test_endpoints_and_slices_follow_pod_readiness(apiserver: RunningApiserver) -> None:
    async with controllers(apiserver) as client:
        await client.resource(NODES).create(node("node-1"))
        svc = service()
        svc["metadata"].pop("uid")
        svc["spec"].pop("clusterIP")
        await client.resource(SERVICES, NS).create(svc)
        await create_pod(client, "a", "127.128.1.2")
        await create_pod(client, "b", "127.128.1.3", ready=False)

        async def state(want_ready: list[str], want_not_ready: list[str]) -> bool:
            if await addresses(client) != (want_ready, want_not_ready):
                return False
            want = sorted([(ip, True) for ip in want_ready] + [(ip, False) for ip in want_not_ready])
            return await slice_endpoints(client) == want

        await eventually(lambda: state(["127.128.1.2"], ["127.128.1.3"]), "a ready, b not")
        await set_ready(client, "b", True)
        await eventually(lambda: state(["127.128.1.2", "127.128.1.3"], []), "both ready")
        await set_ready(client, "a", False)
        await eventually(lambda: state(["127.128.1.3"], ["127.128.1.2"]), "a no longer ready")
        await client.resource(PODS, NS).delete("b", grace_period_seconds=0)
        await eventually(lambda: state([], ["127.128.1.2"]), "b gone")
        await client.resource(SERVICES, NS).delete("web")

        async def endpoints_gone() -> bool:
            try:
                await client.resource(ENDPOINTS, NS).get("web")
            except ApiError as err:
                return err.code == 404
            return False

        await eventually(endpoints_gone, "the Endpoints to go with the Service")


async def test_selectorless_endpoints_are_mirrored(apiserver: RunningApiserver) -> None:
    async with controllers(apiserver) as client:
        svc = service("dns", selector={})
        svc["metadata"].pop("uid")
        svc["spec"].pop("clusterIP")
        await client.resource(SERVICES, NS).create(svc)
        body: dict[str, Any] = {
            "metadata": {"name": "dns", "namespace": NS},
            "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "http", "port": 5353}]}],
        }
        await client.resource(ENDPOINTS, NS).create(body)  # loopback: accepted here
        assert await eventually(lambda: slice_endpoints(client, "dns"), "the mirrored slice") == [
            ("127.0.0.1", True)
        ]


async def test_the_kubernetes_service_lists_this_apiserver(apiserver: RunningApiserver) -> None:
    port = int(apiserver.url.rsplit(":", 1)[1])
    async with RESTClient.from_kubeconfig(apiserver.kubeconfig) as client:
        endpoints = await eventually(
            lambda: client.resource(ENDPOINTS, "default").get("kubernetes"), "endpoints"
        )
        assert endpoints["subsets"] == [
            {
                "addresses": [{"ip": "127.0.0.1"}],
                "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
            }
        ]
        slice_ = await client.resource(ENDPOINTSLICES, "default").get("kubernetes")
        assert slice_["endpoints"][0]["addresses"] == ["127.0.0.1"]
        assert slice_["ports"] == [{"name": "https", "port": port, "protocol": "TCP"}]


async def test_special_addresses_are_refused_with_a_status(apiserver: RunningApiserver) -> None:
    async with RESTClient.from_kubeconfig(apiserver.kubeconfig) as client:
        body = {"metadata": {"name": "bad", "namespace": NS}, "subsets": [{"addresses": [{"ip": "0.0.0.0"}]}]}
        with pytest.raises(ApiError) as raised:
            await client.resource(ENDPOINTS, NS).create(body)
        assert raised.value.code == 422 and raised.value.reason == "Invalid"
        assert "may not be unspecified" in raised.value.message

"""The ``kubernetes`` Service's endpoints from the apiservers' leases: one address per live
apiserver, several ports on one IP as several subsets (and slices), a stopped apiserver
removed at once, a crashed one when its lease expires, the last one never erased."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from apiserver.bootstrap.kubernetesendpoints import LeaseEndpointReconciler, advertised
from apiserver.bootstrap.masterleases import Address
from apiserver.bootstrap.objects import ensure_bootstrap_objects
from apiserver.registry.catalog import Catalog
from apiserver.storage.interface import ListOptions
from apiserver.storage.memory import MemoryKV
from minikube_py.clock import FakeClock


@contextlib.asynccontextmanager
async def catalog() -> AsyncIterator[Catalog]:
    kv = MemoryKV()
    cat = Catalog(kv)
    caches = asyncio.create_task(cat.run())
    try:
        await cat.wait_ready()
        await ensure_bootstrap_objects(cat)
        yield cat
    finally:
        caches.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caches
        await kv.close()


async def endpoints(catalog: Catalog) -> Any:
    store = catalog.store("", "v1", "endpoints")
    assert store is not None
    return await store.get("default", "kubernetes")


async def slices(catalog: Catalog) -> dict[str, Any]:
    store = catalog.store("discovery.k8s.io", "v1", "endpointslices")
    assert store is not None
    listed = await store.list("default", ListOptions())
    return {s["metadata"]["name"]: s for s in listed.items}


def subset(port: int, *ips: str) -> dict[str, Any]:
    return {
        "addresses": [{"ip": ip} for ip in ips],
        "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
    }


async def test_one_apiserver() -> None:
    async with catalog() as cat:
        reconciler = LeaseEndpointReconciler(cat, advertised("127.0.0.1", 6443), clock=FakeClock())
        await reconciler.reconcile()
        written = await endpoints(cat)
        assert written["subsets"] == [subset(6443, "127.0.0.1")]
        assert written["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
        (slice_,) = (await slices(cat)).values()
        assert slice_["metadata"]["name"] == "kubernetes"
        assert slice_["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
        assert slice_["endpoints"] == [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]
        assert slice_["ports"] == [{"name": "https", "port": 6443, "protocol": "TCP"}]
        revision = written["metadata"]["resourceVersion"]
        await reconciler.reconcile()
        assert (await endpoints(cat))["metadata"]["resourceVersion"] == revision  # nothing changed


@pytest.mark.parametrize(
    ("addresses", "want"),
    [
        ([("127.0.0.1", 6443), ("127.0.0.2", 6443)], [subset(6443, "127.0.0.1", "127.0.0.2")]),
        ([("127.0.0.1", 6443), ("127.0.0.1", 6444)], [subset(6443, "127.0.0.1"), subset(6444, "127.0.0.1")]),
    ],
    ids=["two addresses", "one address, two ports"],
)
async def test_two_apiservers(addresses: list[tuple[str, int]], want: list[dict[str, Any]]) -> None:
    clock = FakeClock()
    async with catalog() as cat:
        first, second = (
            LeaseEndpointReconciler(cat, Address(ip, port), clock=clock) for ip, port in addresses
        )
        await first.reconcile()
        await second.reconcile()
        assert (await endpoints(cat))["subsets"] == want
        assert len(await slices(cat)) == len(want)
        await second.remove()  # a clean stop
        assert (await endpoints(cat))["subsets"] == [subset(6443, "127.0.0.1")]  # the first one's
        assert list(await slices(cat)) == ["kubernetes"]


async def test_a_crashed_apiserver_goes_when_its_lease_expires() -> None:
    clock = FakeClock()
    async with catalog() as cat:
        alive = LeaseEndpointReconciler(cat, Address("127.0.0.1", 6443), clock=clock)
        crashed = LeaseEndpointReconciler(cat, Address("127.0.0.1", 6444), clock=clock)
        await crashed.reconcile()
        await alive.reconcile()
        assert len((await endpoints(cat))["subsets"]) == 2
        await clock.step(10)
        await alive.reconcile()
        assert len((await endpoints(cat))["subsets"]) == 2  # renewed 10 s ago: TTL 15 s
        await clock.step(10)
        await alive.reconcile()
        assert (await endpoints(cat))["subsets"] == [subset(6443, "127.0.0.1")]
        leases = cat.store("coordination.k8s.io", "v1", "leases")
        assert leases is not None
        names = [
            lease["metadata"]["name"] for lease in (await leases.list("kube-system", ListOptions())).items
        ]
        assert names == ["apiserver-endpoint-127-0-0-1-6443"]


async def test_the_last_apiserver_never_erases_the_endpoints() -> None:
    async with catalog() as cat:
        only = LeaseEndpointReconciler(cat, Address("127.0.0.1", 6443), clock=FakeClock())
        await only.reconcile()
        await only.remove()
        assert (await endpoints(cat))["subsets"] == [subset(6443, "127.0.0.1")]


@pytest.mark.parametrize(("host", "ip"), [("0.0.0.0", "127.0.0.1"), ("127.0.0.5", "127.0.0.5")])
def test_advertised_address(host: str, ip: str) -> None:
    assert advertised(host, 7000) == Address(ip, 7000)

"""The EndpointSlice mirroring controller against FakeClient: the Endpoints of selector-less
Services mirrored to slices, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.endpointslicemirroring import EndpointSliceMirroringController
from controllers.endpointslicemirroring.mirror import MAX_ENDPOINTS_PER_SUBSET
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import ENDPOINTS, ENDPOINTSLICES, SERVICES
from tests.controllers.endpoints.fixtures import NS, service
from tests.controllers.lifecycle.fixtures import World

KEY = f"{NS}/dns"
DNS_PORTS = [
    {"name": "dns", "port": 5353, "protocol": "UDP"},
    {"name": "dns-tcp", "port": 5353, "protocol": "TCP"},
]


def endpoints(labels: dict[str, str] | None = None, **subset: Any) -> Object:
    body = {"addresses": [{"ip": "127.0.0.1", "nodeName": "node-1"}], "ports": DNS_PORTS, **subset}
    return {
        "metadata": {"name": "dns", "namespace": NS, "uid": "uid-ep", "labels": labels or {"k8s-app": "dns"}},
        "subsets": [body],
    }


async def mirrored(
    svc: Object | None, eps: Object | None, world: World | None = None
) -> tuple[World, list[Object]]:
    world = world or World()
    if svc is not None:
        world.seed(SERVICES, svc)
    if eps is not None:
        world.seed(ENDPOINTS, eps)
    controller = EndpointSliceMirroringController(world.fake, world.factory, clock=world.clock)
    world.refresh(ENDPOINTSLICES)
    await controller.sync(KEY)
    return world, world.fake.all(ENDPOINTSLICES)


SELECTORLESS = service("dns", selector={})


async def test_selectorless_endpoints_are_mirrored() -> None:
    _, slices = await mirrored(SELECTORLESS, endpoints(notReadyAddresses=[{"ip": "127.0.0.2"}]))
    (slice_,) = slices
    assert slice_["metadata"]["labels"] == {
        "k8s-app": "dns",
        "kubernetes.io/service-name": "dns",
        "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io",
    }
    assert slice_["metadata"]["generateName"] == "dns-"
    assert slice_["metadata"]["ownerReferences"][0]["kind"] == "Endpoints"
    assert slice_["addressType"] == "IPv4"
    assert slice_["ports"] == DNS_PORTS
    assert slice_["endpoints"] == [
        {"addresses": ["127.0.0.1"], "conditions": {"ready": True}, "nodeName": "node-1"},
        {"addresses": ["127.0.0.2"], "conditions": {"ready": False}},
    ]


async def test_a_changed_endpoints_rewrites_the_mirror_in_place() -> None:
    world, _ = await mirrored(SELECTORLESS, endpoints())
    world.fake.clear_actions()
    world.fake.seed(ENDPOINTS, endpoints(addresses=[{"ip": "127.0.0.3"}]))
    world.refresh(ENDPOINTS)
    _, (slice_,) = await mirrored(None, None, world=world)
    assert [a.verb for a in world.fake.filter_actions(resource="endpointslices")] == ["update"]
    assert slice_["endpoints"] == [{"addresses": ["127.0.0.3"], "conditions": {"ready": True}}]


@pytest.mark.parametrize(
    ("svc", "eps"),
    [
        (service("dns"), endpoints()),  # a selector: the EndpointSlice controller's business
        (SELECTORLESS, endpoints(labels={"endpointslice.kubernetes.io/skip-mirror": "true"})),
        (None, endpoints()),  # no Service
        (SELECTORLESS, None),  # no Endpoints
    ],
    ids=["selector", "skip-mirror", "no service", "no endpoints"],
)
async def test_not_mirrored_and_old_mirrors_deleted(svc: Object | None, eps: Object | None) -> None:
    world, slices = await mirrored(SELECTORLESS, endpoints())
    assert len(slices) == 1
    world.fake.clear_actions()
    if svc is None:
        await world.fake.resource(SERVICES, NS).delete("dns")
    else:
        world.fake.seed(SERVICES, svc)
    if eps is None:
        await world.fake.resource(ENDPOINTS, NS).delete("dns")
    else:
        world.fake.seed(ENDPOINTS, eps)
    world.refresh(SERVICES)
    world.refresh(ENDPOINTS)
    _, slices = await mirrored(None, None, world=world)
    assert slices == []


async def test_at_most_max_endpoints_per_subset_are_mirrored() -> None:
    addresses = [{"ip": f"127.0.{i // 250}.{i % 250 + 1}"} for i in range(MAX_ENDPOINTS_PER_SUBSET + 5)]
    _, (slice_,) = await mirrored(SELECTORLESS, endpoints(addresses=addresses))
    assert len(slice_["endpoints"]) == MAX_ENDPOINTS_PER_SUBSET


async def test_addresses_that_are_not_ips_are_skipped() -> None:
    _, (slice_,) = await mirrored(
        SELECTORLESS, endpoints(addresses=[{"ip": "not-an-ip"}, {"ip": "127.0.0.9"}])
    )
    assert [e["addresses"] for e in slice_["endpoints"]] == [["127.0.0.9"]]

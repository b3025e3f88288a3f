"""The EndpointSlice controller against FakeClient: ``sync(key)`` writes slices as upstream's
reconciler would (labels, owner, conditions, ports, at most N endpoints per slice, updates in
place, a placeholder when nothing is selected)."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.endpointslice import EndpointSliceController
from controllers.endpointslice.controller import MissingNodesError
from controllers.endpointutil.triggertime import ANNOTATION as TRIGGER
from minikube_py.api import errors
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import ENDPOINTSLICES, NODES, PODS, SERVICES
from tests.controllers.endpoints.fixtures import NS, READY_AT, node, pod, ref, service
from tests.controllers.lifecycle.fixtures import World

KEY = f"{NS}/web"
MANAGED = {
    "team": "a",
    "kubernetes.io/service-name": "web",
    "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
}


class Harness:
    def __init__(self, max_per_slice: int = 100) -> None:
        self.world = World()
        self.world.seed(NODES, node("node-1", zone="zone-a"), node("node-2"))
        self.controller = EndpointSliceController(
            self.world.fake, self.world.factory, clock=self.world.clock, max_endpoints_per_slice=max_per_slice
        )

    def seed(self, *objs: Object, rt: Any = PODS) -> None:
        self.world.seed(rt, *objs)

    async def sync(self, refresh: bool = True) -> list[Object]:
        await self.controller.sync(KEY)
        if refresh:
            self.world.refresh(ENDPOINTSLICES)
        return sorted(self.world.fake.all(ENDPOINTSLICES), key=lambda s: str(s["metadata"]["name"]))

    def writes(self) -> list[str]:
        return [a.verb for a in self.world.fake.filter_actions(resource="endpointslices")]


def endpoints_of(slices: list[Object]) -> list[tuple[str, dict[str, bool]]]:
    return sorted((e["addresses"][0], e["conditions"]) for s in slices for e in s["endpoints"])


async def test_a_slice_for_the_services_pods() -> None:
    h = Harness()
    h.seed(service(), rt=SERVICES)
    h.seed(pod("a", "127.128.1.2"), pod("b", "127.128.1.3", node="node-2", hostname="b", subdomain="web"))
    (slice_,) = await h.sync()
    meta = slice_["metadata"]
    assert meta["generateName"] == "web-" and meta["name"].startswith("web-")
    assert meta["labels"] == MANAGED
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "name": "web",
            "uid": "uid-svc-web",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert meta["annotations"][TRIGGER] == READY_AT
    assert slice_["addressType"] == "IPv4"
    assert slice_["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    ready = {"ready": True, "serving": True, "terminating": False}
    assert slice_["endpoints"] == [
        {
            "addresses": ["127.128.1.2"],
            "conditions": ready,
            "targetRef": ref("a"),
            "nodeName": "node-1",
            "zone": "zone-a",
        },
        {
            "addresses": ["127.128.1.3"],
            "conditions": ready,
            "hostname": "b",
            "targetRef": ref("b"),
            "nodeName": "node-2",
        },
    ]


CONDITIONS = [
    ("ready", {}, {"ready": True, "serving": True, "terminating": False}),
    ("not ready", {"ready": False}, {"ready": False, "serving": False, "terminating": False}),
    (
        "terminating, still ready",
        {"terminating": True},
        {"ready": False, "serving": True, "terminating": True},
    ),
    (
        "terminating, not ready",
        {"terminating": True, "ready": False},
        {"ready": False, "serving": False, "terminating": True},
    ),
]


@pytest.mark.parametrize(("pod_fields", "want"), [c[1:] for c in CONDITIONS], ids=[c[0] for c in CONDITIONS])
async def test_conditions(pod_fields: dict[str, Any], want: dict[str, bool]) -> None:
    h = Harness()
    h.seed(service(), rt=SERVICES)
    h.seed(pod("a", "127.128.1.2", **pod_fields))
    assert endpoints_of(await h.sync()) == [("127.128.1.2", want)]


async def test_publish_not_ready_addresses_makes_every_endpoint_ready() -> None:
    h = Harness()
    h.seed(service(publishNotReadyAddresses=True), rt=SERVICES)
    h.seed(pod("a", "127.128.1.2", ready=False, terminating=True))
    assert endpoints_of(await h.sync()) == [
        ("127.128.1.2", {"ready": True, "serving": False, "terminating": True})
    ]


async def test_pods_with_different_named_ports_get_different_slices() -> None:
    h = Harness()
    h.seed(service(ports=[{"name": "http", "port": 80, "targetPort": "web", "protocol": "TCP"}]), rt=SERVICES)
    h.seed(
        pod("a", "127.128.1.2", ports=[{"name": "web", "containerPort": 8080}]),
        pod("b", "127.128.1.3", ports=[{"name": "web", "containerPort": 9090}]),
        pod("c", "127.128.1.4", ports=[]),  # declares no such port: in a slice without ports
    )
    slices = await h.sync()
    by_ports = {
        str([p["port"] for p in s["ports"]]): [e["addresses"][0] for e in s["endpoints"]] for s in slices
    }
    assert by_ports == {"[8080]": ["127.128.1.2"], "[9090]": ["127.128.1.3"], "[]": ["127.128.1.4"]}


async def test_at_most_max_endpoints_per_slice_and_updates_fill_in_place() -> None:
    h = Harness(max_per_slice=3)
    h.seed(service(), rt=SERVICES)
    h.seed(*(pod(f"p{i}", f"127.128.1.{i + 2}") for i in range(7)))
    slices = await h.sync()
    assert sorted(len(s["endpoints"]) for s in slices) == [1, 3, 3]
    h.world.fake.clear_actions()
    await h.world.fake.resource(PODS, NS).delete("p0")
    h.world.refresh(PODS)
    h.seed(pod("p9", "127.128.1.20"))
    slices = await h.sync()
    assert h.writes() == ["update"]  # p9 takes p0's place in the same slice
    assert sorted(len(s["endpoints"]) for s in slices) == [1, 3, 3]


async def test_an_emptied_slice_is_deleted_and_an_unchanged_one_left_alone() -> None:
    h = Harness(max_per_slice=2)
    h.seed(service(), rt=SERVICES)
    h.seed(*(pod(f"p{i}", f"127.128.1.{i + 2}") for i in range(4)))
    await h.sync()
    h.world.fake.clear_actions()
    for name in ("p2", "p3"):
        await h.world.fake.resource(PODS, NS).delete(name)
    h.world.refresh(PODS)
    h.world.fake.clear_actions()
    slices = await h.sync()
    assert h.writes() == ["delete"]
    assert endpoints_of(slices) == [
        (ip, {"ready": True, "serving": True, "terminating": False}) for ip in ("127.128.1.2", "127.128.1.3")
    ]


async def test_a_service_selecting_nothing_gets_one_placeholder_slice() -> None:
    h = Harness()
    h.seed(service(), rt=SERVICES)
    (slice_,) = await h.sync()
    assert slice_["endpoints"] == [] and slice_["ports"] == []
    h.world.fake.clear_actions()
    await h.sync()
    assert h.writes() == []  # the placeholder is kept, not recreated
    h.seed(pod("a", "127.128.1.2"))
    (slice_,) = await h.sync()
    assert h.writes() == ["update"]  # the placeholder is reused for the first endpoints
    assert [e["addresses"] for e in slice_["endpoints"]] == [["127.128.1.2"]]


async def test_back_to_back_syncs_do_not_create_twice() -> None:
    h = Harness()
    h.seed(service(), rt=SERVICES)
    h.seed(pod("a", "127.128.1.2"))
    await h.sync(refresh=False)
    h.seed(pod("b", "127.128.1.3"))
    slices = await h.sync(refresh=False)
    assert h.writes() == ["create", "update"]
    assert len(slices) == 1 and len(slices[0]["endpoints"]) == 2


async def test_a_pod_on_an_unknown_node_is_left_out_and_retried() -> None:
    h = Harness()
    h.seed(service(), rt=SERVICES)
    h.seed(pod("a", "127.128.1.2"), pod("b", "127.128.1.3", node="node-9"))
    with pytest.raises(MissingNodesError, match="not known yet: b"):
        await h.controller.sync(KEY)
    (slice_,) = h.world.fake.all(ENDPOINTSLICES)
    assert [e["addresses"] for e in slice_["endpoints"]] == [["127.128.1.2"]]


@pytest.mark.parametrize(
    "svc",
    [service(selector={}), {**service(), "spec": {"type": "ExternalName", "externalName": "example.com"}}],
    ids=["selector-less", "ExternalName"],
)
async def test_services_without_selector_get_no_slices(svc: Object) -> None:
    h = Harness()
    h.seed(svc, rt=SERVICES)
    h.seed(pod("a", "127.128.1.2"))
    assert await h.sync() == []


async def test_slices_of_another_service_with_the_same_name_are_replaced() -> None:
    h = Harness()
    h.seed(service(), rt=SERVICES)
    h.seed(pod("a", "127.128.1.2"))
    await h.sync()
    recreated = service()
    recreated["metadata"]["uid"] = "uid-svc-web-2"
    h.world.fake.seed(SERVICES, recreated)
    h.world.refresh(SERVICES)
    (slice_,) = await h.sync()
    assert slice_["metadata"]["ownerReferences"][0]["uid"] == "uid-svc-web-2"


async def test_a_slice_deleted_behind_the_informers_back_is_recreated_after_one_retry() -> None:
    """Written remembers the first write; the slice then vanishes without the informer ever
    seeing it (created and deleted between two lists): the update is a 404, the pending write
    is forgotten, and the retry creates a new slice instead of failing forever."""
    h = Harness()
    h.seed(service(), rt=SERVICES)
    h.seed(pod("a", "127.128.1.2"))
    (first,) = await h.sync(refresh=False)
    await h.world.fake.resource(ENDPOINTSLICES, NS).delete(first["metadata"]["name"])
    h.seed(pod("b", "127.128.1.3"))
    with pytest.raises(errors.ApiError) as raised:
        await h.controller.sync(KEY)
    assert raised.value.code == 404
    (again,) = await h.sync(refresh=False)
    assert again["metadata"]["name"] != first["metadata"]["name"]
    assert len(again["endpoints"]) == 2

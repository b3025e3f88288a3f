"""The Endpoints controller against FakeClient: ``sync(key)`` writes the subsets upstream's
``syncService`` would, table-driven over pod readiness, ports and Service shapes."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.endpoint import EndpointsController
from controllers.endpoint.subsets import MAX_CAPACITY, OVER_CAPACITY_ANNOTATION, repack
from controllers.endpointutil.triggertime import ANNOTATION as TRIGGER
from minikube_py.api import errors
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import ENDPOINTS, PODS, SERVICES
from tests.controllers.endpoints.fixtures import NS, READY_AT, pod, ref, service
from tests.controllers.lifecycle.fixtures import World

KEY = f"{NS}/web"
HTTP = [{"name": "http", "port": 8080, "protocol": "TCP"}]


def address(name: str, ip: str, node: str = "node-1", **extra: Any) -> dict[str, Any]:
    return {"ip": ip, **extra, "nodeName": node, "targetRef": ref(name)}


async def synced(
    svc: Object | None, *pods: Object, world: World | None = None
) -> tuple[World, Object | None]:
    world = world or World()
    if svc is not None:
        world.seed(SERVICES, svc)
    world.seed(PODS, *pods)
    controller = EndpointsController(world.fake, world.factory, clock=world.clock)
    world.refresh(ENDPOINTS)
    await controller.sync(KEY)
    return world, world.fake.stored(ENDPOINTS, NS, "web")


CASES: list[tuple[str, Object, list[Object], list[dict[str, Any]]]] = [
    (
        "ready and not-ready pods",
        service(),
        [pod("a", "127.128.1.2"), pod("b", "127.128.1.3", ready=False)],
        [
            {
                "addresses": [address("a", "127.128.1.2")],
                "notReadyAddresses": [address("b", "127.128.1.3")],
                "ports": HTTP,
            }
        ],
    ),
    (
        "publishNotReadyAddresses makes every pod ready, terminating ones too",
        service(publishNotReadyAddresses=True),
        [pod("a", "127.128.1.2", ready=False), pod("b", "127.128.1.3", terminating=True)],
        [{"addresses": [address("a", "127.128.1.2"), address("b", "127.128.1.3")], "ports": HTTP}],
    ),
    (
        "terminating pods, pods without an IP, other apps and finished pods are left out",
        service(),
        [
            pod("a", "127.128.1.2", terminating=True),
            pod("b", ""),
            pod("c", "127.128.1.4", app="other"),
            {
                **pod("d", "127.128.1.5", restartPolicy="Never"),
                "status": {"phase": "Succeeded", "podIP": "127.128.1.5"},
            },
        ],
        [],
    ),
    (
        "a named target port resolves per pod; a pod that does not declare it gets no address",
        service(ports=[{"name": "http", "port": 80, "targetPort": "web", "protocol": "TCP"}]),
        [
            pod("a", "127.128.1.2", ports=[{"name": "web", "containerPort": 8080}]),
            pod("b", "127.128.1.3", ports=[{"name": "web", "containerPort": 9090}]),
            pod("c", "127.128.1.4", ports=[{"name": "other", "containerPort": 7070}]),
        ],
        [
            {"addresses": [address("a", "127.128.1.2")], "ports": HTTP},
            {
                "addresses": [address("b", "127.128.1.3")],
                "ports": [{"name": "http", "port": 9090, "protocol": "TCP"}],
            },
        ],
    ),
    (
        "hostname is published when the subdomain is the Service's name",
        service(clusterIP="None"),
        [
            pod("a", "127.128.1.2", hostname="a0", subdomain="web"),
            pod("b", "127.128.1.3", hostname="b0", subdomain="x"),
        ],
        [
            {
                "addresses": [address("a", "127.128.1.2", hostname="a0"), address("b", "127.128.1.3")],
                "ports": HTTP,
            }
        ],
    ),
    (
        "a headless Service without ports lists addresses without ports",
        service(clusterIP="None", ports=[]),
        [pod("a", "127.128.1.2")],
        [{"addresses": [address("a", "127.128.1.2")]}],
    ),
    (
        "a non-headless Service without ports lists nothing",
        service(ports=[]),
        [pod("a", "127.128.1.2")],
        [],
    ),
]


@pytest.mark.parametrize(("svc", "pods", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_subsets(svc: Object, pods: list[Object], want: list[dict[str, Any]]) -> None:
    _, endpoints = await synced(svc, *pods)
    assert endpoints is not None
    assert endpoints.get("subsets") == want


async def test_labels_are_the_services_plus_headless() -> None:
    _, endpoints = await synced(service(clusterIP="None"), pod("a", "127.128.1.2"))
    assert endpoints is not None
    assert endpoints["metadata"]["labels"] == {"team": "a", "service.kubernetes.io/headless": ""}


async def test_the_trigger_time_is_the_earliest_change_since_the_last_sync() -> None:
    world = World()
    world.seed(SERVICES, service())
    world.seed(PODS, pod("a", "127.128.1.2"))
    controller = EndpointsController(world.fake, world.factory, clock=world.clock)

    async def trigger() -> str | None:
        await controller.sync(KEY)
        endpoints = world.fake.stored(ENDPOINTS, NS, "web")
        assert endpoints is not None
        return (endpoints["metadata"].get("annotations") or {}).get(TRIGGER)

    assert await trigger() == READY_AT  # the pod's Ready time is before the Service's creation
    world.seed(PODS, pod("b", "127.128.1.3", ready_at="2026-01-01T00:00:30Z"))
    assert await trigger() == "2026-01-01T00:00:30Z"  # only b changed
    await world.fake.resource(PODS, NS).delete("b")
    world.refresh(PODS)
    assert await trigger() is None  # a pod went away: no trigger time, as upstream


async def test_an_unchanged_endpoints_is_not_written_again() -> None:
    world, _ = await synced(service(), pod("a", "127.128.1.2"))
    controller = EndpointsController(world.fake, world.factory, clock=world.clock)
    world.refresh(ENDPOINTS)
    world.fake.clear_actions()
    await controller.sync(KEY)
    assert not world.fake.filter_actions("update") and not world.fake.filter_actions("create")


async def test_back_to_back_syncs_build_on_their_own_write() -> None:
    """The informer has not seen the first write yet: the second sync updates it (no conflict,
    no second create)."""
    world = World()
    world.seed(SERVICES, service())
    world.seed(PODS, pod("a", "127.128.1.2"))
    controller = EndpointsController(world.fake, world.factory, clock=world.clock)
    await controller.sync(KEY)
    world.seed(PODS, pod("b", "127.128.1.3"))
    await controller.sync(KEY)
    assert [a.verb for a in world.fake.filter_actions(resource="endpoints")] == ["create", "update"]
    endpoints = world.fake.stored(ENDPOINTS, NS, "web")
    assert endpoints is not None
    assert [a["ip"] for a in endpoints["subsets"][0]["addresses"]] == ["127.128.1.2", "127.128.1.3"]


@pytest.mark.parametrize(
    "svc",
    [service(selector={}), {**service(), "spec": {"type": "ExternalName", "externalName": "example.com"}}],
    ids=["selector-less", "ExternalName"],
)
async def test_services_without_selector_are_left_alone(svc: Object) -> None:
    world = World()
    world.seed(
        ENDPOINTS,
        {"metadata": {"name": "web", "namespace": NS}, "subsets": [{"addresses": [{"ip": "127.0.0.1"}]}]},
    )
    _, endpoints = await synced(svc, pod("a", "127.128.1.2"), world=world)
    assert endpoints is not None and endpoints["subsets"] == [{"addresses": [{"ip": "127.0.0.1"}]}]
    assert not world.fake.filter_actions("update")


async def test_the_endpoints_go_with_their_service() -> None:
    world = World()
    world.seed(ENDPOINTS, {"metadata": {"name": "web", "namespace": NS}})
    _, endpoints = await synced(None, world=world)
    assert endpoints is None
    world.fake.clear_actions()
    controller = EndpointsController(world.fake, world.factory, clock=world.clock)
    await controller.sync(KEY)  # already gone: a 404 is not an error
    (delete,) = world.fake.filter_actions("delete")
    assert delete.name == "web"


async def test_over_capacity_is_truncated_and_annotated() -> None:
    pods = [
        pod(f"p{i}", f"127.128.{i // 250}.{i % 250 + 2}", ready=i % 2 == 0) for i in range(MAX_CAPACITY + 10)
    ]
    _, endpoints = await synced(service(), *pods)
    assert endpoints is not None
    (subset,) = endpoints["subsets"]
    assert len(subset["addresses"]) + len(subset.get("notReadyAddresses", [])) == MAX_CAPACITY
    assert len(subset["addresses"]) == (MAX_CAPACITY + 10) // 2  # ready ones are kept first
    assert endpoints["metadata"]["annotations"][OVER_CAPACITY_ANNOTATION] == "truncated"


async def test_a_failed_write_fails_the_sync() -> None:
    world = World()
    world.fake.fail("create", "endpoints", errors.ApiError(500, "InternalError", "boom"))
    with pytest.raises(errors.ApiError):
        await synced(service(), pod("a", "127.128.1.2"), world=world)


A = {"ip": "127.128.1.2"}
B = {"ip": "127.128.1.3"}
P80 = {"name": "a", "port": 80, "protocol": "TCP"}
P81 = {"name": "b", "port": 81, "protocol": "TCP"}


@pytest.mark.parametrize(
    ("subsets", "want"),
    [
        (  # addresses serving the same ports share one subset, ports sorted by name
            [
                {"addresses": [B], "ports": [P81]},
                {"addresses": [A], "ports": [P80]},
                {"addresses": [A, B], "ports": [P81]},
            ],
            [{"addresses": [A], "ports": [P80]}, {"addresses": [A, B], "ports": [P81]}],
        ),
        (  # ready for one port, not for the other: readiness is kept per port
            [{"addresses": [A], "ports": [P80]}, {"notReadyAddresses": [A], "ports": [P81]}],
            [{"addresses": [A], "ports": [P80]}, {"notReadyAddresses": [A], "ports": [P81]}],
        ),
        (  # ready and not ready for the same port: ready wins
            [{"addresses": [A], "ports": [P80]}, {"notReadyAddresses": [A], "ports": [P80]}],
            [{"addresses": [A], "ports": [P80]}],
        ),
    ],
    ids=["grouped by ports", "readiness per port", "ready wins"],
)
def test_repack(subsets: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert repack(subsets) == want

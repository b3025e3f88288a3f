from __future__ import annotations

import asyncio

from controllers.namespace import NamespaceController
from controllers.namespace.deletion import deletable_namespaced_resources
from controllers.nodelifecycle.taints import format_time
from minikube_py.client.resourcetypes import CONFIGMAPS, NAMESPACES, PODS, SECRETS
from tests.controllers.lifecycle.fixtures import World, meta

DELETED_AT = "2027-01-15T08:00:00Z"


# FakeClient removes a marked object whose metadata.finalizers are empty on any update, even a
# namespace that spec.finalizers still holds; a metadata finalizer keeps it observable.
HOLD = "example.com/observe"


def terminating(name: str) -> dict[str, object]:
    return {
        "metadata": meta(name, deletionTimestamp=DELETED_AT, finalizers=[HOLD]),
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Terminating"},
    }


def conditions(world: World, name: str) -> dict[str, tuple[str, str, str]]:
    ns = world.fake.stored(NAMESPACES, "", name)
    assert ns is not None
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in ns["status"]["conditions"]}


async def ready_after(controller: NamespaceController, world: World, seconds: float) -> None:
    """The queued key becomes ready exactly ``seconds`` later on the fake clock."""
    runner = asyncio.create_task(controller.queue.run())
    try:
        await world.clock.step(seconds - 0.5)
        assert len(controller.queue) == 0
        await world.clock.step(0.5)
        assert len(controller.queue) == 1
    finally:
        runner.cancel()


def make(world: World) -> NamespaceController:
    return NamespaceController(world.fake, world.factory, world.recorder, clock=world.clock)


async def test_content_types_are_namespaced_and_deletable() -> None:
    names = {rt.resource for rt in deletable_namespaced_resources()}
    assert {"pods", "configmaps", "secrets", "replicasets", "leases"} <= names
    assert not names & {"namespaces", "nodes", "localsubjectaccessreviews"}


async def test_empty_namespace_is_finalized() -> None:
    world = World()
    world.seed(NAMESPACES, terminating("team"))
    world.seed(CONFIGMAPS, {"metadata": meta("cm", "team")}, {"metadata": meta("keep", "other")})
    controller = make(world)

    await controller.sync("team")

    assert world.fake.stored(CONFIGMAPS, "team", "cm") is None
    assert world.fake.stored(CONFIGMAPS, "other", "keep") is not None
    (delete,) = world.fake.filter_actions("delete", "configmaps")
    assert delete.body["propagationPolicy"] == "Background"
    (finalize,) = [
        a for a in world.fake.filter_actions("update", "namespaces") if a.subresource == "finalize"
    ]
    assert finalize.body["spec"]["finalizers"] == []
    ns = world.fake.stored(NAMESPACES, "", "team")
    assert ns is not None and ns["spec"]["finalizers"] == []
    assert conditions(world, "team")["NamespaceContentRemaining"][:2] == ("False", "ContentRemoved")


async def test_remaining_content_sets_conditions_and_requeues() -> None:
    world = World()
    world.seed(NAMESPACES, terminating("team"))
    held = {"metadata": meta("held", "team", finalizers=["example.com/hold"]), "spec": {}}
    world.seed(PODS, held, {"metadata": meta("p2", "team"), "spec": {}})
    world.seed(SECRETS, {"metadata": meta("s", "team")})
    controller = make(world)

    await controller.sync("team")

    assert world.fake.stored(SECRETS, "team", "s") is None
    assert world.fake.stored(PODS, "team", "p2") is None
    assert world.fake.stored(PODS, "team", "held") is not None
    found = conditions(world, "team")
    assert found["NamespaceContentRemaining"] == (
        "True",
        "SomeResourcesRemain",
        "Some resources are remaining: pods. has 1 resource instances",
    )
    assert found["NamespaceFinalizersRemaining"] == (
        "True",
        "SomeFinalizersRemain",
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    )
    assert found["NamespaceDeletionContentFailure"][:2] == ("False", "ContentDeleted")
    assert found["NamespaceDeletionDiscoveryFailure"][:2] == ("False", "ResourcesDiscovered")
    assert not [a for a in world.fake.actions if a.subresource == "finalize"]
    # requeued after half the 15 s finalizer estimate plus one second
    assert controller.queue.waiting() == 1
    await ready_after(controller, world, 8.0)

    # the finalizer goes; the next pass finalizes and flips the conditions to their ok form
    stored = world.fake.stored(PODS, "team", "held")
    assert stored is not None
    stored["metadata"]["finalizers"] = []
    await world.fake.resource(PODS, "team").update(stored)
    world.fake.clear_actions()
    await controller.sync("team")
    assert len([a for a in world.fake.actions if a.subresource == "finalize"]) == 1
    assert conditions(world, "team")["NamespaceContentRemaining"] == (
        "False",
        "ContentRemoved",
        "All content successfully removed",
    )
    ns = world.fake.stored(NAMESPACES, "", "team")
    assert ns is not None and ns["spec"]["finalizers"] == []


async def test_graceful_pods_estimate_the_requeue() -> None:
    world = World()
    ns = terminating("team")
    ns["metadata"]["deletionTimestamp"] = format_time(world.clock.now())  # deleted just now
    world.seed(NAMESPACES, ns)
    graceful = {
        "metadata": meta("web", "team", finalizers=["example.com/hold"]),
        "spec": {"terminationGracePeriodSeconds": 60},
        "status": {"phase": "Running"},
    }
    world.seed(PODS, graceful)
    controller = make(world)

    await controller.sync("team")

    assert controller.queue.waiting() == 1  # 60 // 2 + 1 = 31 s
    await ready_after(controller, world, 31.0)


async def test_active_or_missing_namespace_is_left_alone() -> None:
    world = World()
    world.seed(NAMESPACES, {"metadata": meta("live"), "spec": {"finalizers": ["kubernetes"]}})
    controller = make(world)
    await controller.sync("live")
    await controller.sync("missing")
    assert not world.fake.filter_actions("delete")
    assert not world.fake.filter_actions("update")

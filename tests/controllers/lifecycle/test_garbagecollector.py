from __future__ import annotations

from typing import Any

from controllers.garbagecollector import GarbageCollector
from controllers.garbagecollector.graph_builder import ADD, DELETE, GraphEvent, identity_of
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import PODS, REPLICASETS
from minikube_py.workqueue import RateLimitingQueue
from tests.controllers.lifecycle.fixtures import World, meta


def make_gc(world: World) -> GarbageCollector:
    return GarbageCollector(world.fake, world.factory, world.recorder, clock=world.clock)


def observe(gc: GarbageCollector, rt: ResourceType, obj: Object, event: str = ADD) -> None:
    gc.graph.enqueue(GraphEvent(event, identity_of(rt, obj), obj))
    gc.graph.process_pending()


def observe_all(gc: GarbageCollector) -> None:
    for rt, informer in gc.graph.monitors.items():
        for obj in informer.indexer.list():
            gc.graph.enqueue(GraphEvent(ADD, identity_of(rt, obj), obj))
    gc.graph.process_pending()


async def drain(queue: RateLimitingQueue[str]) -> list[str]:
    keys = []
    while len(queue):
        key = await queue.get()
        assert key is not None
        queue.done(key)
        keys.append(key)
    return keys


def owner_ref(owner: Object, *, block: bool = False) -> Object:
    ref = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
    }
    if block:
        ref["blockOwnerDeletion"] = True
    return ref


def pod(name: str, *refs: Object) -> Object:
    return {"metadata": meta(name, "default", ownerReferences=list(refs)), "spec": {}}


def replicaset(name: str, **extra: Any) -> Object:
    return {"metadata": meta(name, "default", uid=f"uid-{name}", **extra), "spec": {}}


async def test_monitors_cover_deletable_types_only() -> None:
    gc = make_gc(World())
    resources = {rt.resource for rt in gc.graph.monitors}
    assert {"pods", "replicasets", "deployments", "leases", "nodes", "namespaces"} <= resources
    assert not resources & {"tokenreviews", "subjectaccessreviews", "selfsubjectreviews", "events"}


async def test_background_deletes_dependents_of_a_missing_owner() -> None:
    world = World()
    gone = replicaset("gone")  # never stored: the owner does not exist
    (p,) = world.seed(PODS, pod("p1", owner_ref(gone)))
    gc = make_gc(world)
    observe_all(gc)

    # the unknown owner became a virtual node, queued for verification
    assert await drain(gc.attempt_to_delete) == ["uid-gone"]
    await gc.sync("uid-gone")
    assert world.fake.filter_actions("get", "replicasets")
    gc.graph.process_pending()  # the virtual delete removes it and queues its dependents
    assert "uid-gone" not in gc.graph.uid_to_node
    assert await drain(gc.attempt_to_delete) == [p["metadata"]["uid"]]

    await gc.sync(p["metadata"]["uid"])
    (delete,) = world.fake.filter_actions("delete", "pods")
    assert delete.name == "p1"
    assert delete.body["propagationPolicy"] == "Background"
    assert delete.body["preconditions"] == {"uid": p["metadata"]["uid"]}
    assert world.fake.stored(PODS, "default", "p1") is None


async def test_dangling_reference_is_patched_away_when_a_valid_owner_remains() -> None:
    world = World()
    (rs,) = world.seed(REPLICASETS, replicaset("alive"))
    gone = replicaset("gone")
    (p,) = world.seed(PODS, pod("p1", owner_ref(rs), owner_ref(gone)))
    gc = make_gc(world)
    observe_all(gc)

    await gc.sync(p["metadata"]["uid"])

    assert not world.fake.filter_actions("delete", "pods")
    (patch,) = world.fake.filter_actions("patch", "pods")
    assert patch.body["metadata"]["resourceVersion"] == p["metadata"]["resourceVersion"]
    stored = world.fake.stored(PODS, "default", "p1")
    assert stored is not None
    assert [r["uid"] for r in stored["metadata"]["ownerReferences"]] == ["uid-alive"]


async def test_owner_in_another_namespace_is_dangling() -> None:
    world = World()
    other = {"metadata": meta("rs", "other", uid="uid-rs"), "spec": {}}
    world.seed(REPLICASETS, other)
    (p,) = world.seed(PODS, pod("p1", owner_ref(other)))
    gc = make_gc(world)
    observe_all(gc)
    assert any("OwnerRefInvalidNamespace" in e for e in world.recorder.events)

    await gc.sync(p["metadata"]["uid"])

    assert world.fake.stored(PODS, "default", "p1") is None  # looked up in "default": absent


async def test_foreground_removes_owner_finalizer_only_after_blocking_dependents_are_gone() -> None:
    world = World()
    (rs,) = world.seed(
        REPLICASETS,
        replicaset("web", deletionTimestamp="2027-01-01T00:00:00Z", finalizers=["foregroundDeletion"]),
    )
    (p,) = world.seed(PODS, pod("p1", owner_ref(rs, block=True)))
    gc = make_gc(world)
    observe_all(gc)
    assert gc.graph.uid_to_node["uid-web"].deleting_dependents

    await gc.sync("uid-web")  # a blocking dependent remains: the owner waits
    assert not world.fake.filter_actions("patch", "replicasets")
    stored_rs = world.fake.stored(REPLICASETS, "default", "web")
    assert stored_rs is not None
    assert stored_rs["metadata"]["finalizers"] == ["foregroundDeletion"]

    await gc.sync(p["metadata"]["uid"])  # the dependent of a waiting owner is deleted
    assert world.fake.stored(PODS, "default", "p1") is None

    observe(gc, PODS, p, DELETE)  # the informer reports the pod gone: the owner is requeued
    assert "uid-web" in await drain(gc.attempt_to_delete)
    await gc.sync("uid-web")
    (patch,) = world.fake.filter_actions("patch", "replicasets")
    assert patch.body["metadata"]["finalizers"] is None
    assert patch.body["metadata"]["resourceVersion"] == rs["metadata"]["resourceVersion"]
    assert world.fake.stored(REPLICASETS, "default", "web") is None


async def test_orphan_removes_owner_references_then_the_finalizer() -> None:
    world = World()
    (rs,) = world.seed(
        REPLICASETS,
        replicaset("web", deletionTimestamp="2027-01-01T00:00:00Z", finalizers=["orphan"]),
    )
    other = {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "uid-cm"}
    world.seed(PODS, pod("p1", owner_ref(rs)), pod("p2", owner_ref(rs), other))
    gc = make_gc(world)
    observe_all(gc)
    assert await drain(gc.attempt_to_orphan) == ["uid-web"]

    await gc.orphan("uid-web")

    p1 = world.fake.stored(PODS, "default", "p1")
    p2 = world.fake.stored(PODS, "default", "p2")
    assert p1 is not None and "ownerReferences" not in p1["metadata"]
    assert p2 is not None and p2["metadata"]["ownerReferences"] == [other]
    patches = [(a.resource, a.name) for a in world.fake.filter_actions("patch")]
    assert patches[-1] == ("replicasets", "web")
    assert sorted(patches[:-1]) == [("pods", "p1"), ("pods", "p2")]
    assert world.fake.stored(REPLICASETS, "default", "web") is None
    assert not world.fake.filter_actions("delete")


async def test_owner_being_deleted_in_background_is_left_alone() -> None:
    world = World()
    (rs,) = world.seed(
        REPLICASETS, replicaset("web", deletionTimestamp="2027-01-01T00:00:00Z", finalizers=["x/y"])
    )
    gc = make_gc(world)
    observe_all(gc)
    world.fake.clear_actions()
    await gc.sync(rs["metadata"]["uid"])
    assert world.fake.actions == []

"""The ReplicationController controller (upstream's pkg/controller/replication): the one
replica-keeping implementation given ``REPLICATION_CONTROLLER``, driven by ``sync(key)``
against a FakeClient, hand-seeded caches and a FakeClock, table-driven."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from controllers.replicaset import ReplicaSetController
from controllers.replication import REPLICATION_CONTROLLER, new_replication_manager
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import PODS, REPLICATIONCONTROLLERS
from tests.controllers.apps.harness import NS, PAST, Harness, pod, time_at

KEY = f"{NS}/web"


def rc(replicas: int, selector: dict[str, str] | None = None, **spec: Any) -> Object:
    labels = {"app": "web", "tier": "fe"}
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {
            "name": "web",
            "namespace": NS,
            "uid": "uid-web",
            "creationTimestamp": PAST,
            "generation": 2,
        },
        "spec": {
            "replicas": replicas,
            "selector": dict(selector if selector is not None else {"app": "web"}),
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
            **spec,
        },
    }


@dataclass
class Case:
    name: str
    controller: Object
    pods: list[tuple[str, bool, dict[str, str]]] = field(default_factory=list)  # name, owned, labels
    ready: tuple[str, ...] = ()
    creates: int = 0
    deletes: int = 0
    adopted: tuple[str, ...] = ()
    released: tuple[str, ...] = ()
    status: dict[str, int] = field(default_factory=dict)


WEB = {"app": "web", "tier": "fe"}
CASES = [
    Case("creates the missing replicas", rc(3), creates=3, status={"replicas": 0}),
    Case(
        "deletes the surplus, unready first",
        rc(1),
        pods=[("a", True, WEB), ("b", True, WEB)],
        ready=("a",),
        deletes=1,
        status={"replicas": 2, "fullyLabeledReplicas": 2, "readyReplicas": 1, "availableReplicas": 1},
    ),
    Case(
        "adopts an orphan matching the map selector",
        rc(1),
        pods=[("orphan", False, {"app": "web"})],
        adopted=("orphan",),
        status={"replicas": 1},  # selected, without the template's tier: not fully labelled
    ),
    Case(
        "releases an owned pod the selector no longer matches",
        rc(1, selector={"app": "web", "tier": "fe"}),
        pods=[("relabelled", True, {"app": "web"})],
        released=("relabelled",),
        creates=1,
        status={"replicas": 0},
    ),
    Case(
        "every selector label must match",
        rc(1, selector={"app": "web", "tier": "fe"}),
        pods=[("stranger", False, {"app": "web", "tier": "be"})],
        creates=1,
        status={"replicas": 0},
    ),
    Case(
        "scaled to zero deletes every pod",
        rc(0),
        pods=[("a", True, WEB), ("b", True, WEB)],
        deletes=2,
        status={"replicas": 2, "fullyLabeledReplicas": 2},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_sync_keeps_the_replicas_of_a_replication_controller(case: Case) -> None:
    h = Harness()
    manager = new_replication_manager(h.fake, h.factory, h.recorder, clock=h.clock)
    owner = h.seed(REPLICATIONCONTROLLERS, case.controller)
    for name, owned, labels in case.pods:
        ready = time_at(h.clock, -60) if name in case.ready else None
        h.seed(PODS, pod(name, owner if owned else None, labels=labels, ready_since=ready))
    await manager.sync(KEY)
    creates = h.bodies("create", "pods")
    assert len(creates) == case.creates
    for body in creates:
        [ref] = body["metadata"]["ownerReferences"]
        assert (ref["apiVersion"], ref["kind"], ref["name"], ref["uid"]) == (
            "v1",
            "ReplicationController",
            "web",
            "uid-web",
        )
        assert body["metadata"]["labels"] == WEB and body["metadata"]["generateName"] == "web-"
    assert len(h.fake.filter_actions("delete", "pods")) == case.deletes
    patches = {a.name: a.body["metadata"]["ownerReferences"] for a in h.fake.filter_actions("patch", "pods")}
    assert {n for n, refs in patches.items() if refs} == set(case.adopted)
    assert {n for n, refs in patches.items() if not refs} == set(case.released)
    status = h.stored(REPLICATIONCONTROLLERS, "web")["status"]
    assert status == {**case.status, "observedGeneration": 2}
    [status_write] = [
        a for a in h.fake.filter_actions("update", "replicationcontrollers") if a.subresource == "status"
    ]
    assert status_write.namespace == NS


async def test_events_come_from_the_same_implementation_as_the_replica_sets() -> None:
    h = Harness()
    manager = new_replication_manager(h.fake, h.factory, h.recorder, clock=h.clock)
    assert type(manager) is ReplicaSetController and manager.kind is REPLICATION_CONTROLLER
    assert manager.name == "replicationcontroller"
    h.seed(REPLICATIONCONTROLLERS, rc(2))
    await manager.sync(KEY)
    assert sum(e.startswith("Normal SuccessfulCreate Created pod: web-") for e in h.recorder.events) == 2


async def test_a_failed_create_sets_replica_failure_on_the_controller() -> None:
    h = Harness()
    manager = new_replication_manager(h.fake, h.factory, h.recorder, clock=h.clock)
    h.seed(REPLICATIONCONTROLLERS, rc(2))
    h.fake.fail("create", "pods", ApiError(403, "Forbidden", "exceeded quota"))
    with pytest.raises(ApiError):
        await manager.sync(KEY)
    [condition] = h.stored(REPLICATIONCONTROLLERS, "web")["status"]["conditions"]
    assert (condition["type"], condition["reason"], condition["message"]) == (
        "ReplicaFailure",
        "FailedCreate",
        "exceeded quota",
    )


async def test_a_pod_event_wakes_its_controller_and_only_it() -> None:
    h = Harness()
    manager = new_replication_manager(h.fake, h.factory, h.recorder, clock=h.clock)
    owner = h.seed(REPLICATIONCONTROLLERS, rc(1))
    other = {
        **rc(1, selector={"app": "db"}),
        "metadata": {**rc(1)["metadata"], "name": "db", "uid": "uid-db"},
    }
    h.seed(REPLICATIONCONTROLLERS, other)
    manager._add_pod(pod("orphan", None, labels={"app": "web"}))
    manager._add_pod(pod("owned", owner, labels=WEB))
    assert len(manager.queue) == 1 and await manager.queue.get() == KEY


async def test_a_deleted_controller_drops_its_expectations() -> None:
    h = Harness()
    manager = new_replication_manager(h.fake, h.factory, h.recorder, clock=h.clock)
    h.seed(REPLICATIONCONTROLLERS, rc(2))
    await manager.sync(KEY)
    assert manager.expectations.get_expectations(KEY) == (2, 0)
    h.factory.informer(REPLICATIONCONTROLLERS).indexer.delete(rc(2))
    await manager.sync(KEY)
    assert manager.expectations.get_expectations(KEY) is None

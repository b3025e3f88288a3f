"""ReplicaSetController.sync against a FakeClient, hand-seeded caches and a FakeClock."""

from __future__ import annotations

import asyncio

import pytest

from controllers.podcontrol.control import slow_start_batch
from controllers.podcontrol.ranking import rank_pods_by_related_on_same_node, sort_pods_for_deletion
from controllers.replicaset import ReplicaSetController
from minikube_py.api.errors import ApiError, Cause
from minikube_py.client.resourcetypes import PODS, REPLICASETS
from tests.controllers.apps.harness import NS, Harness, pod, replica_set, time_at

KEY = f"{NS}/rs"


def make(h: Harness, burst: int = 500) -> ReplicaSetController:
    return ReplicaSetController(h.fake, h.factory, h.recorder, clock=h.clock, burst_replicas=burst)


async def test_slow_start_batches_are_1_2_4_then_the_rest() -> None:
    batches: list[int] = []
    started: list[int] = []

    async def call() -> None:
        started.append(1)
        await asyncio.sleep(0)  # every call of a batch starts before any of them ends
        if started:
            batches.append(len(started))
            started.clear()

    successes, error = await slow_start_batch(10, 1, call)
    assert (successes, error) == (10, None)
    assert batches == [1, 2, 4, 3]


async def test_creates_missing_pods_from_template_with_owner_and_events() -> None:
    h = Harness()
    rsc = make(h)
    rs = h.seed(REPLICASETS, replica_set("rs", 10))
    await rsc.sync(KEY)
    creates = h.bodies("create", "pods")
    assert len(creates) == 10
    body = creates[0]
    assert body["metadata"]["generateName"] == "rs-"
    assert body["metadata"]["labels"] == {"app": "web"}
    ref = body["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["uid"], ref["controller"], ref["blockOwnerDeletion"]) == (
        "ReplicaSet",
        rs["metadata"]["uid"],
        True,
        True,
    )
    assert sum(e.startswith("Normal SuccessfulCreate Created pod: rs-") for e in h.recorder.events) == 10
    status = h.stored(REPLICASETS, "rs")["status"]
    assert status["replicas"] == 0 and status["observedGeneration"] == 1


async def test_first_failed_batch_stops_creation_and_sets_replica_failure() -> None:
    h = Harness()
    rsc = make(h)
    h.seed(REPLICASETS, replica_set("rs", 10))
    h.fake.fail("create", "pods", ApiError(403, "Forbidden", "quota exceeded"), times=1)
    with pytest.raises(ApiError):
        await rsc.sync(KEY)
    assert len(h.fake.filter_actions("create", "pods")) == 1
    assert h.recorder.events == ["Warning FailedCreate Error creating: quota exceeded"]
    assert rsc.expectations.satisfied_expectations(KEY)
    (failure,) = h.stored(REPLICASETS, "rs")["status"]["conditions"]
    assert (failure["type"], failure["reason"], failure["message"]) == (
        "ReplicaFailure",
        "FailedCreate",
        "quota exceeded",
    )
    h.resync(REPLICASETS)
    await rsc.sync(KEY)  # next sync succeeds and clears the condition
    assert len(h.fake.filter_actions("create", "pods")) == 11
    assert "conditions" not in h.stored(REPLICASETS, "rs")["status"]


async def test_creates_refused_in_a_terminating_namespace_are_not_an_error() -> None:
    """Regression: in a namespace being deleted every create fails with cause
    NamespaceTerminating; upstream's sync returns without error (no requeue, no event)."""
    h = Harness()
    rsc = make(h)
    h.seed(REPLICASETS, replica_set("rs", 3))
    refused = ApiError(
        403,
        "Forbidden",
        "unable to create new content in namespace ns because it is being terminated",
        causes=[Cause("NamespaceTerminating", "namespace ns is terminating", "metadata.namespace")],
    )
    h.fake.fail("create", "pods", refused, times=1)
    await rsc.sync(KEY)
    assert len(h.fake.filter_actions("create", "pods")) == 1
    assert h.recorder.events == []


async def test_expectations_block_a_second_create_until_the_informer_sees_the_pods() -> None:
    h = Harness()
    rsc = make(h)
    h.seed(REPLICASETS, replica_set("rs", 3))
    await rsc.sync(KEY)
    await rsc.sync(KEY)
    assert len(h.fake.filter_actions("create", "pods")) == 3
    assert not rsc.expectations.satisfied_expectations(KEY)
    for created in h.fake.all(PODS):
        h.factory.informer(PODS).indexer.add(created)
        rsc._add_pod(created)
    assert rsc.expectations.satisfied_expectations(KEY)
    await rsc.sync(KEY)
    assert len(h.fake.filter_actions("create", "pods")) == 3


async def test_expectations_expire_after_five_minutes() -> None:
    h = Harness()
    rsc = make(h)
    h.seed(REPLICASETS, replica_set("rs", 2))
    await rsc.sync(KEY)
    await h.clock.step(299)
    assert not rsc.expectations.satisfied_expectations(KEY)
    await h.clock.step(2)
    assert rsc.expectations.satisfied_expectations(KEY)
    await rsc.sync(KEY)
    assert len(h.fake.filter_actions("create", "pods")) == 4


async def test_burst_caps_creates_per_sync() -> None:
    h = Harness()
    rsc = make(h, burst=5)
    h.seed(REPLICASETS, replica_set("rs", 12))
    await rsc.sync(KEY)
    assert len(h.fake.filter_actions("create", "pods")) == 5


async def test_scale_down_deletes_in_rank_order() -> None:
    h = Harness()
    rsc = make(h)
    rs = h.seed(REPLICASETS, replica_set("rs", 2))
    now = h.clock
    pods = [
        pod("ready-old", rs, ready_since=time_at(now, -100000), created=time_at(now, -200000)),
        pod("unscheduled", rs, phase="Pending", node=""),
        pod("ready-new", rs, ready_since=time_at(now, -10), created=time_at(now, -20)),
        pod("pending", rs, phase="Pending"),
        pod("not-ready", rs),
    ]
    for p in pods:
        h.seed(PODS, p)
    ordered = sort_pods_for_deletion(pods, rank_pods_by_related_on_same_node(pods, []), now.now())
    assert [p["metadata"]["name"] for p in ordered] == [
        "unscheduled",
        "pending",
        "not-ready",
        "ready-new",
        "ready-old",
    ]
    await rsc.sync(KEY)
    deleted = [a.name for a in h.fake.filter_actions("delete", "pods")]
    assert deleted == ["unscheduled", "pending", "not-ready"]
    assert "Normal SuccessfulDelete Deleted pod: unscheduled" in h.recorder.events
    assert rsc.expectations.get_expectations(KEY) == (0, 3)
    rsc._delete_pod(pods[1])
    rsc._delete_pod(pods[1])  # a second report of the same pod counts once
    assert rsc.expectations.get_expectations(KEY) == (0, 2)


async def test_more_restarts_deleted_first_among_equals() -> None:
    h = Harness()
    a = pod("a", None, restarts=0)
    b = pod("b", None, restarts=5)
    ordered = sort_pods_for_deletion([a, b], [0, 0], h.clock.now())
    assert [p["metadata"]["name"] for p in ordered] == ["b", "a"]


async def test_inactive_pods_are_not_counted() -> None:
    h = Harness()
    rsc = make(h)
    rs = h.seed(REPLICASETS, replica_set("rs", 2))
    h.seed(PODS, pod("done", rs, phase="Succeeded"))
    h.seed(PODS, pod("failed", rs, phase="Failed"))
    terminating = pod("going", rs)
    terminating["metadata"]["deletionTimestamp"] = time_at(h.clock, 0)
    h.seed(PODS, terminating)
    await rsc.sync(KEY)
    assert len(h.fake.filter_actions("create", "pods")) == 2


async def test_adopts_matching_orphan_and_releases_non_matching_owned_pod() -> None:
    h = Harness()
    rsc = make(h)
    rs = h.seed(REPLICASETS, replica_set("rs", 1))
    orphan = h.seed(PODS, pod("orphan", None))
    h.seed(PODS, pod("relabelled", rs, labels={"app": "other"}))
    h.seed(PODS, pod("stranger", None, labels={"app": "other"}))
    await rsc.sync(KEY)
    patches = {a.name: a.body for a in h.fake.filter_actions("patch", "pods")}
    assert set(patches) == {"orphan", "relabelled"}
    adopted = patches["orphan"]["metadata"]
    assert adopted["uid"] == orphan["metadata"]["uid"]
    assert adopted["ownerReferences"][0]["uid"] == rs["metadata"]["uid"]
    assert adopted["ownerReferences"][0]["controller"] is True
    assert patches["relabelled"]["metadata"]["ownerReferences"] is None
    assert "ownerReferences" not in h.stored(PODS, "relabelled")["metadata"]
    assert h.fake.filter_actions("create", "pods") == []  # the adopted pod fills the one replica


async def test_no_adoption_while_replica_set_is_being_deleted() -> None:
    h = Harness()
    rsc = make(h)
    rs = replica_set("rs", 1)
    rs["metadata"]["deletionTimestamp"] = time_at(h.clock, 0)
    rs["metadata"]["finalizers"] = ["foregroundDeletion"]
    h.seed(REPLICASETS, rs)
    h.seed(PODS, pod("orphan", None))
    await rsc.sync(KEY)
    assert h.fake.filter_actions("patch", "pods") == []
    assert h.fake.filter_actions("create", "pods") == []


async def test_status_counts_honour_min_ready_seconds() -> None:
    h = Harness()
    rsc = make(h)
    obj = replica_set("rs", 3, minReadySeconds=10)
    obj["spec"]["template"]["metadata"]["labels"]["tier"] = "fe"
    rs = h.seed(REPLICASETS, obj)
    h.seed(PODS, pod("a", rs, labels={"app": "web", "tier": "fe"}, ready_since=time_at(h.clock, -20)))
    h.seed(PODS, pod("b", rs, labels={"app": "web", "tier": "fe"}, ready_since=time_at(h.clock, -5)))
    h.seed(PODS, pod("c", rs))  # selected, but without the template's tier label
    await rsc.sync(KEY)
    status = h.stored(REPLICASETS, "rs")["status"]
    assert (status["replicas"], status["readyReplicas"], status["availableReplicas"]) == (3, 2, 1)
    assert status["fullyLabeledReplicas"] == 2
    assert rsc.queue.waiting() == 1  # requeued for when b becomes available
    await h.clock.step(6)
    h.resync(REPLICASETS)
    await rsc.sync(KEY)
    assert h.stored(REPLICASETS, "rs")["status"]["availableReplicas"] == 2


async def test_status_not_written_when_unchanged() -> None:
    h = Harness()
    rsc = make(h)
    rs = h.seed(REPLICASETS, replica_set("rs", 1))
    h.seed(PODS, pod("a", rs, ready_since=time_at(h.clock, -20)))
    await rsc.sync(KEY)
    h.resync(REPLICASETS)
    h.fake.clear_actions()
    await rsc.sync(KEY)
    assert h.fake.filter_actions("update", "replicasets") == []


async def test_status_conflict_is_retried_with_a_fresh_read() -> None:
    h = Harness()
    rsc = make(h)
    rs = h.seed(REPLICASETS, replica_set("rs", 1))
    h.seed(PODS, pod("a", rs, ready_since=time_at(h.clock, -20)))
    await h.fake.resource(REPLICASETS, NS).patch("rs", {"metadata": {"labels": {"x": "y"}}})
    await rsc.sync(KEY)
    updates = [a for a in h.fake.filter_actions("update", "replicasets") if a.subresource == "status"]
    assert len(updates) == 2
    assert h.stored(REPLICASETS, "rs")["status"]["readyReplicas"] == 1


async def test_deleted_replica_set_drops_expectations() -> None:
    h = Harness()
    rsc = make(h)
    h.seed(REPLICASETS, replica_set("rs", 2))
    await rsc.sync(KEY)
    h.factory.informer(REPLICASETS).indexer.replace([], "1")
    await rsc.sync(KEY)
    assert rsc.expectations.get_expectations(KEY) is None

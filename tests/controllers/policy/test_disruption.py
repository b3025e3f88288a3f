"""DisruptionController.sync against a FakeClient, hand-seeded caches and a FakeClock: each case
seeds owners, pods and one budget, syncs it once and checks the status written and the events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from controllers.disruption import DisruptionController
from controllers.disruption.budget import DELETION_TIMEOUT
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import (
    DEPLOYMENTS,
    PODDISRUPTIONBUDGETS,
    PODS,
    REPLICASETS,
    resource_type,
)
from tests.controllers.apps.harness import NS, Harness, deployment, owner_ref, pod, replica_set, time_at

STATEFULSETS = resource_type("apps/v1", "statefulsets")
DAEMONSETS = resource_type("apps/v1", "daemonsets")
KEY = f"{NS}/pdb"
READY = "2020-01-01T00:00:00Z"


def budget(generation: int = 1, status: Object | None = None, **spec: Any) -> Object:
    spec.setdefault("selector", {"matchLabels": {"app": "web"}})
    obj: Object = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "pdb", "namespace": NS, "uid": "uid-pdb", "generation": generation},
        "spec": spec,
    }
    if status is not None:
        obj["status"] = status
    return obj


def owned(owner: Object | None, n: int, ready: int, **kw: Any) -> list[Object]:
    return [pod(f"p{i}", owner, ready_since=READY if i < ready else None, **kw) for i in range(n)]


def stateful_set(replicas: int) -> Object:
    sts = replica_set("sts", replicas)
    sts["kind"] = "StatefulSet"
    return sts


def daemon_set() -> Object:
    ds = replica_set("ds", 0)
    ds["kind"] = "DaemonSet"
    return ds


@dataclass
class Case:
    name: str
    spec: dict[str, Any]
    owners: list[tuple[Any, Object]] = field(default_factory=list)
    pods: list[Object] = field(default_factory=list)
    # (expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed)
    counts: tuple[int, int, int, int] = (0, 0, 0, 0)
    reason: str = "InsufficientPods"
    events: list[str] = field(default_factory=list)


def rs_of_deployment(replicas: int) -> tuple[Object, Object]:
    d = deployment("web", replicas)
    rs = replica_set("web-1", replicas)
    rs["metadata"]["ownerReferences"] = [owner_ref(d)]
    return d, rs


D3, RS3 = rs_of_deployment(3)
LONE_RS = replica_set("rs", 4)
CASES = [
    Case(
        "min available int counts the pods",
        {"minAvailable": 2},
        [],
        owned(None, 3, 3),
        (3, 2, 3, 1),
        "SufficientPods",
    ),
    Case("min available int, too few ready", {"minAvailable": 2}, [], owned(None, 3, 2), (3, 2, 2, 0)),
    Case(
        "percent min available resolves the deployment's replicas",
        {"minAvailable": "50%"},
        [(DEPLOYMENTS, D3), (REPLICASETS, RS3)],
        owned(RS3, 3, 3),
        (3, 2, 3, 1),
        "SufficientPods",
    ),
    Case(
        "max unavailable against a replica set's replicas (not its pods)",
        {"maxUnavailable": 1},
        [(REPLICASETS, LONE_RS)],
        owned(LONE_RS, 2, 2),
        (4, 3, 2, 0),
    ),
    Case(
        "max unavailable percent against a stateful set",
        {"maxUnavailable": "50%"},
        [(STATEFULSETS, stateful_set(4))],
        owned(stateful_set(4), 4, 4),
        (4, 2, 4, 2),
        "SufficientPods",
    ),
    Case(
        "a budget selecting nothing",
        {"minAvailable": 1},
        [],
        [],
        (0, 1, 0, 0),
        events=["Normal NoPods No matching pods found"],
    ),
    Case(
        "unmanaged pods with a percentage",
        {"maxUnavailable": "50%"},
        [],
        owned(None, 2, 2),
        (0, 0, 2, 0),
        events=[
            "Warning UnmanagedPods Pods selected by this PodDisruptionBudget (selector: "
            "{'matchLabels': {'app': 'web'}}) were found to be unmanaged. As a result, the status of the PDB "
            "cannot be calculated correctly, which may result in undefined behavior. To account for these "
            'pods please set ".spec.minAvailable" field of the PDB to an integer value.'
        ],
    ),
    Case(
        "an owner missing from the caches",
        {"maxUnavailable": 1},
        [],
        owned(LONE_RS, 1, 1),
        (0, 0, 0, 0),
        "SyncFailed",
        events=[
            'Warning NoControllers found no controllers for pod "p0"',
            "Warning CalculateExpectedPodCountFailed Failed to calculate the number of expected pods: "
            'found no controllers for pod "p0"',
        ],
    ),
    Case(
        "an owner without a scale subresource",
        {"minAvailable": "50%"},
        [(DAEMONSETS, daemon_set())],
        owned(daemon_set(), 1, 1),
        (0, 0, 0, 0),
        "SyncFailed",
        events=[
            "Warning CalculateExpectedPodCountFailed Failed to calculate the number of expected pods: "
            "daemonsets.apps does not implement the scale subresource"
        ],
    ),
]


def make(h: Harness) -> DisruptionController:
    return DisruptionController(h.fake, h.factory, h.recorder, clock=h.clock)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_sync_writes_the_budget_status(case: Case) -> None:
    h = Harness()
    dc = make(h)
    for rt, obj in case.owners:
        h.seed(rt, obj)
    for p in case.pods:
        h.seed(PODS, p)
    h.seed(PODDISRUPTIONBUDGETS, budget(**case.spec))
    await dc.sync(KEY)
    status = h.stored(PODDISRUPTIONBUDGETS, "pdb")["status"]
    if case.reason != "SyncFailed":
        got = tuple(
            status[k] for k in ("expectedPods", "desiredHealthy", "currentHealthy", "disruptionsAllowed")
        )
        assert got == case.counts
        assert status["observedGeneration"] == 1
    assert status["disruptionsAllowed"] == case.counts[3]
    (condition,) = status["conditions"]
    assert (condition["type"], condition["reason"]) == ("DisruptionAllowed", case.reason)
    assert condition["status"] == ("True" if case.reason == "SufficientPods" else "False")
    assert h.recorder.events == case.events


async def test_an_up_to_date_status_is_not_written_again() -> None:
    h = Harness()
    dc = make(h)
    for p in owned(None, 2, 2):
        h.seed(PODS, p)
    h.seed(PODDISRUPTIONBUDGETS, budget(minAvailable=1))
    await dc.sync(KEY)
    h.resync(PODDISRUPTIONBUDGETS)
    await dc.sync(KEY)
    assert len(h.bodies("update", "poddisruptionbudgets", "status")) == 1


async def test_a_new_generation_is_observed() -> None:
    h = Harness()
    dc = make(h)
    status = {
        "observedGeneration": 1,
        "disruptionsAllowed": 1,
        "currentHealthy": 2,
        "desiredHealthy": 1,
        "expectedPods": 2,
    }
    for p in owned(None, 2, 2):
        h.seed(PODS, p)
    h.seed(PODDISRUPTIONBUDGETS, budget(generation=2, status=status, minAvailable=2))
    await dc.sync(KEY)
    written = h.stored(PODDISRUPTIONBUDGETS, "pdb")["status"]
    assert (written["observedGeneration"], written["disruptionsAllowed"]) == (2, 0)


async def test_evicted_pods_do_not_count_until_two_minutes_pass() -> None:
    h = Harness()
    dc = make(h)
    for p in owned(None, 3, 3):
        h.seed(PODS, p)
    evicted_at = time_at(h.clock, 0)
    h.seed(PODDISRUPTIONBUDGETS, budget(status={"disruptedPods": {"p0": evicted_at}}, minAvailable=1))
    await dc.sync(KEY)
    status = h.stored(PODDISRUPTIONBUDGETS, "pdb")["status"]
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (2, 1)
    assert status["disruptedPods"] == {"p0": evicted_at}
    assert dc.queue.waiting() == 1  # rechecked when the entry expires
    await h.clock.step(DELETION_TIMEOUT + 1)
    h.resync(PODDISRUPTIONBUDGETS)
    await dc.sync(KEY)
    status = h.stored(PODDISRUPTIONBUDGETS, "pdb")["status"]
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (3, 2)
    assert "disruptedPods" not in status
    assert h.recorder.events == [
        "Warning NotDeleted Pod was expected by PDB default/default to be deleted but it wasn't"
    ]


async def test_pods_being_deleted_are_not_healthy_and_leave_the_map() -> None:
    h = Harness()
    dc = make(h)
    pods = owned(None, 2, 2)
    pods[0]["metadata"]["deletionTimestamp"] = READY
    for p in pods:
        h.seed(PODS, p)
    h.seed(
        PODDISRUPTIONBUDGETS, budget(status={"disruptedPods": {"p0": time_at(h.clock, 0)}}, minAvailable=1)
    )
    await dc.sync(KEY)
    status = h.stored(PODDISRUPTIONBUDGETS, "pdb")["status"]
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (1, 0)
    assert "disruptedPods" not in status


async def test_a_conflict_is_requeued_without_the_fail_safe() -> None:
    h = Harness()
    dc = make(h)
    h.seed(PODDISRUPTIONBUDGETS, budget(minAvailable=1))
    h.fake.fail("update", "poddisruptionbudgets", ApiError(409, "Conflict", "modified"), times=1)
    with pytest.raises(ApiError):
        await dc.sync(KEY)
    assert len(h.fake.filter_actions("update", "poddisruptionbudgets")) == 1


async def test_a_gone_budget_is_nothing_to_do() -> None:
    h = Harness()
    await make(h).sync(KEY)
    assert h.fake.actions == []


async def test_pod_events_enqueue_the_budget_and_warn_of_two() -> None:
    h = Harness()
    dc = make(h)
    h.seed(PODDISRUPTIONBUDGETS, budget(minAvailable=1))
    other = budget(minAvailable=1)
    other["metadata"].update(name="other", uid="uid-other")
    h.seed(PODDISRUPTIONBUDGETS, other)
    dc.pod_informer.indexer.add(pod("p", None))
    chosen = dc.pdb_for_pod(pod("p", None))
    assert chosen is not None and chosen["metadata"]["name"] in ("pdb", "other")
    assert h.recorder.events[0].startswith("Warning MultiplePodDisruptionBudgets ")


async def test_a_stale_disruption_target_condition_is_reset_after_two_minutes() -> None:
    h = Harness()
    dc = make(h)
    p = pod("p", None, ready_since=READY)
    p["status"]["conditions"].append(
        {
            "type": "DisruptionTarget",
            "status": "True",
            "reason": "EvictionByEvictionAPI",
            "lastTransitionTime": time_at(h.clock, 0),
        }
    )
    h.seed(PODS, p)
    await dc.stale.sync(f"{NS}/p")
    assert h.bodies("update", "pods", "status") == []  # not stale yet: waits
    await h.clock.step(121)
    await dc.stale.sync(f"{NS}/p")
    (written,) = h.bodies("update", "pods", "status")
    (target,) = [c for c in written["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert target["status"] == "False"


async def test_pod_and_budget_events_enqueue_the_budget() -> None:
    h = Harness()
    dc = make(h)
    h.seed(PODDISRUPTIONBUDGETS, budget(minAvailable=1))
    dc._pod_changed(pod("p", None))
    dc._pod_changed(pod("stranger", None, labels={"app": "other"}))
    assert len(dc.queue) == 1
    assert await dc.queue.get() == KEY

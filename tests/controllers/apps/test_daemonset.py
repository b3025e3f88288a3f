"""DaemonSetsController.sync against a FakeClient, hand-seeded caches and a FakeClock:
placement, creation, deletion, failed pods, expectations, status and history."""

from __future__ import annotations

from typing import Any

from controllers.daemon.controller import DaemonSetsController
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import CONTROLLERREVISIONS, DAEMONSETS, NODES, PODS
from tests.controllers.apps.daemonset_fixtures import daemon_pod, daemon_set, node
from tests.controllers.apps.harness import NS, Harness

KEY = f"{NS}/ds"
ALL = (DAEMONSETS, PODS, NODES, CONTROLLERREVISIONS)


def make(h: Harness, burst: int = 250) -> DaemonSetsController:
    return DaemonSetsController(h.fake, h.factory, h.recorder, clock=h.clock, burst_replicas=burst)


def seed(h: Harness, ds: Object, *nodes: Object) -> Object:
    for n in nodes:
        h.seed(NODES, n)
    return h.seed(DAEMONSETS, ds)


def observe(h: Harness, dsc: DaemonSetsController) -> None:
    """The informers catch up with the fake; the controller sees every new pod's add event."""
    before = {p["metadata"]["name"] for p in h.factory.informer(PODS).indexer.list()}
    h.resync(*ALL)
    for p in h.fake.all(PODS):
        if p["metadata"]["name"] not in before:
            dsc._add_pod(p)


def created_nodes(h: Harness) -> list[str]:
    terms = [
        b["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ]
        for b in h.bodies("create", "pods")
    ]
    return sorted(t[0]["matchFields"][0]["values"][0] for t in terms)


def deleted(h: Harness) -> list[str]:
    return sorted(a.name for a in h.fake.filter_actions("delete", "pods"))


def status(h: Harness) -> dict[str, Any]:
    return dict(h.stored(DAEMONSETS, "ds")["status"])


async def test_one_pod_per_eligible_node_bound_by_affinity_with_revision_and_events() -> None:
    h = Harness()
    dsc = make(h)
    taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    seed(h, daemon_set(), node("n1"), node("n2"), node("n3", taints=[taint]))
    await dsc.sync(KEY)
    assert created_nodes(h) == ["n1", "n2"]
    body = h.bodies("create", "pods")[0]
    (revision,) = h.fake.all(CONTROLLERREVISIONS)
    hash_ = revision["metadata"]["labels"]["controller-revision-hash"]
    assert revision["metadata"]["name"] == f"ds-{hash_}" and revision["revision"] == 1
    assert revision["data"]["spec"]["template"]["$patch"] == "replace"
    assert revision["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"
    assert body["metadata"]["generateName"] == "ds-"
    assert body["metadata"]["labels"] == {
        "app": "ds",
        "controller-revision-hash": hash_,
        "pod-template-generation": "1",
    }
    assert "nodeName" not in body["spec"]  # the scheduler binds it
    assert {t["key"] for t in body["spec"]["tolerations"]} >= {"node.kubernetes.io/unreachable"}
    assert sum(e.startswith("Normal SuccessfulCreate Created pod: ds-") for e in h.recorder.events) == 2
    assert status(h) == {
        "observedGeneration": 1,
        "desiredNumberScheduled": 2,
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "numberReady": 0,
        "updatedNumberScheduled": 0,
        "numberAvailable": 0,
        "numberUnavailable": 2,
    }


async def test_expectations_hold_back_a_second_create_and_the_observed_generation() -> None:
    h = Harness()
    dsc = make(h)
    seed(h, daemon_set(generation=1), node("n1"))
    await dsc.sync(KEY)
    stored = h.stored(DAEMONSETS, "ds")
    stored["metadata"]["generation"] = 2
    h.seed(DAEMONSETS, stored)
    await dsc.sync(KEY)
    assert len(h.bodies("create", "pods")) == 1
    assert status(h)["observedGeneration"] == 1  # expectations unsatisfied: generation 2 not acted on
    observe(h, dsc)
    await dsc.sync(KEY)
    assert len(h.bodies("create", "pods")) == 1
    assert status(h)["observedGeneration"] == 2 and status(h)["currentNumberScheduled"] == 1


async def test_a_new_node_enqueues_the_daemon_set_and_gets_a_pod() -> None:
    h = Harness()
    dsc = make(h)
    seed(h, daemon_set(), node("n1"))
    await dsc.sync(KEY)
    observe(h, dsc)
    while len(dsc.queue):
        key = await dsc.queue.get()
        assert key is not None
        dsc.queue.done(key)
    joined = h.seed(NODES, node("n2"))
    dsc._add_node(joined)
    assert len(dsc.queue) == 1
    await dsc.sync(KEY)
    assert created_nodes(h) == ["n1", "n2"]


async def test_pods_on_nodes_that_no_longer_fit_are_deleted_noschedule_keeps_them() -> None:
    h = Harness()
    dsc = make(h)
    no_schedule = [{"key": "gpu", "effect": "NoSchedule"}]
    no_execute = [{"key": "gpu", "effect": "NoExecute"}]
    ds = seed(h, daemon_set(), node("keep", taints=no_schedule), node("evict", taints=no_execute), node("ok"))
    for name, where in (("a", "keep"), ("b", "evict"), ("c", "ok")):
        h.seed(PODS, daemon_pod(name, ds, where))
    await dsc.sync(KEY)
    assert deleted(h) == ["b"] and created_nodes(h) == []
    assert "Normal SuccessfulDelete Deleted pod: b" in h.recorder.events
    s = status(h)
    assert (s["desiredNumberScheduled"], s["currentNumberScheduled"], s["numberMisscheduled"]) == (1, 1, 2)


async def test_excess_pods_on_a_node_keep_the_oldest_and_lost_nodes_lose_unbound_pods() -> None:
    h = Harness()
    dsc = make(h)
    ds = seed(h, daemon_set(), node("n1"))
    h.seed(PODS, daemon_pod("young", ds, "n1", created="2021-01-01T00:00:00Z"))
    h.seed(PODS, daemon_pod("old", ds, "n1", created="2020-06-01T00:00:00Z"))
    h.seed(PODS, daemon_pod("stray", ds, "gone", bound=False))
    await dsc.sync(KEY)
    assert deleted(h) == ["stray", "young"]


async def test_a_failed_pod_is_replaced_with_backoff_per_node() -> None:
    h = Harness()
    dsc = make(h)
    settled = daemon_set()
    settled["status"] = {"observedGeneration": 1}  # the backoff is per generation observed
    ds = seed(h, settled, node("n1"))
    h.seed(PODS, daemon_pod("f1", ds, "n1", phase="Failed", ready=False))
    await dsc.sync(KEY)
    assert deleted(h) == ["f1"]
    assert "Warning FailedDaemonPod Found failed daemon pod default/f1 on node n1, will try to kill it" in (
        h.recorder.events
    )
    hash_ = h.fake.all(CONTROLLERREVISIONS)[0]["metadata"]["labels"]["controller-revision-hash"]
    # of the current revision: an old one the rolling update would replace at once
    h.fake.seed(PODS, daemon_pod("f2", ds, "n1", hash_=hash_, phase="Failed", ready=False))
    observe(h, dsc)
    dsc._delete_pod(daemon_pod("f1", ds, "n1"))
    await dsc.sync(KEY)  # within the 1 s backoff: the failed pod stays, the set is requeued
    assert deleted(h) == ["f1"]
    await h.clock.step(1.5)
    await dsc.sync(KEY)
    assert deleted(h) == ["f1", "f2"]


async def test_orphans_are_adopted_and_an_empty_selector_selects_nothing() -> None:
    h = Harness()
    dsc = make(h)
    seed(h, daemon_set(), node("n1"))
    h.seed(PODS, daemon_pod("orphan", None, "n1"))
    await dsc.sync(KEY)
    (adopted,) = h.bodies("patch", "pods")
    assert adopted["metadata"]["ownerReferences"][0]["uid"] == "uid-ds"
    assert created_nodes(h) == []

    h2 = Harness()
    dsc2 = make(h2)
    seed(h2, daemon_set(selector={}), node("n1"))
    await dsc2.sync(KEY)
    assert h2.recorder.events == [
        "Warning SelectingAll This daemon set is selecting all pods. A non-empty selector is required."
    ]
    assert h2.fake.filter_actions("create", "pods") == []


async def new_template(h: Harness, dsc: DaemonSetsController, image: str, generation: int) -> None:
    stored = h.stored(DAEMONSETS, "ds")
    stored["spec"]["template"]["spec"]["containers"][0]["image"] = image
    stored["metadata"]["generation"] = generation
    stored["metadata"]["annotations"]["deprecated.daemonset.template.generation"] = str(generation)
    h.fake.seed(DAEMONSETS, stored)
    h.resync(*ALL)


async def ready_everything(h: Harness, dsc: DaemonSetsController) -> None:
    for p in h.fake.all(PODS):
        if not p["metadata"].get("deletionTimestamp"):
            target = p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            p["spec"]["nodeName"] = target["nodeSelectorTerms"][0]["matchFields"][0]["values"][0]
            p["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
            h.fake.seed(PODS, p)
    observe(h, dsc)


def drop_deleted(h: Harness, dsc: DaemonSetsController) -> None:
    """The fake removed them at once: the informer and the controller learn of it."""
    for action in h.fake.filter_actions("delete", "pods"):
        dsc._delete_pod(daemon_pod(action.name, h.stored(DAEMONSETS, "ds"), "n1"))
    h.resync(*ALL)


async def test_rolling_update_replaces_one_node_at_a_time_and_keeps_history() -> None:
    h = Harness()
    dsc = make(h)
    seed(h, daemon_set(), node("n1"), node("n2"), node("n3"))
    await dsc.sync(KEY)
    await ready_everything(h, dsc)
    await dsc.sync(KEY)
    assert status(h)["updatedNumberScheduled"] == 3 and status(h)["numberAvailable"] == 3
    await new_template(h, dsc, "nginx:2", 2)
    await dsc.sync(KEY)
    revisions = sorted(h.fake.all(CONTROLLERREVISIONS), key=lambda r: r["revision"])
    assert [r["revision"] for r in revisions] == [1, 2]
    assert len(deleted(h)) == 1  # maxUnavailable 1
    assert status(h)["updatedNumberScheduled"] == 0 and status(h)["observedGeneration"] == 2
    for _ in range(3):
        drop_deleted(h, dsc)
        await dsc.sync(KEY)  # manage creates the replacement
        await ready_everything(h, dsc)
        await dsc.sync(KEY)  # the next old pod goes
    images = {
        p["spec"]["containers"][0]["image"]
        for p in h.fake.all(PODS)
        if not p["metadata"].get("deletionTimestamp")
    }
    assert images == {"nginx:2"}
    assert status(h)["updatedNumberScheduled"] == 3


async def test_on_delete_leaves_old_pods_until_someone_deletes_them() -> None:
    h = Harness()
    dsc = make(h)
    seed(h, daemon_set(updateStrategy={"type": "OnDelete"}), node("n1"))
    await dsc.sync(KEY)
    await ready_everything(h, dsc)
    await new_template(h, dsc, "nginx:2", 2)
    await dsc.sync(KEY)
    assert deleted(h) == [] and status(h)["updatedNumberScheduled"] == 0


async def test_a_rollback_renumbers_the_matching_revision_and_old_ones_are_pruned() -> None:
    h = Harness()
    dsc = make(h)
    seed(h, daemon_set(revisionHistoryLimit=1), node("n1"))
    await dsc.sync(KEY)
    first = h.fake.all(CONTROLLERREVISIONS)[0]["metadata"]["name"]
    for generation, image in ((2, "nginx:2"), (3, "nginx:3")):
        await new_template(h, dsc, image, generation)
        await dsc.sync(KEY)
        h.resync(*ALL)
    assert sorted(r["revision"] for r in h.fake.all(CONTROLLERREVISIONS)) == [1, 2, 3]
    await new_template(h, dsc, "nginx:1", 4)  # what kubectl rollout undo --to-revision=1 writes
    await dsc.sync(KEY)
    by_name = {r["metadata"]["name"]: r["revision"] for r in h.fake.all(CONTROLLERREVISIONS)}
    assert by_name[first] == 4
    h.resync(*ALL)
    await ready_everything(h, dsc)
    drop_deleted(h, dsc)
    await dsc.sync(KEY)
    assert len(h.fake.all(CONTROLLERREVISIONS)) <= 3  # revisions of live pods are kept

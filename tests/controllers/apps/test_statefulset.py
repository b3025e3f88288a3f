"""StatefulSetController.sync(key) against a FakeClient, hand-seeded caches and a FakeClock:
revisions and history, the ordered walk across syncs, rolling update completion and
rollback, adoption, status, the governing-Service warning."""

from __future__ import annotations

import copy

from controllers.statefulset.controller import StatefulSetController
from controllers.statefulset.governing import NOT_FOUND, NOT_HEADLESS
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import (
    CONTROLLERREVISIONS,
    PERSISTENTVOLUMECLAIMS,
    PODS,
    SERVICES,
    STATEFULSETS,
)
from tests.controllers.apps.harness import NS, PAST, Harness
from tests.controllers.apps.statefulset_builders import SERVICE, stateful_set, with_image

KEY = f"{NS}/web"
ALL = (STATEFULSETS, PODS, CONTROLLERREVISIONS, PERSISTENTVOLUMECLAIMS, SERVICES)


def headless(name: str = SERVICE, cluster_ip: str = "None") -> Object:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"clusterIP": cluster_ip, "selector": {"app": "web"}, "ports": [{"port": 80}]},
    }


def setup(sts: Object, *, service: bool = True) -> tuple[Harness, StatefulSetController]:
    h = Harness()
    ssc = StatefulSetController(h.fake, h.factory, h.recorder, clock=h.clock)
    h.seed(STATEFULSETS, sts)
    if service:
        h.seed(SERVICES, headless())
    return h, ssc


async def step(h: Harness, ssc: StatefulSetController) -> None:
    """One sync, then the caches catch up with what it wrote."""
    await ssc.sync(KEY)
    h.resync(*ALL)


def run_all_pods(h: Harness) -> None:
    """Every pod of the fake becomes Running and Ready (as a node agent would report)."""
    for pod in h.fake.all(PODS):
        if pod["metadata"].get("deletionTimestamp"):
            continue
        pod["status"] = {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": PAST}],
        }
        h.fake.seed(PODS, pod)
    h.resync(PODS)


def remove_deleted(h: Harness) -> None:
    """Deleted pods are gone (the fake deletes at once; this keeps the caches in step)."""
    h.resync(PODS)


def status(h: Harness) -> Object:
    return h.stored(STATEFULSETS, "web").get("status") or {}


def pod_names(h: Harness) -> list[str]:
    return sorted(p["metadata"]["name"] for p in h.fake.all(PODS))


def update_set(h: Harness, change: Object) -> None:
    """The user's edit: the set's spec replaced, generation bumped."""
    stored = h.stored(STATEFULSETS, "web")
    stored["spec"] = copy.deepcopy(change["spec"])
    stored["metadata"]["generation"] = int(stored["metadata"].get("generation") or 1) + 1
    h.fake.seed(STATEFULSETS, stored)
    h.resync(STATEFULSETS)


async def converge(h: Harness, ssc: StatefulSetController, rounds: int = 12) -> None:
    for _ in range(rounds):
        await step(h, ssc)
        run_all_pods(h)


async def test_first_sync_creates_a_revision_and_the_first_member() -> None:
    h, ssc = setup(stateful_set())
    await step(h, ssc)
    [rev] = h.fake.all(CONTROLLERREVISIONS)
    assert rev["revision"] == 1 and rev["metadata"]["name"].startswith("web-")
    assert rev["data"]["spec"]["template"]["$patch"] == "replace"
    assert rev["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"
    assert pod_names(h) == ["web-0"]
    assert (
        h.stored(PODS, "web-0")["metadata"]["labels"]["controller-revision-hash"] == rev["metadata"]["name"]
    )
    st = status(h)
    assert st["currentRevision"] == st["updateRevision"] == rev["metadata"]["name"]
    assert st["observedGeneration"] == 1 and st["replicas"] == 0


async def test_members_are_created_one_at_a_time_in_order() -> None:
    h, ssc = setup(stateful_set())
    seen = []
    for _ in range(3):
        await step(h, ssc)
        await step(h, ssc)  # a sync while the newest member is not Ready makes nothing
        seen.append(pod_names(h))
        run_all_pods(h)
    assert seen == [["web-0"], ["web-0", "web-1"], ["web-0", "web-1", "web-2"]]
    creates = [e for e in h.recorder.events if "SuccessfulCreate" in e]
    assert creates == [
        f"Normal SuccessfulCreate create Pod web-{i} in StatefulSet web successful" for i in range(3)
    ]
    await step(h, ssc)
    st = status(h)
    assert (st["replicas"], st["readyReplicas"], st["availableReplicas"], st["currentReplicas"]) == (
        3,
        3,
        3,
        3,
    )
    assert st["updatedReplicas"] == 3


async def test_template_change_rolls_from_the_highest_ordinal_and_completes() -> None:
    h, ssc = setup(stateful_set())
    await converge(h, ssc)
    first = status(h)["currentRevision"]
    update_set(h, with_image(stateful_set(), "nginx:2"))
    await step(h, ssc)
    revisions = sorted(h.fake.all(CONTROLLERREVISIONS), key=lambda r: r["revision"])
    assert [r["revision"] for r in revisions] == [1, 2]
    second = revisions[1]["metadata"]["name"]
    assert (status(h)["currentRevision"], status(h)["updateRevision"]) == (first, second)
    assert pod_names(h) == ["web-0", "web-1"]  # web-2 went first
    deletes = []
    for _ in range(12):
        run_all_pods(h)
        await step(h, ssc)
        deletes += [a.name for a in h.fake.filter_actions("delete", "pods") if a.name not in deletes]
    assert deletes == ["web-2", "web-1", "web-0"]
    images = {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in h.fake.all(PODS)}
    assert images == {"web-0": "nginx:2", "web-1": "nginx:2", "web-2": "nginx:2"}
    st = status(h)
    assert st["currentRevision"] == st["updateRevision"] == second
    assert st["currentReplicas"] == st["updatedReplicas"] == 3
    assert st["observedGeneration"] == 2


async def test_rollback_renumbers_the_old_revision_instead_of_creating_one() -> None:
    h, ssc = setup(stateful_set())
    await converge(h, ssc)
    update_set(h, with_image(stateful_set(), "nginx:2"))
    await converge(h, ssc)
    update_set(h, stateful_set())  # back to the first template (kubectl rollout undo)
    await step(h, ssc)
    revisions = {r["metadata"]["name"]: r["revision"] for r in h.fake.all(CONTROLLERREVISIONS)}
    assert sorted(revisions.values()) == [2, 3]
    assert revisions[status(h)["updateRevision"]] == 3


async def test_partition_keeps_lower_members_at_the_current_revision() -> None:
    sts = stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})
    h, ssc = setup(sts)
    await converge(h, ssc)
    update_set(h, with_image(sts, "nginx:2"))
    await converge(h, ssc)
    images = {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in h.fake.all(PODS)}
    assert images == {"web-0": "nginx:1", "web-1": "nginx:1", "web-2": "nginx:2"}
    st = status(h)
    assert st["currentRevision"] != st["updateRevision"]
    assert (st["currentReplicas"], st["updatedReplicas"]) == (2, 1)


async def test_history_beyond_the_limit_is_deleted_oldest_first() -> None:
    sts = stateful_set(revisionHistoryLimit=1)
    h, ssc = setup(sts)
    await converge(h, ssc)
    for image in ("nginx:2", "nginx:3", "nginx:4"):
        update_set(h, with_image(sts, image))
        await converge(h, ssc, rounds=10)
    revisions = sorted(r["revision"] for r in h.fake.all(CONTROLLERREVISIONS))
    assert revisions == [3, 4]  # the live one and one of history


async def test_orphan_member_is_adopted_and_a_look_alike_is_not() -> None:
    h, ssc = setup(stateful_set(replicas=1))
    for name in ("web-0", "other-0"):
        h.seed(
            PODS,
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name, "namespace": NS, "labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1"}]},
                "status": {"phase": "Pending"},
            },
        )
    await step(h, ssc)
    adopted = [a.name for a in h.fake.filter_actions("patch", "pods")]
    assert adopted[0] == "web-0" and "other-0" not in adopted
    ref = h.stored(PODS, "web-0")["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["name"], ref["controller"]) == ("StatefulSet", "web", True)


async def test_missing_governing_service_warns_once_and_pods_are_still_made() -> None:
    h, ssc = setup(stateful_set(), service=False)
    await step(h, ssc)
    run_all_pods(h)
    await step(h, ssc)
    warnings = [e for e in h.recorder.events if e.startswith("Warning")]
    assert warnings == [
        f'Warning {NOT_FOUND} governing Service "nginx" not found in namespace "default": pods are '
        'created but get no DNS names (<pod>.nginx.default.svc) until a headless Service "nginx" exists'
    ]
    assert pod_names(h) == ["web-0", "web-1"]
    h.seed(SERVICES, headless(cluster_ip="10.0.0.9"))
    await step(h, ssc)
    assert h.recorder.events[-1].startswith(
        f'Warning {NOT_HEADLESS} governing Service "nginx" is not headless'
    )


async def test_service_event_requeues_the_sets_it_governs() -> None:
    _, ssc = setup(stateful_set(), service=False)
    ssc._service_changed(headless())
    assert len(ssc.queue) == 1
    ssc._service_changed(headless("unrelated"))
    assert len(ssc.queue) == 1


async def test_a_deleted_set_is_left_alone() -> None:
    h = Harness()
    ssc = StatefulSetController(h.fake, h.factory, h.recorder, clock=h.clock)
    await ssc.sync(KEY)
    assert h.fake.actions == []


async def test_scale_down_removes_the_highest_members_first() -> None:
    h, ssc = setup(stateful_set())
    await converge(h, ssc)
    update_set(h, stateful_set(replicas=1))
    await step(h, ssc)
    assert pod_names(h) == ["web-0", "web-1"]
    await step(h, ssc)
    assert pod_names(h) == ["web-0"]
    assert [e for e in h.recorder.events if "SuccessfulDelete" in e] == [
        "Normal SuccessfulDelete delete Pod web-2 in StatefulSet web successful",
        "Normal SuccessfulDelete delete Pod web-1 in StatefulSet web successful",
    ]
    await step(h, ssc)  # the status counts what the sync saw: the deleted member until then
    assert status(h)["replicas"] == 1


async def test_status_writes_collision_count_zero_as_upstream_does() -> None:
    h, ssc = setup(stateful_set())
    await step(h, ssc)
    assert status(h)["collisionCount"] == 0


async def drain(ssc: StatefulSetController) -> None:
    while len(ssc.queue):
        key = await ssc.queue.get()
        assert key is not None
        ssc.queue.done(key)


async def test_pod_events_map_to_their_set() -> None:
    h, ssc = setup(stateful_set())
    await step(h, ssc)
    await drain(ssc)
    web0 = h.stored(PODS, "web-0")
    ssc._add_pod(web0)
    assert len(ssc.queue) == 1
    orphan = copy.deepcopy(web0)
    orphan["metadata"].pop("ownerReferences")
    stranger = copy.deepcopy(orphan)
    stranger["metadata"]["labels"] = {"app": "other"}
    await drain(ssc)
    ssc._add_pod(stranger)
    assert len(ssc.queue) == 0
    ssc._add_pod(orphan)
    assert len(ssc.queue) == 1

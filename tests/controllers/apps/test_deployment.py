"""DeploymentController.sync against a FakeClient, hand-seeded caches and a FakeClock.

ReplicaSet progress is simulated by writing ReplicaSet status into the fake and resyncing the
caches (``ready``), as the ReplicaSet controller and a watch would."""

from __future__ import annotations

from typing import Any

from controllers.deployment import DeploymentController
from controllers.deployment.context import SyncContext
from controllers.deployment.progress import requeue_stuck_deployment
from controllers.podcontrol.hash import SAFE_ALPHABET, compute_hash
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339 as format_time
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import DEPLOYMENTS, PODS, REPLICASETS
from minikube_py.workqueue import RateLimitingQueue
from tests.controllers.apps.harness import NS, Harness, deployment, owner_ref, pod, replica_set

KEY = f"{NS}/web"
REV = "deployment.kubernetes.io/revision"


def make(h: Harness) -> DeploymentController:
    return DeploymentController(h.fake, h.factory, h.recorder, clock=h.clock)


def condition(obj: Object, type_: str) -> dict[str, Any]:
    found = [c for c in obj["status"].get("conditions", []) if c["type"] == type_]
    assert found, obj["status"]
    return found[0]  # type: ignore[no-any-return]


async def ready(h: Harness) -> None:
    """Every ReplicaSet reports its spec.replicas as created, ready and available."""
    for rs in h.fake.all(REPLICASETS):
        n = rs["spec"]["replicas"]
        rs["status"] = {
            "replicas": n,
            "readyReplicas": n,
            "availableReplicas": n,
            "observedGeneration": rs["metadata"]["generation"],
        }
        await h.fake.resource(REPLICASETS, NS).update_status(rs)
    h.resync()


async def set_spec(h: Harness, **spec: Any) -> None:
    d = h.stored(DEPLOYMENTS, "web")
    for path, value in spec.items():
        if path == "image":
            d["spec"]["template"]["spec"]["containers"][0]["image"] = value
        else:
            d["spec"][path] = value
    await h.fake.resource(DEPLOYMENTS, NS).update(d)
    h.resync()


def owned_rs(d: Object, name: str, replicas: int, image: str, revision: int, **status: Any) -> Object:
    rs = replica_set(name, replicas, labels={"app": "web", "pod-template-hash": name[-3:]})
    rs["spec"]["template"]["spec"]["containers"][0]["image"] = image
    rs["metadata"]["ownerReferences"] = [owner_ref(d)]
    rs["metadata"]["annotations"] = {REV: str(revision)}
    rs["metadata"]["generation"] = 1
    rs["status"] = {"replicas": replicas, "observedGeneration": 1, **status}
    return rs


def by_name(h: Harness) -> dict[str, Object]:
    return {rs["metadata"]["name"]: rs for rs in h.fake.all(REPLICASETS)}


async def test_template_hash_shape_and_collision_count() -> None:
    t = deployment()["spec"]["template"]
    value = compute_hash(t, None)
    assert value and set(value) <= set(SAFE_ALPHABET)
    assert compute_hash(t, None) == value
    assert compute_hash(t, 1) != value


async def test_create_makes_new_replica_set_with_hash_annotations_and_event() -> None:
    h = Harness()
    dc = make(h)
    d = h.seed(DEPLOYMENTS, deployment())
    h.fake.clear_actions()
    await dc.sync(KEY)
    (rs,) = h.bodies("create", "replicasets")
    pod_hash = compute_hash(d["spec"]["template"], None)
    assert rs["metadata"]["name"] == f"web-{pod_hash}"
    assert rs["metadata"]["labels"]["pod-template-hash"] == pod_hash
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": pod_hash}
    assert rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] == pod_hash
    assert rs["metadata"]["ownerReferences"][0]["uid"] == d["metadata"]["uid"]
    annotations = rs["metadata"]["annotations"]
    assert annotations[REV] == "1"
    assert annotations["deployment.kubernetes.io/desired-replicas"] == "3"
    assert annotations["deployment.kubernetes.io/max-replicas"] == "4"
    assert rs["spec"]["replicas"] == 3
    assert h.recorder.events == [f"Normal ScalingReplicaSet Scaled up replica set web-{pod_hash} from 0 to 3"]
    stored = h.stored(DEPLOYMENTS, "web")
    progressing = condition(stored, "Progressing")
    assert (progressing["reason"], progressing["message"]) == (
        "NewReplicaSetCreated",
        f'Created new replica set "web-{pod_hash}"',
    )
    available = condition(stored, "Available")
    assert (available["status"], available["reason"], available["message"]) == (
        "False",
        "MinimumReplicasUnavailable",
        "Deployment does not have minimum availability.",
    )


async def test_change_cause_is_copied_to_the_new_replica_set() -> None:
    h = Harness()
    dc = make(h)
    d = deployment()
    d["metadata"]["annotations"] = {"kubernetes.io/change-cause": "kubectl set image", REV: "7"}
    h.seed(DEPLOYMENTS, d)
    await dc.sync(KEY)
    (rs,) = h.bodies("create", "replicasets")
    assert rs["metadata"]["annotations"]["kubernetes.io/change-cause"] == "kubectl set image"
    assert rs["metadata"]["annotations"][REV] == "1"


async def test_status_fields_after_rollout_completes() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment())
    await dc.sync(KEY)
    await ready(h)
    await dc.sync(KEY)
    status = h.stored(DEPLOYMENTS, "web")["status"]
    assert status["observedGeneration"] == 1
    assert (status["replicas"], status["updatedReplicas"], status["readyReplicas"]) == (3, 3, 3)
    assert status["availableReplicas"] == 3 and "unavailableReplicas" not in status
    (rs_name,) = by_name(h)
    progressing = condition(h.stored(DEPLOYMENTS, "web"), "Progressing")
    assert (progressing["reason"], progressing["message"]) == (
        "NewReplicaSetAvailable",
        f'ReplicaSet "{rs_name}" has successfully progressed.',
    )
    assert condition(h.stored(DEPLOYMENTS, "web"), "Available")["reason"] == "MinimumReplicasAvailable"


async def test_rolling_update_respects_max_surge_and_max_unavailable() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment(replicas=4))  # maxSurge 1, maxUnavailable 0
    await dc.sync(KEY)
    await ready(h)
    await dc.sync(KEY)
    (first,) = by_name(h)
    await set_spec(h, image="nginx:2")
    h.recorder.events.clear()
    for _ in range(12):
        await dc.sync(KEY)
        rss = by_name(h)
        assert sum(rs["spec"]["replicas"] for rs in rss.values()) <= 5
        assert sum(rs.get("status", {}).get("availableReplicas", 0) for rs in rss.values()) >= 4
        await ready(h)
    rss = by_name(h)
    (second,) = set(rss) - {first}
    assert rss[first]["spec"]["replicas"] == 0 and rss[second]["spec"]["replicas"] == 4
    assert rss[second]["metadata"]["annotations"][REV] == "2"
    assert h.recorder.events[:2] == [
        f"Normal ScalingReplicaSet Scaled up replica set {second} from 0 to 1",
        f"Normal ScalingReplicaSet Scaled down replica set {first} from 4 to 3",
    ]
    status = h.stored(DEPLOYMENTS, "web")["status"]
    assert (status["replicas"], status["updatedReplicas"], status["availableReplicas"]) == (4, 4, 4)


async def test_recreate_scales_old_down_waits_for_pods_then_creates_new() -> None:
    h = Harness()
    dc = make(h)
    d = h.seed(DEPLOYMENTS, deployment(strategy={"type": "Recreate"}))
    old = h.seed(REPLICASETS, owned_rs(d, "web-old", 3, "nginx:0", 1, availableReplicas=3))
    running = h.seed(PODS, pod("web-old-1", old))
    await dc.sync(KEY)
    assert h.fake.filter_actions("create", "replicasets") == []
    assert h.stored(REPLICASETS, "web-old")["spec"]["replicas"] == 0
    assert h.recorder.events == ["Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 0"]
    await ready(h)  # the old ReplicaSet reports 0 replicas, but its pod still runs
    await dc.sync(KEY)
    assert h.fake.filter_actions("create", "replicasets") == []
    await h.fake.resource(PODS, NS).delete("web-old-1")
    h.resync()
    dc._delete_pod(running)
    assert len(dc.queue) == 1
    await dc.sync(KEY)
    (new,) = h.bodies("create", "replicasets")
    assert new["spec"]["replicas"] == 3 and new["metadata"]["annotations"][REV] == "2"


async def test_paused_deployment_scales_but_does_not_roll_out() -> None:
    h = Harness()
    dc = make(h)
    d = h.seed(DEPLOYMENTS, deployment(paused=True, replicas=5))
    h.seed(REPLICASETS, owned_rs(d, "web-old", 3, "nginx:0", 1, availableReplicas=3))
    await dc.sync(KEY)
    assert h.fake.filter_actions("create", "replicasets") == []
    assert h.stored(REPLICASETS, "web-old")["spec"]["replicas"] == 5
    progressing = condition(h.stored(DEPLOYMENTS, "web"), "Progressing")
    assert (progressing["status"], progressing["reason"], progressing["message"]) == (
        "Unknown",
        "DeploymentPaused",
        "Deployment is paused",
    )
    await set_spec(h, paused=None)
    await dc.sync(KEY)
    assert len(h.fake.filter_actions("create", "replicasets")) == 1
    reasons = [c["reason"] for c in h.stored(DEPLOYMENTS, "web")["status"]["conditions"]]
    assert "DeploymentPaused" not in reasons


async def test_rollback_reuses_old_replica_set_with_new_revision_and_history() -> None:
    h = Harness()
    dc = make(h)
    d = h.seed(DEPLOYMENTS, deployment())  # template nginx:1, as revision 1 had
    h.seed(REPLICASETS, owned_rs(d, "web-one", 0, "nginx:1", 1))
    h.seed(REPLICASETS, owned_rs(d, "web-two", 3, "nginx:2", 2, availableReplicas=3, readyReplicas=3))
    await dc.sync(KEY)
    assert h.fake.filter_actions("create", "replicasets") == []
    one = h.stored(REPLICASETS, "web-one")
    assert one["metadata"]["annotations"][REV] == "3"
    assert one["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"
    assert one["spec"]["replicas"] == 1  # the rollout starts: surge of 1 over 3


async def test_revision_history_limit_deletes_oldest_scaled_down_replica_sets() -> None:
    h = Harness()
    dc = make(h)
    d = deployment(revisionHistoryLimit=2)
    d["status"] = {
        "observedGeneration": 1,
        "replicas": 3,
        "updatedReplicas": 3,
        "readyReplicas": 3,
        "availableReplicas": 3,
    }
    d = h.seed(DEPLOYMENTS, d)
    for revision in range(1, 5):
        h.seed(REPLICASETS, owned_rs(d, f"web-r{revision}0", 0, f"nginx:0.{revision}", revision))
    current = owned_rs(d, "web-cur", 3, "nginx:1", 5, availableReplicas=3, readyReplicas=3)
    h.seed(REPLICASETS, current)
    await dc.sync(KEY)
    assert sorted(a.name for a in h.fake.filter_actions("delete", "replicasets")) == ["web-r10", "web-r20"]


async def test_progress_deadline_exceeded() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment(progressDeadlineSeconds=60))
    await dc.sync(KEY)
    h.resync()
    await dc.sync(KEY)  # nothing changed: requeued for when the deadline passes
    assert dc.queue.waiting() == 1
    await h.clock.step(61)
    h.resync()
    await dc.sync(KEY)
    (rs_name,) = by_name(h)
    progressing = condition(h.stored(DEPLOYMENTS, "web"), "Progressing")
    assert (progressing["status"], progressing["reason"], progressing["message"]) == (
        "False",
        "ProgressDeadlineExceeded",
        f'ReplicaSet "{rs_name}" has timed out progressing.',
    )


async def test_progress_resets_the_deadline() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment(progressDeadlineSeconds=60, replicas=2))
    await dc.sync(KEY)
    await h.clock.step(50)
    rs = h.fake.all(REPLICASETS)[0]
    rs["status"] = {"replicas": 2, "readyReplicas": 1, "availableReplicas": 1}
    await h.fake.resource(REPLICASETS, NS).update_status(rs)
    h.resync()
    await dc.sync(KEY)
    assert condition(h.stored(DEPLOYMENTS, "web"), "Progressing")["reason"] == "ReplicaSetUpdated"
    await h.clock.step(30)
    h.resync()
    await dc.sync(KEY)
    assert condition(h.stored(DEPLOYMENTS, "web"), "Progressing")["reason"] == "ReplicaSetUpdated"


async def test_proportional_scaling_mid_rollout() -> None:
    h = Harness()
    dc = make(h)
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 2}}
    d = h.seed(DEPLOYMENTS, deployment(replicas=20, strategy=strategy))
    sizes = {"desired": "10", "max": "13"}
    old = owned_rs(d, "web-old", 8, "nginx:0", 1, availableReplicas=8)
    new = owned_rs(d, "web-new", 5, "nginx:1", 2)
    for rs in (old, new):
        rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = sizes["desired"]
        rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] = sizes["max"]
    new["metadata"]["creationTimestamp"] = "2021-01-01T00:00:00Z"
    h.seed(REPLICASETS, old)
    h.seed(REPLICASETS, new)
    await dc.sync(KEY)
    rss = by_name(h)
    assert (rss["web-old"]["spec"]["replicas"], rss["web-new"]["spec"]["replicas"]) == (14, 9)
    for rs in rss.values():
        assert rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "20"
        assert rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "23"
    assert "Normal ScalingReplicaSet Scaled up replica set web-old from 8 to 14" in h.recorder.events


async def test_adopts_orphan_replica_set_matching_selector() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment())
    orphan = replica_set("web-orphan", 0, labels={"app": "web", "pod-template-hash": "x"})
    orphan["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:0"
    h.seed(REPLICASETS, orphan)
    await dc.sync(KEY)
    (patch,) = [a for a in h.fake.filter_actions("patch", "replicasets")]
    assert patch.name == "web-orphan"
    assert patch.body["metadata"]["ownerReferences"][0]["kind"] == "Deployment"


async def test_status_update_conflict_is_retried() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment())
    await dc.sync(KEY)
    h.resync()
    await ready(h)
    await h.fake.resource(DEPLOYMENTS, NS).patch("web", {"metadata": {"labels": {"touched": "yes"}}})
    h.fake.clear_actions()
    await dc.sync(KEY)  # the cache's deployment is stale: the first status PUT conflicts
    updates = [a for a in h.fake.filter_actions("update", "deployments") if a.subresource == "status"]
    assert len(updates) == 2
    assert h.stored(DEPLOYMENTS, "web")["status"]["availableReplicas"] == 3


async def test_replica_set_create_error_is_returned_and_recorded() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment())
    h.fake.fail("create", "replicasets", ApiError(500, "InternalError", "boom"), times=1)
    try:
        await dc.sync(KEY)
    except ApiError as err:
        assert err.code == 500
    else:
        raise AssertionError("sync must fail")
    assert any(
        e.startswith("Warning ReplicaSetCreateError Failed to create new replica set")
        for e in h.recorder.events
    )


async def test_steady_state_sync_writes_nothing() -> None:
    h = Harness()
    dc = make(h)
    h.seed(DEPLOYMENTS, deployment())
    await dc.sync(KEY)
    await ready(h)
    await dc.sync(KEY)
    h.resync()
    assert h.stored(DEPLOYMENTS, "web")["metadata"]["annotations"][REV] == "1"
    h.fake.clear_actions()
    await dc.sync(KEY)
    writes = [a for a in h.fake.actions if a.verb in ("create", "update", "patch", "delete")]
    assert writes == []


async def test_a_sync_helper_runs_on_a_hand_built_context_without_a_controller() -> None:
    """The helpers need only their ``SyncContext``: one stuck rollout is requeued for when its
    progress deadline passes (20 s of 60 gone, plus a second), with nothing but a clock and a
    queue behind it."""
    h = Harness()
    queue: RateLimitingQueue[str] = RateLimitingQueue(clock=h.clock)
    ctx = SyncContext(h.fake, h.recorder, h.clock, queue, h.factory.informer(REPLICASETS).indexer)
    d = deployment(progressDeadlineSeconds=60)
    since = format_time(h.clock.now() - 20)
    progressing = {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}
    d["status"] = {"conditions": [{**progressing, "lastUpdateTime": since}]}
    assert requeue_stuck_deployment(ctx, d, {"replicas": 1, "updatedReplicas": 0}) == 41.0
    assert (len(queue), queue.waiting()) == (0, 1)  # added after 41 s, not now

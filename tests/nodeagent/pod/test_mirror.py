"""Mirror pods against the fake client: created, recreated, replaced, deleted; statuses of static
pods written to their mirror."""

from __future__ import annotations

import copy

from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import NODES, PODS
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.pod.mirror import CONFIG_MIRROR, MirrorPods, is_mirror_pod
from nodeagent.pod.staticpods import static_pod
from nodeagent.pod.statusmanager import StatusManager


def manifest(image: str = "busybox") -> Object:
    return {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": image}]}}


def setup() -> tuple[FakeClient, MirrorPods, list[str], str]:
    fake = FakeClient()
    (node,) = fake.seed(NODES, {"metadata": {"name": "node-1"}})
    woken: list[str] = []
    return (
        fake,
        MirrorPods(fake, "node-1", FakeClock(), on_mirror=woken.append),
        woken,
        node["metadata"]["uid"],
    )


def stored(fake: FakeClient) -> Object | None:
    return fake.stored(PODS, "default", "web-node-1")


async def test_a_static_pod_gets_a_mirror_owned_by_its_node() -> None:
    fake, mirrors, woken, node_uid = setup()
    pod = static_pod(manifest(), "node-1", "/m/web.yaml", 0.0)
    mirrors.set_static_pod(pod)
    await mirrors.reconcile()
    mirror = stored(fake)
    assert mirror is not None and is_mirror_pod(mirror)
    assert mirror["metadata"]["annotations"][CONFIG_MIRROR] == pod["metadata"]["uid"]
    assert mirror["metadata"]["annotations"]["kubernetes.io/config.source"] == "file"
    assert mirror["metadata"]["uid"] != pod["metadata"]["uid"]
    assert mirror["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": node_uid, "controller": True}
    ]
    assert mirror["spec"] == pod["spec"]
    assert woken == [pod["metadata"]["uid"]]
    assert mirrors.mirror_of(pod) == mirror
    fake.clear_actions()
    await mirrors.reconcile()
    assert fake.actions == []  # nothing to do


async def test_a_deleted_mirror_is_recreated() -> None:
    fake, mirrors, _, _ = setup()
    pod = static_pod(manifest(), "node-1", "/m/web.yaml", 0.0)
    mirrors.set_static_pod(pod)
    await mirrors.reconcile()
    first = stored(fake)
    assert first is not None
    deleting = copy.deepcopy(first)
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"  # kubectl delete (graceful)
    mirrors.handlers().on_update(first, deleting)
    assert mirrors.mirror_of(pod) is None
    await mirrors.reconcile()
    (delete,) = fake.filter_actions("delete", "pods")
    assert delete.body["gracePeriodSeconds"] == 0
    assert delete.body["preconditions"] == {"uid": first["metadata"]["uid"]}
    second = stored(fake)
    assert second is not None and second["metadata"]["uid"] != first["metadata"]["uid"]
    mirrors.handlers().on_delete(deleting)  # the informer's late event of the old one
    assert mirrors.mirror_of(pod) == second


async def test_a_changed_static_pod_replaces_its_mirror_and_a_removed_one_deletes_it() -> None:
    fake, mirrors, _, _ = setup()
    old = static_pod(manifest(), "node-1", "/m/web.yaml", 0.0)
    mirrors.set_static_pod(old)
    await mirrors.reconcile()
    new = static_pod(manifest("alpine"), "node-1", "/m/web.yaml", 0.0)
    mirrors.remove_static_pod(old)
    mirrors.set_static_pod(new)
    await mirrors.reconcile()
    replaced = stored(fake)
    assert replaced is not None
    assert replaced["metadata"]["annotations"][CONFIG_MIRROR] == new["metadata"]["uid"]
    assert replaced["spec"]["containers"][0]["image"] == "alpine"
    mirrors.remove_static_pod(new)
    await mirrors.reconcile()
    assert stored(fake) is None


async def test_orphaned_mirrors_of_this_node_only_are_deleted() -> None:
    fake, mirrors, _, _ = setup()
    for node in ("node-1", "node-2"):
        (pod,) = fake.seed(
            PODS,
            {
                "metadata": {
                    "name": f"old-{node}",
                    "namespace": "default",
                    "annotations": {CONFIG_MIRROR: "h"},
                },
                "spec": {"nodeName": node},
            },
        )
        mirrors.handlers().on_add(pod, False)
    (api_pod,) = fake.seed(
        PODS, {"metadata": {"name": "api", "namespace": "default"}, "spec": {"nodeName": "node-1"}}
    )
    mirrors.handlers().on_add(api_pod, False)
    await mirrors.reconcile()
    assert [(a.verb, a.name) for a in fake.actions if a.verb == "delete"] == [("delete", "old-node-1")]


async def test_without_the_node_no_mirror_is_created_until_it_registers() -> None:
    fake = FakeClient()
    mirrors = MirrorPods(fake, "node-1", FakeClock())
    mirrors.set_static_pod(static_pod(manifest(), "node-1", "/m/web.yaml", 0.0))
    await mirrors.reconcile()
    assert stored(fake) is None
    fake.seed(NODES, {"metadata": {"name": "node-1"}})
    await mirrors.reconcile()
    assert stored(fake) is not None


async def test_a_static_pods_status_goes_to_its_current_mirror() -> None:
    fake, mirrors, _, _ = setup()
    status_manager = StatusManager(fake)
    status_manager.use_mirror_pods(mirrors.mirror_of)
    pod = static_pod(manifest(), "node-1", "/m/web.yaml", 0.0)
    running = {"phase": "Running"}
    assert not await status_manager.set_pod_status(pod, running)  # no mirror yet
    mirrors.set_static_pod(pod)
    await mirrors.reconcile()
    assert await status_manager.set_pod_status(pod, running)
    mirror = stored(fake)
    assert mirror is not None and mirror["status"] == running
    (patch,) = fake.filter_actions("patch", "pods")
    assert patch.body["metadata"]["uid"] == mirror["metadata"]["uid"]
    assert not await status_manager.set_pod_status(pod, running)  # unchanged
    # the mirror is deleted and recreated: the new one (a new uid) gets the status again
    mirrors.handlers().on_delete(mirror)
    await fake.resource(PODS, "default").delete("web-node-1")
    await mirrors.reconcile()
    assert await status_manager.set_pod_status(pod, running)
    recreated = stored(fake)
    assert recreated is not None and recreated["status"] == running

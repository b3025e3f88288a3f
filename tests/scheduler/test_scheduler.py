"""The scheduling loop against FakeClient: informer handlers feed the queue and cache, one
``schedule_one`` binds, records events and explains; failures set ``PodScheduled=False``."""

from __future__ import annotations

import asyncio

from minikube_py.api.errors import ApiError
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.resourcetypes import NODES, PODS
from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from minikube_py.testing.fakeclient import FakeClient
from scheduler.app import build_scheduler
from scheduler.framework.config import default_profile
from scheduler.scheduler import NO_NODES_AVAILABLE, Scheduler
from tests.scheduler.builders import make_node, make_pod, taint


def scheduler_over(fake: FakeClient) -> tuple[Scheduler, FakeRecorder]:
    recorder = FakeRecorder()
    factory = SharedInformerFactory(fake, clock=FakeClock())
    return build_scheduler(fake, factory, [default_profile()], None, recorder, FakeClock()), recorder


async def schedule_next(scheduler: Scheduler) -> None:
    qpi = await asyncio.wait_for(scheduler.queue.pop(), 1)
    assert qpi is not None
    await scheduler.schedule_one(qpi)
    for _ in range(20):  # let the background binding cycle finish
        await asyncio.sleep(0)


def patched_condition(fake: FakeClient) -> dict[str, object]:
    [patch] = [a for a in fake.filter_actions("patch", "pods") if a.subresource == "status"]
    [condition] = patch.body["status"]["conditions"]
    return dict(condition)


async def test_a_pod_is_bound_to_the_node_that_fits_and_explained() -> None:
    fake = FakeClient()
    scheduler, recorder = scheduler_over(fake)
    for node in (
        make_node("small", cpu="1"),
        make_node("big", cpu="8"),
        make_node("tainted", taints=[taint("x")]),
    ):
        fake.seed(NODES, node)
        scheduler.handlers.node_added(fake.stored(NODES, "", node["metadata"]["name"]) or {})
    pod = fake.seed(PODS, make_pod("web", cpu="2"))[0]
    scheduler.handlers.pod_added(pod)
    await schedule_next(scheduler)
    [binding] = [a for a in fake.filter_actions("create", "pods") if a.subresource == "binding"]
    assert binding.body["target"]["name"] == "big"
    assert recorder.events == ["Normal Scheduled Successfully assigned default/web to big"]
    explained = scheduler.explain("default", "web")
    assert explained is not None and explained["selectedNode"] == "big"
    assert explained["filter"]["small"] == {
        "code": "UnschedulableAndUnresolvable",  # asks more than the node has at all
        "plugin": "NodeResourcesFit",
        "reasons": ["Insufficient cpu"],
    }
    assert explained["filter"]["tainted"]["plugin"] == "TaintToleration"


async def test_without_nodes_the_pod_is_unschedulable_with_upstreams_message() -> None:
    fake = FakeClient()
    scheduler, recorder = scheduler_over(fake)
    pod = fake.seed(PODS, make_pod("lonely"))[0]
    scheduler.handlers.pod_added(pod)
    await schedule_next(scheduler)
    assert recorder.events == [f"Warning FailedScheduling {NO_NODES_AVAILABLE}"]
    condition = patched_condition(fake)
    assert (condition["type"], condition["status"], condition["reason"], condition["message"]) == (
        "PodScheduled",
        "False",
        "Unschedulable",
        NO_NODES_AVAILABLE,
    )
    assert not [a for a in fake.filter_actions("create", "pods") if a.subresource == "binding"]


async def test_a_pod_of_another_scheduler_never_enters_the_queue() -> None:
    fake = FakeClient()
    scheduler, _ = scheduler_over(fake)
    scheduler.handlers.pod_added(
        make_pod("theirs") | {"spec": {**make_pod("theirs")["spec"], "schedulerName": "other"}}
    )
    assert scheduler.queue.pending_pods()[0] == []


async def test_a_pod_that_fits_nowhere_names_each_reason() -> None:
    fake = FakeClient()
    scheduler, recorder = scheduler_over(fake)
    for node in (make_node("a", cpu="1"), make_node("b", taints=[taint("dedicated", "gpu")])):
        fake.seed(NODES, node)
        scheduler.handlers.node_added(node)
    pod = fake.seed(PODS, make_pod("big", cpu="4"))[0]
    scheduler.handlers.pod_added(pod)
    await schedule_next(scheduler)
    message = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}."
    assert recorder.events[0].startswith(f"Warning FailedScheduling {message}")
    assert str(patched_condition(fake)["message"]).startswith(message)


async def test_a_binding_conflict_forgets_the_pod_and_moves_on() -> None:
    """Bad input: the pod was bound by someone else meanwhile (409): the assumed pod is
    forgotten, nothing is recorded as a failure, and the next pod is scheduled."""
    fake = FakeClient()
    scheduler, recorder = scheduler_over(fake)
    node = fake.seed(NODES, make_node("n1"))[0]
    scheduler.handlers.node_added(node)
    first, second = fake.seed(PODS, make_pod("taken"), make_pod("next"))
    conflict = ApiError(
        409,
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "taken": pod taken is already assigned',
    )
    fake.fail("create", "pods", conflict, times=1)
    scheduler.handlers.pod_added(first)
    scheduler.handlers.pod_added(second)
    await schedule_next(scheduler)
    assert not scheduler.cache.is_assumed(first | {"spec": {**first["spec"], "nodeName": "n1"}})
    assert recorder.events == []
    await schedule_next(scheduler)
    assert recorder.events == ["Normal Scheduled Successfully assigned default/next to n1"]
    assert scheduler.queue.pending_pods()[0] == []


async def test_an_impossible_affinity_and_a_node_without_allocatable_say_why() -> None:
    """Bad input: a node affinity no node matches, and a node reporting no allocatable
    resources: the pod stays pending and the message names both reasons."""
    fake = FakeClient()
    scheduler, recorder = scheduler_over(fake)
    empty = make_node("empty")
    empty["status"].pop("allocatable", None)
    for node in (make_node("n1"), empty):
        fake.seed(NODES, node)
        scheduler.handlers.node_added(node)
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["mars"]}]}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    picky = fake.seed(PODS, make_pod("picky", affinity=affinity))[0]
    plain = fake.seed(PODS, make_pod("plain"))[0]
    scheduler.handlers.pod_added(picky)
    scheduler.handlers.pod_added(plain)
    await schedule_next(scheduler)
    await schedule_next(scheduler)
    failed = {e.split(" ", 2)[2] for e in recorder.events if e.startswith("Warning FailedScheduling")}
    assert any(
        m.startswith("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.")
        for m in failed
    )
    assert "Normal Scheduled Successfully assigned default/plain to n1" in recorder.events
    explained = scheduler.explain("default", "plain")
    assert explained is not None and explained["filter"]["empty"]["reasons"] == ["Too many pods"]

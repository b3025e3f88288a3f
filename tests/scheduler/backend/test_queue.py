"""SchedulingQueue: ordering, gating, backoff, event-driven moves, flushes, in-flight pods."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from minikube_py.api.unstructured import Object
from minikube_py.clock import FakeClock
from scheduler.backend.queue import SchedulingQueue
from scheduler.framework.status import Code, Status
from scheduler.framework.types import ActionType, ClusterEvent, PodInfo, QueuedPodInfo
from tests.scheduler.builders import make_pod

NODE_ADD = ClusterEvent("Node", ActionType.ADD, "NodeAdd")
NODE_LABEL = ClusterEvent("Node", ActionType.UPDATE_NODE_LABEL, "NodeUpdate")
NODE_TAINT = ClusterEvent("Node", ActionType.UPDATE_NODE_TAINT, "NodeUpdate")
EVENTS = {
    "NodeResourcesFit": [ClusterEvent("Node", ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE)],
    "NodeAffinity": [ClusterEvent("Node", ActionType.ADD | ActionType.UPDATE_NODE_LABEL)],
    "InterPodAffinity": [ClusterEvent("Pod", ActionType.ALL)],
    "Silent": [],
}


def less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    pa, pb = a.pod["spec"].get("priority") or 0, b.pod["spec"].get("priority") or 0
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


def gates(pod: Object) -> Status:
    if pod["spec"].get("schedulingGates"):
        return Status(Code.PENDING, ("waiting for scheduling gates",), "SchedulingGates")
    return Status()


def make_queue(clock: FakeClock, **kwargs: Any) -> SchedulingQueue:
    return SchedulingQueue(
        less, clock=clock, pre_enqueue=gates, events_of=lambda p: EVENTS.get(p, []), **kwargs
    )


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def reject(q: SchedulingQueue, *plugins: str, move_during_cycle: bool = False) -> QueuedPodInfo:
    """Pop the head, fail it with ``plugins``, and hand it back as the scheduler would."""
    qpi = await q.pop()
    assert qpi is not None
    cycle = q.scheduling_cycle()
    if move_during_cycle:
        q.move_all_to_active_or_backoff(NODE_TAINT)
    qpi.unschedulable_plugins.update(plugins)
    q.add_unschedulable_if_not_present(qpi, cycle)
    q.done(qpi.key)
    return qpi


async def test_pops_by_priority_then_first_in_first_out() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    for name, priority in [("a", 0), ("b", 10), ("c", 0), ("d", 10), ("e", 5)]:
        q.add(make_pod(name, priority=priority))
    names = []
    for _ in range(5):
        qpi = await q.pop()
        assert qpi is not None
        names.append(qpi.pod["metadata"]["name"])
    assert names == ["b", "d", "e", "a", "c"]


async def test_fifo_follows_timestamps_not_insertion() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    first = make_pod("first")
    q.add(first)
    await clock.step(1)
    q.add(make_pod("second"))
    q.update(first, make_pod("first", labels={"x": "y"}))  # pushed again, keeps its timestamp
    qpi = await q.pop()
    assert qpi is not None and qpi.key == "default/first"


async def test_pop_waits_for_a_pod_and_tracks_attempts() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    waiter = asyncio.create_task(q.pop())
    await settle()
    assert not waiter.done()
    q.add(make_pod("a"))
    qpi = await waiter
    assert qpi is not None
    assert (qpi.attempts, qpi.initial_attempt_timestamp) == (1, clock.now())
    assert q.scheduling_cycle() == 1
    assert q.where("default/a") == "inFlight"
    q.done("default/a")
    assert q.where("default/a") is None


async def test_close_makes_pop_return_none() -> None:
    q = make_queue(FakeClock())
    waiter = asyncio.create_task(q.pop())
    await settle()
    q.close()
    assert await waiter is None
    q.add(make_pod("a"))
    assert await q.pop() is None


async def test_assigned_pods_never_enter() -> None:
    q = make_queue(FakeClock())
    q.add(make_pod("a", node_name="n1"))
    assert q.pending_pods() == ([], "activeQ:0 backoffQ:0 unschedulablePods:0")


async def test_gated_pod_waits_until_its_gates_are_removed() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    gated = make_pod("a", scheduling_gates=["example.com/wait"])
    q.add(gated)
    assert q.where("default/a") == "unschedulablePods"
    assert q.pending_pods()[1] == "activeQ:0 backoffQ:0 unschedulablePods:1"
    q.move_all_to_active_or_backoff(NODE_ADD)  # SchedulingGates registered no events
    assert q.where("default/a") == "unschedulablePods"
    with_status = {**gated, "status": {"conditions": [{"type": "PodScheduled", "status": "False"}]}}
    q.update(gated, with_status)
    assert q.where("default/a") == "unschedulablePods"
    ungated = make_pod("a")
    q.update(with_status, ungated)
    assert q.where("default/a") == "activeQ"
    qpi = await q.pop()
    assert qpi is not None and qpi.attempts == 1 and not qpi.pending_plugins


async def test_backoff_doubles_from_one_second_up_to_ten() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    waited = []
    for _ in range(6):
        await reject(q, "NodeResourcesFit", move_during_cycle=True)
        assert q.where("default/a") == "backoffQ"
        start = clock.now()
        while q.where("default/a") == "backoffQ":
            await clock.step(0.5)
            q.flush_backoff_q_completed()
        waited.append(clock.now() - start)
        assert q.where("default/a") == "activeQ"
    assert waited == [1, 2, 4, 8, 10, 10]


def test_custom_backoff_bounds() -> None:
    q = make_queue(FakeClock(), initial_backoff=0.5, max_backoff=3.0)
    qpi = QueuedPodInfo(PodInfo.of(make_pod("a")), timestamp=100.0)
    expiries = []
    for attempts in range(1, 6):
        qpi.attempts = attempts
        expiries.append(q.backoff_expiry(qpi) - 100.0)
    assert expiries == [0.5, 1.0, 2.0, 3.0, 3.0]


async def test_run_flushes_backoff_every_second() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    runner = asyncio.create_task(q.run())
    await settle()
    q.add(make_pod("a"))
    await reject(q, "NodeResourcesFit", move_during_cycle=True)
    assert q.where("default/a") == "backoffQ"
    await clock.step(1)
    assert q.where("default/a") == "activeQ"
    q.close()
    await asyncio.wait_for(runner, 1)


async def test_event_moves_only_pods_whose_plugins_registered_it() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    for name in ("fit", "affinity", "unknown", "silent"):
        q.add(make_pod(name))
    await reject(q, "NodeResourcesFit")
    await reject(q, "NodeAffinity")
    await reject(q)  # no plugin recorded: any event moves it
    await reject(q, "Silent")
    await clock.step(20)  # every backoff has ended: moved pods go straight to activeQ
    assert q.pending_pods()[1] == "activeQ:0 backoffQ:0 unschedulablePods:4"

    q.move_all_to_active_or_backoff(NODE_TAINT)
    assert q.where("default/unknown") == "activeQ"
    assert q.pending_pods()[1] == "activeQ:1 backoffQ:0 unschedulablePods:3"

    q.move_all_to_active_or_backoff(NODE_LABEL)
    assert q.where("default/affinity") == "activeQ"
    assert q.where("default/fit") == "unschedulablePods"

    q.move_all_to_active_or_backoff(NODE_ADD)
    assert q.where("default/fit") == "activeQ"
    assert q.where("default/silent") == "unschedulablePods"


async def test_moved_pod_still_backing_off_goes_to_backoff_queue() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    await reject(q, "NodeResourcesFit")
    await clock.step(0.5)
    q.move_all_to_active_or_backoff(NODE_ADD)
    assert q.where("default/a") == "backoffQ"
    await clock.step(0.5)
    q.flush_backoff_q_completed()
    assert q.where("default/a") == "activeQ"


async def test_unschedulable_pods_are_flushed_after_five_minutes() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    runner = asyncio.create_task(q.run())
    await settle()
    q.add(make_pod("a"))
    await reject(q, "Silent")
    for _ in range(10):  # 300 s: not yet more than the timeout
        await clock.step(30)
    assert q.where("default/a") == "unschedulablePods"
    await clock.step(30)
    assert q.where("default/a") == "activeQ"
    q.close()
    await asyncio.wait_for(runner, 1)


async def test_move_request_during_the_cycle_sends_the_pod_to_backoff() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    q.add(make_pod("b"))
    q.move_all_to_active_or_backoff(NODE_ADD)  # before either cycle: does not count
    await reject(q, "NodeResourcesFit")
    assert q.where("default/a") == "unschedulablePods"
    await reject(q, "NodeResourcesFit", move_during_cycle=True)
    assert q.where("default/b") == "backoffQ"


async def test_delete_removes_from_every_sub_queue() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    for name in ("unsched", "backoff", "inflight", "active"):
        q.add(make_pod(name))
    q.add(make_pod("gated", scheduling_gates=["g"]))
    await reject(q, "NodeResourcesFit")
    await reject(q, "NodeResourcesFit", move_during_cycle=True)
    inflight = await q.pop()
    assert inflight is not None
    assert q.pending_pods()[1] == "activeQ:1 backoffQ:1 unschedulablePods:2"
    for name in ("unsched", "backoff", "inflight", "active", "gated"):
        q.delete(make_pod(name))
    assert q.pending_pods() == ([], "activeQ:0 backoffQ:0 unschedulablePods:0")
    q.add_unschedulable_if_not_present(inflight, q.scheduling_cycle())  # deleted meanwhile
    assert q.where("default/inflight") is None


async def test_update_in_flight_is_kept_and_requeues_with_backoff() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    old = make_pod("a")
    q.add(old)
    qpi = await q.pop()
    assert qpi is not None
    new = make_pod("a", labels={"tier": "web"})
    q.update(old, new)
    assert q.where("default/a") == "inFlight"
    qpi.unschedulable_plugins.add("NodeResourcesFit")
    q.add_unschedulable_if_not_present(qpi, q.scheduling_cycle())
    assert q.where("default/a") == "backoffQ"
    assert qpi.pod["metadata"]["labels"] == {"tier": "web"}


async def test_spec_update_frees_an_unschedulable_pod_but_status_update_does_not() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    old = make_pod("a")
    q.add(old)
    await reject(q, "NodeResourcesFit")
    status_only = {**old, "status": {"conditions": [{"type": "PodScheduled", "status": "False"}]}}
    q.update(old, status_only)
    assert q.where("default/a") == "unschedulablePods"
    relabelled = {**status_only, "metadata": {**old["metadata"], "labels": {"x": "y"}}}
    q.update(status_only, relabelled)
    assert q.where("default/a") == "backoffQ"  # updated within its backoff
    await clock.step(1)
    q.flush_backoff_q_completed()
    qpi = await q.pop()
    assert qpi is not None and qpi.pod["metadata"]["labels"] == {"x": "y"}


async def test_update_in_active_queue_resorts() -> None:
    q = make_queue(FakeClock())
    a, b = make_pod("a"), make_pod("b")
    q.add(a)
    q.add(b)
    q.update(b, make_pod("b", priority=100))
    qpi = await q.pop()
    assert qpi is not None and qpi.key == "default/b"


async def test_pod_becoming_assigned_leaves_the_queue() -> None:
    q = make_queue(FakeClock())
    pod = make_pod("a")
    q.add(pod)
    q.update(pod, make_pod("a", node_name="n1"))
    assert q.where("default/a") is None


async def test_assigned_pod_add_moves_only_pods_it_could_help() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    q.add(make_pod("wants-db", affinity=affinity))
    q.add(make_pod("other"))
    await reject(q, "InterPodAffinity")
    await reject(q, "InterPodAffinity")
    await clock.step(20)
    q.assigned_pod_added(make_pod("web", labels={"app": "web"}, node_name="n1"))
    assert q.pending_pods()[1] == "activeQ:0 backoffQ:0 unschedulablePods:2"
    q.assigned_pod_added(make_pod("db", labels={"app": "db"}, namespace="elsewhere", node_name="n1"))
    assert q.pending_pods()[1] == "activeQ:0 backoffQ:0 unschedulablePods:2"
    q.assigned_pod_added(make_pod("db", labels={"app": "db"}, node_name="n1"))
    assert q.where("default/wants-db") == "activeQ"
    assert q.where("default/other") == "unschedulablePods"


async def test_assigned_pod_scale_down_moves_fit_rejected_pods() -> None:
    clock = FakeClock()
    events = {"NodeResourcesFit": [ClusterEvent("Pod", ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN)]}
    q = SchedulingQueue(less, clock=clock, events_of=lambda p: events.get(p, []))
    q.add(make_pod("a"))
    await reject(q, "NodeResourcesFit")
    await clock.step(20)
    q.assigned_pod_updated(make_pod("x", node_name="n", cpu="1"), make_pod("x", node_name="n", cpu="1"))
    assert q.where("default/a") == "unschedulablePods"
    q.assigned_pod_updated(make_pod("x", node_name="n", cpu="1"), make_pod("x", node_name="n", cpu="500m"))
    assert q.where("default/a") == "activeQ"


async def test_pop_clears_the_plugins_of_the_last_attempt() -> None:
    clock = FakeClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    first = await reject(q, "NodeResourcesFit", move_during_cycle=True)
    started = first.initial_attempt_timestamp
    await clock.step(1)
    q.flush_backoff_q_completed()
    again = await q.pop()
    assert again is first
    assert (again.attempts, again.unschedulable_plugins, again.initial_attempt_timestamp) == (
        2,
        set(),
        started,
    )


@pytest.mark.parametrize("count", [2000])
async def test_many_pods_pop_in_order(count: int) -> None:
    q = make_queue(FakeClock())
    for i in range(count):
        q.add(make_pod(f"p{i}", priority=i % 7))
    priorities = []
    for _ in range(count):
        qpi = await q.pop()
        assert qpi is not None
        priorities.append(qpi.pod["spec"]["priority"])
    assert priorities == sorted(priorities, reverse=True)

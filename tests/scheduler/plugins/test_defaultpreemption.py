"""DefaultPreemption over the default profile's filters, with a FakeClient: who the victims are,
which node is chosen, what is written (DisruptionTarget, DELETE, Preempted events, cleared
nominations) and upstream's messages when preemption cannot help; then the scheduling loop:
the preemptor is nominated, holds its room against lower-priority pods, and is bound."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.resourcetypes import NODES, PODS
from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder as LoopRecorder
from minikube_py.testing.fakeclient import FakeClient
from scheduler.app import build_scheduler
from scheduler.framework.config import ConfigError, default_profile
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.feasible import find_nodes_that_fit_pod, fit_error_message
from scheduler.framework.interface import PostFilterResult
from scheduler.framework.registry import Registry
from scheduler.framework.runtime import Framework
from scheduler.framework.status import Code, Status
from scheduler.framework.types import NodeInfo
from scheduler.plugins.defaultpreemption import DefaultPreemption, Nominator
from scheduler.plugins.defaultpreemption.plugin import Candidate, select_candidate
from scheduler.plugins.registry import in_tree_registry
from tests.scheduler.builders import FakeRecorder, make_handle, make_node, make_pod, node_info


class Setup:
    """Nodes holding pods (also stored in a FakeClient), the default profile's framework, and
    its DefaultPreemption plugin."""

    def __init__(self, *nodes: tuple[Object, list[Object]], nominator: Nominator | None = None) -> None:
        self.fake = FakeClient()
        infos: list[NodeInfo] = []
        for node, pods in nodes:
            name = node["metadata"]["name"]
            placed = [{**pod, "spec": {**pod["spec"], "nodeName": name}} for pod in pods]
            if placed:
                self.fake.seed(PODS, *placed)
            infos.append(node_info(node, *placed))
        self.nodes = infos
        handle = make_handle(infos, self.fake)
        if nominator is not None:
            handle.nominator = nominator
        self.recorder = handle.recorder
        assert isinstance(self.recorder, FakeRecorder)
        self.fw = Framework(default_profile(), Registry(in_tree_registry()), handle)
        self.plugin = self.fw.plugins["DefaultPreemption"]
        assert isinstance(self.plugin, DefaultPreemption)

    async def post_filter(self, pod: Object) -> tuple[PostFilterResult | None, Status, str]:
        """Filter ``pod`` everywhere, run PostFilter; also the FailedScheduling message."""
        state = CycleState()
        fit = find_nodes_that_fit_pod(self.fw, state, pod, self.nodes, 0, None)
        assert not fit.feasible
        result, status = await self.fw.run_post_filter(state, pod, fit.diagnosis.statuses)
        return result, status, fit.diagnosis.message(len(self.nodes), status.message())

    def deleted(self) -> list[str]:
        return sorted(a.name for a in self.fake.filter_actions("delete", "pods"))

    def status_patches(self) -> list[tuple[str, Any]]:
        return [
            (a.name, a.body) for a in self.fake.filter_actions("patch", "pods") if a.subresource == "status"
        ]


def low(name: str, priority: int, cpu: str = "1", **kwargs: Any) -> Object:
    return make_pod(name, cpu=cpu, priority=priority, **kwargs)


async def test_a_high_priority_pod_preempts_only_as_many_of_the_lowest_as_needed() -> None:
    setup = Setup(
        (
            make_node("n1", cpu="4"),
            [low("p10", 10), low("p5", 5), low("p1a", 1), low("p1b", 1)],
        )
    )
    high = make_pod("high", cpu="2", priority=100)
    result, status, message = await setup.post_filter(high)
    assert status.is_success() and result == PostFilterResult("n1")
    assert message == "0/1 nodes are available: 1 Insufficient cpu."
    assert setup.deleted() == ["p1a", "p1b"]  # p10 and p5 are reprieved
    patches = dict(setup.status_patches())
    assert set(patches) == {"p1a", "p1b"}
    [condition] = patches["p1a"]["status"]["conditions"]
    assert {k: condition[k] for k in ("type", "status", "reason", "message")} == {
        "type": "DisruptionTarget",
        "status": "True",
        "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod",
    }
    assert setup.fake.stored(PODS, "default", "p1a") is None
    assert setup.fake.stored(PODS, "default", "p10") is not None
    assert sorted(setup.recorder.events) == [
        ("Normal", "Preempted", "Preempted by pod uid-default-high on node n1"),
        ("Normal", "Preempted", "Preempted by pod uid-default-high on node n1"),
    ]


async def test_victims_are_the_least_important_and_the_latest_started_first() -> None:
    older = low("older", 1, cpu="2") | {"status": {"startTime": "2024-01-01T00:00:00Z"}}
    newer = low("newer", 1, cpu="2") | {"status": {"startTime": "2024-06-01T00:00:00Z"}}
    setup = Setup((make_node("n1", cpu="4"), [newer, older]))
    result, status, _ = await setup.post_filter(make_pod("high", cpu="2", priority=5))
    assert status.is_success() and result == PostFilterResult("n1")
    assert setup.deleted() == ["newer"]  # the earlier-started one is more important


async def test_pods_of_equal_or_higher_priority_are_never_victims() -> None:
    setup = Setup((make_node("n1", cpu="3"), [low("same", 100), low("above", 200), low("below", 1)]))
    result, status, message = await setup.post_filter(make_pod("high", cpu="2", priority=100))
    assert status.code == Code.UNSCHEDULABLE and result is None
    assert message == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 Insufficient cpu."
    )
    assert setup.deleted() == [] and setup.recorder.events == []


async def test_nothing_to_preempt_gives_upstreams_message() -> None:
    setup = Setup((make_node("n1", cpu="1"), [low("same", 0)]))
    result, status, message = await setup.post_filter(make_pod("p", cpu="500m"))
    assert status.code == Code.UNSCHEDULABLE and result is None
    assert message == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


async def test_preemption_policy_never_does_nothing() -> None:
    setup = Setup((make_node("n1", cpu="1"), [low("victim", 0)]))
    pod = make_pod("high", cpu="1", priority=100)
    pod["spec"]["preemptionPolicy"] = "Never"
    result, status, message = await setup.post_filter(pod)
    assert result is None and status.code == Code.UNSCHEDULABLE
    assert status.reasons == ("preemption: not eligible due to preemptionPolicy=Never.",)
    assert message.endswith(". preemption: not eligible due to preemptionPolicy=Never.")
    assert setup.fake.filter_actions("delete") == [] and setup.fake.filter_actions("patch") == []


async def test_unresolvable_nodes_are_not_candidates() -> None:
    setup = Setup(
        (make_node("elsewhere", cpu="1"), [low("cheap", 0)]),  # node affinity mismatch: not helpful
        (make_node("pool", cpu="1", labels={"pool": "x"}), [low("peer", 100)]),
    )
    pod = make_pod("high", cpu="1", priority=100, node_selector={"pool": "x"})
    result, status, message = await setup.post_filter(pod)
    assert result is None and status.code == Code.UNSCHEDULABLE
    assert message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling."
    )
    assert setup.deleted() == []


async def test_the_node_with_lower_victim_priority_wins_then_fewer_victims() -> None:
    setup = Setup(
        (make_node("a", cpu="2"), [low("a-mid", 50, cpu="2")]),
        (make_node("b", cpu="2"), [low("b-low1", 1), low("b-low2", 1)]),
        (make_node("c", cpu="2"), [low("c-low", 1, cpu="2")]),
    )
    result, status, _ = await setup.post_filter(make_pod("high", cpu="2", priority=100))
    assert status.is_success() and result == PostFilterResult("c")  # lowest priority, then one victim
    assert setup.deleted() == ["c-low"]


def test_select_candidate_criteria_in_order() -> None:
    def pod(name: str, priority: int, start: str = "") -> Object:
        out = make_pod(name, priority=priority)
        if start:
            out["status"] = {"startTime": start}
        return out

    def pick(*candidates: Candidate) -> str:
        return select_candidate(list(candidates)).name

    assert pick(Candidate("x", [pod("1", 5)], 1), Candidate("y", [pod("2", 9)], 0)) == "y"
    assert pick(Candidate("x", [pod("1", 5)]), Candidate("y", [pod("2", 1), pod("3", 1)])) == "y"
    assert pick(Candidate("x", [pod("1", 1), pod("2", 0)]), Candidate("y", [pod("3", 1)])) == "y"
    assert pick(Candidate("x", [pod("1", -5), pod("2", -5)]), Candidate("y", [pod("3", -5)])) == "y"
    early, late = "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"
    assert pick(Candidate("x", [pod("1", 1, early)]), Candidate("y", [pod("2", 1, late)])) == "y"
    assert pick(Candidate("x", [pod("1", 1, late)]), Candidate("y", [pod("2", 1, late)])) == "x"


async def test_a_terminating_victim_on_the_nominated_node_means_wait() -> None:
    going = low("going", 0, deleting=True) | {
        "status": {
            "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]
        }
    }
    setup = Setup((make_node("n1", cpu="1"), [going]))
    pod = make_pod("high", cpu="1", priority=100) | {"status": {"nominatedNodeName": "n1"}}
    result, status, _ = await setup.post_filter(pod)
    assert result is None
    assert status.reasons == ("preemption: not eligible due to a terminating pod on the nominated node.",)
    assert setup.fake.filter_actions("delete") == []


async def test_lower_priority_nominations_on_the_chosen_node_are_cleared() -> None:
    nominator = Nominator()
    waiting = make_pod("waiting", cpu="1", priority=10) | {"status": {"nominatedNodeName": "n1"}}
    senior = make_pod("senior", cpu="1", priority=1000) | {"status": {"nominatedNodeName": "n2"}}
    nominator.add_pod(waiting)
    nominator.add_pod(senior)
    setup = Setup((make_node("n1", cpu="2"), [low("victim", 0, cpu="2")]), nominator=nominator)
    setup.fake.seed(PODS, waiting, senior)
    result, status, _ = await setup.post_filter(make_pod("high", cpu="1", priority=100))
    assert status.is_success() and result == PostFilterResult("n1")
    assert ("waiting", {"status": {"nominatedNodeName": None}}) in setup.status_patches()
    assert "senior" not in dict(setup.status_patches())


async def test_nominated_pods_of_higher_priority_count_when_choosing_victims() -> None:
    nominator = Nominator()
    nominator.nominate(make_pod("senior", cpu="2", priority=1000), "n1")
    setup = Setup((make_node("n1", cpu="4"), [low("v1", 0), low("v2", 0)]), nominator=nominator)
    result, status, _ = await setup.post_filter(make_pod("high", cpu="3", priority=100))
    # 2 cpu are held for "senior": even without v1 and v2 the 3 cpu do not fit
    assert result is None and status.code == Code.UNSCHEDULABLE
    assert setup.deleted() == []


def test_candidate_count_and_args() -> None:
    plugin = DefaultPreemption({}, make_handle())
    assert [plugin.num_candidates(n) for n in (5, 100, 5000)] == [5, 100, 500]
    assert DefaultPreemption({"minCandidateNodesAbsolute": 0}, make_handle()).num_candidates(50) == 5
    for bad in (
        {"minCandidateNodesPercentage": 101},
        {"minCandidateNodesAbsolute": -1},
        {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
        {"minCandidateNodesPercentage": "x"},
    ):
        with pytest.raises(ConfigError):
            DefaultPreemption(bad, make_handle())


# -- the scheduling loop -------------------------------------------------------------------


async def schedule_next(scheduler: Any) -> None:
    qpi = await asyncio.wait_for(scheduler.queue.pop(), 2)
    assert qpi is not None
    await scheduler.schedule_one(qpi)
    for _ in range(20):
        await asyncio.sleep(0)


async def test_the_loop_nominates_the_preemptor_keeps_its_room_and_binds_it() -> None:
    fake = FakeClient()
    recorder = LoopRecorder()
    clock = FakeClock()
    factory = SharedInformerFactory(fake, clock=clock)
    scheduler = build_scheduler(fake, factory, [default_profile()], None, recorder, clock)
    node = make_node("n1", cpu="1")
    fake.seed(NODES, node)
    scheduler.handlers.node_added(node)
    for name in ("low-a", "low-b"):
        [placed] = fake.seed(PODS, make_pod(name, cpu="400m", node_name="n1", priority=0))
        scheduler.handlers.pod_added(placed)
    [high] = fake.seed(PODS, make_pod("high", cpu="600m", priority=1000))
    scheduler.handlers.pod_added(high)
    await schedule_next(scheduler)

    [victim] = [a.name for a in fake.filter_actions("delete", "pods")]
    assert victim in ("low-a", "low-b")
    [own] = [a.body for a in fake.filter_actions("patch", "pods") if a.name == "high"]
    assert own["status"]["nominatedNodeName"] == "n1"
    assert own["status"]["conditions"][0]["message"] == "0/1 nodes are available: 1 Insufficient cpu."
    assert "Normal Preempted Preempted by pod uid-default-high on node n1" in recorder.events
    assert scheduler.explain("default", "high")["nominatedNode"] == "n1"  # type: ignore[index]

    # what the informers would report: the victim gone (the preemptor backs off), a replacement
    scheduler.handlers.pod_deleted(make_pod(victim, cpu="400m", node_name="n1", priority=0))
    [replacement] = fake.seed(PODS, make_pod("low-c", cpu="400m", priority=0))
    scheduler.handlers.pod_added(replacement)
    await schedule_next(scheduler)  # the replacement: n1's free room is held for "high"
    assert scheduler.explain("default", "low-c") is not None
    assert not [a for a in fake.filter_actions("create", "pods") if a.name == "low-c"]
    assert scheduler.explain("default", "low-c")["message"].startswith(  # type: ignore[index]
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod."
    )

    nominated = fake.stored(PODS, "default", "high")
    assert nominated is not None and nominated["status"]["nominatedNodeName"] == "n1"
    scheduler.handlers.pod_updated(high, nominated)
    await clock.step(2)  # high's backoff
    scheduler.queue.flush_backoff_q_completed()
    await schedule_next(scheduler)
    [binding] = [a for a in fake.filter_actions("create", "pods") if a.subresource == "binding"]
    assert binding.name == "high" and binding.body["target"]["name"] == "n1"
    assert scheduler.nominator.node_of(nominated) == ""


def test_fit_error_message_appends_the_preemption_message() -> None:
    statuses = {"n1": Status.unschedulable("Insufficient cpu")}
    assert (
        fit_error_message(1, statuses, "preemption: x")
        == "0/1 nodes are available: 1 Insufficient cpu. preemption: x"
    )


def spread(max_skew: int = 1) -> list[Object]:
    return [
        {
            "maxSkew": max_skew,
            "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]


def feasible_names(setup: Setup, pod: Object, nominator: Nominator) -> list[str]:
    fit = find_nodes_that_fit_pod(
        setup.fw, CycleState(), pod, setup.nodes, 0, None, nominator.pods_to_count(pod)
    )
    return sorted(node.name for node in fit.feasible)


def test_pod_topology_spread_counts_pods_nominated_to_a_node() -> None:
    """Upstream RunFilterPluginsWithNominatedPods: the PreFilter state is told of the nominated
    pods (AddPod), so spreading sees them, not only the resource and port filters."""
    nominator = Nominator()
    nominator.nominate(make_pod("senior", labels={"app": "web"}, priority=1000), "n1")
    setup = Setup((make_node("n1"), []), (make_node("n2"), []), nominator=nominator)
    web = make_pod("web", labels={"app": "web"}, topology_spread=spread(), priority=100)
    assert feasible_names(setup, web, nominator) == ["n2"]  # n1 would be 2 against 0
    assert feasible_names(setup, web, Nominator()) == ["n1", "n2"]  # nothing nominated
    junior = make_pod("junior", labels={"app": "web"}, topology_spread=spread(), priority=2000)
    assert feasible_names(setup, junior, nominator) == ["n1", "n2"]  # lower priority: not counted


def test_a_node_must_also_fit_without_the_nominated_pods() -> None:
    """The second pass: a pod whose required affinity only a nominated pod satisfies does not
    count on it (the nominated pod may never arrive)."""
    nominator = Nominator()
    nominator.nominate(make_pod("db", labels={"app": "db"}, priority=1000), "n1")
    setup = Setup((make_node("n1"), []), (make_node("n2"), []), nominator=nominator)
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
    follower = make_pod(
        "follower",
        affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
        priority=100,
    )
    fit = find_nodes_that_fit_pod(
        setup.fw, CycleState(), follower, setup.nodes, 0, None, nominator.pods_to_count(follower)
    )
    assert fit.feasible == []
    assert "didn't match pod affinity rules" in fit.diagnosis.statuses["n1"].message()

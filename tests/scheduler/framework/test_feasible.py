"""Feasible nodes (how many, from where), the FitError message, and host selection."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from scheduler.framework.cyclestate import CycleState
from scheduler.framework.feasible import (
    SchedulingError,
    find_nodes_that_fit,
    find_nodes_that_fit_pod,
    fit_error_message,
    num_feasible_nodes_to_find,
    select_host,
)
from scheduler.framework.interface import PreFilterResult
from scheduler.framework.status import SUCCESS, Code, Status
from scheduler.framework.types import NodeInfo
from tests.scheduler.framework.stubs import POD, build, make_handle, nodes, plugin


@pytest.mark.parametrize(
    ("num_nodes", "percentage", "expected"),
    [
        (0, None, 0),
        (50, None, 50),
        (99, 10, 99),  # under 100 nodes: all of them
        (100, None, 100),  # 50% of 100 is 50, but never fewer than 100
        (1000, None, 420),  # adaptive: 50 - 1000/125 = 42%
        (1000, 0, 420),  # 0 means adaptive too
        (1000, 30, 300),
        (1000, 5, 100),  # 50 < the minimum of 100
        (1000, 100, 1000),
        (5000, None, 500),  # 50 - 40 = 10%
        (6000, None, 300),  # 50 - 48 = 2% -> at least 5%
        (10000, None, 500),
        (250, None, 120),  # 50 - 2 = 48%
    ],
)
def test_num_feasible_nodes_to_find(num_nodes: int, percentage: int | None, expected: int) -> None:
    assert num_feasible_nodes_to_find(num_nodes, percentage) == expected


def counting_filter(calls: list[str], rejected: set[str], reason: str = "Insufficient cpu") -> Any:
    def run(state: Any, pod: Any, info: NodeInfo) -> Status:
        calls.append(info.name)
        return Status.unschedulable(reason) if info.name in rejected else SUCCESS

    return plugin(filter=run)


def scoring() -> Any:
    return plugin(score=lambda s, p, n: (0, SUCCESS))


def test_search_stops_once_enough_nodes_fit_and_the_next_cycle_starts_after() -> None:
    calls: list[str] = []
    all_nodes = nodes(1000)
    fw = build({"F": counting_filter(calls, {"n1", "n2"}), "S": scoring()})
    feasible, statuses, next_index = find_nodes_that_fit(fw, CycleState(), POD, all_nodes, 0, None)
    assert len(feasible) == 420
    assert len(calls) == 422  # 420 fit, 2 rejected on the way
    assert set(statuses) == {"n1", "n2"}
    assert statuses["n1"].plugin == "F"
    assert next_index == 422

    calls.clear()
    feasible, statuses, next_index = find_nodes_that_fit(fw, CycleState(), POD, all_nodes, 900, 30)
    assert [n.name for n in feasible[:2]] == ["n900", "n901"]
    assert feasible[100].name == "n0"  # wrapped around
    assert (len(feasible), statuses.keys(), next_index) == (300, {"n1", "n2"}, (900 + 302) % 1000)


def test_without_score_plugins_one_feasible_node_is_enough() -> None:
    calls: list[str] = []
    fw = build({"F": counting_filter(calls, {"n0"})})
    feasible, statuses, next_index = find_nodes_that_fit(fw, CycleState(), POD, nodes(10), 0, None)
    assert [n.name for n in feasible] == ["n1"]
    assert (list(statuses), next_index) == (["n0"], 2)


def test_without_filter_plugins_nodes_are_taken_round_robin() -> None:
    fw = build({"S": scoring()})
    feasible, statuses, next_index = find_nodes_that_fit(fw, CycleState(), POD, nodes(150), 140, None)
    assert len(feasible) == 100 and feasible[0].name == "n140" and statuses == {}  # 49% of 150 < 100
    assert next_index == (140 + 100) % 150


def test_all_nodes_are_tried_when_few_fit_and_skipped_filters_do_not_run() -> None:
    calls: list[str] = []
    skipped: list[str] = []
    fw = build(
        {"F": counting_filter(calls, {"n0", "n2"}), "Skip": counting_filter(skipped, {"n1"}), "S": scoring()}
    )
    state = CycleState()
    state.skip_filter_plugins.add("Skip")
    feasible, statuses, next_index = find_nodes_that_fit(fw, state, POD, nodes(3), 1, None)
    assert [n.name for n in feasible] == ["n1"]
    assert list(statuses) == ["n2", "n0"]
    assert (calls, skipped, next_index) == (["n1", "n2", "n0"], [], 1)


def test_a_filter_error_stops_the_cycle() -> None:
    fw = build({"F": plugin(filter=lambda s, p, n: Status.as_error(RuntimeError("disk on fire")))})
    with pytest.raises(SchedulingError, match='running "F" filter plugin: disk on fire') as caught:
        find_nodes_that_fit(fw, CycleState(), POD, nodes(3), 0, None)
    assert caught.value.status.plugin == "F"


def test_find_nodes_that_fit_pod_pre_filter_rejection_covers_every_node() -> None:
    all_nodes = nodes(4)
    fw = build(
        {"P": plugin(pre_filter=lambda s, p, n: (None, Status.unresolvable("pod has unbound PVCs")))},
        handle=make_handle(all_nodes),
    )
    result = find_nodes_that_fit_pod(fw, CycleState(), POD, all_nodes, 0, None)
    assert result.feasible == []
    assert set(result.diagnosis.statuses) == {"n0", "n1", "n2", "n3"}
    assert result.diagnosis.unschedulable_plugins == {"P"}
    assert result.diagnosis.message(4) == "0/4 nodes are available: pod has unbound PVCs."


def test_find_nodes_that_fit_pod_narrowed_by_pre_filter_result() -> None:
    all_nodes = nodes(4)
    calls: list[str] = []
    fw = build(
        {
            "Name": plugin(pre_filter=lambda s, p, n: (PreFilterResult(frozenset({"n1", "n3"})), SUCCESS)),
            "F": counting_filter(calls, {"n1", "n3"}),
        },
        handle=make_handle(all_nodes),
    )
    result = find_nodes_that_fit_pod(fw, CycleState(), POD, all_nodes, 0, None)
    assert calls == ["n1", "n3"]
    assert result.diagnosis.unschedulable_plugins == {"Name", "F"}
    assert result.diagnosis.message(4) == (
        "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [Name]."
    )


def test_find_nodes_that_fit_pod_tries_the_nominated_node_first() -> None:
    all_nodes = nodes(5)
    calls: list[str] = []
    fw = build({"F": counting_filter(calls, set()), "S": scoring()}, handle=make_handle(all_nodes))
    pod = {**POD, "status": {"nominatedNodeName": "n3"}}
    result = find_nodes_that_fit_pod(fw, CycleState(), pod, all_nodes, 0, None)
    assert [n.name for n in result.feasible] == ["n3"] and calls == ["n3"]


NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
TAINT = "node(s) had untolerated taint {dedicated: x}"


@pytest.mark.parametrize(
    ("num_nodes", "reasons", "post", "expected"),
    [
        (0, [], "", "0/0 nodes are available:"),
        (1, [("Insufficient cpu",)], "", "0/1 nodes are available: 1 Insufficient cpu."),
        (
            4,
            [("Insufficient cpu",), (TAINT,), (NODE_AFFINITY,), (NODE_AFFINITY,)],
            "preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, "
            "3 Preemption is not helpful for scheduling.",
            f"0/4 nodes are available: 1 Insufficient cpu, 1 {TAINT}, 2 {NODE_AFFINITY}. "
            "preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, "
            "3 Preemption is not helpful for scheduling.",
        ),
        # one status may carry several reasons; counts sort as strings ("10 ..." before "2 ...")
        (
            12,
            [("Insufficient cpu", "Insufficient memory")] * 10 + [("Too many pods",)] * 2,
            "",
            "0/12 nodes are available: 10 Insufficient cpu, 10 Insufficient memory, 2 Too many pods.",
        ),
    ],
)
def test_fit_error_message(num_nodes: int, reasons: list[tuple[str, ...]], post: str, expected: str) -> None:
    statuses = {f"n{i}": Status(Code.UNSCHEDULABLE, r) for i, r in enumerate(reasons)}
    assert fit_error_message(num_nodes, statuses, post) == expected


def test_fit_error_message_with_a_pre_filter_message_ignores_node_reasons() -> None:
    statuses = {"n0": Status.unschedulable("x"), "n1": Status.unschedulable("x")}
    message = fit_error_message(2, statuses, "preemption: not eligible", pre_filter_message="x")
    assert message == "0/2 nodes are available: x. preemption: not eligible"


def test_select_host_picks_the_highest_and_breaks_ties_at_random() -> None:
    rng = random.Random(7)
    assert select_host([("a", 10), ("b", 30), ("c", 20)], rng) == "b"
    picks = Counter(select_host([("a", 5), ("b", 9), ("c", 9), ("d", 9)], rng) for _ in range(3000))
    assert set(picks) == {"b", "c", "d"}
    assert all(800 < count < 1200 for count in picks.values())
    with pytest.raises(ValueError):
        select_host([], rng)

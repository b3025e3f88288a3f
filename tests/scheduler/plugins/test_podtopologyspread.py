"""PodTopologySpread: DoNotSchedule filtering, ScheduleAnyway and system default scoring."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler.framework.cyclestate import CycleState
from scheduler.framework.status import Code
from scheduler.framework.types import NodeInfo, PodInfo
from scheduler.plugins.podtopologyspread.plugin import PodTopologySpread
from tests.scheduler.builders import make_handle, make_node, make_pod, node_info
from tests.scheduler.plugins.harness import run_score

OK, UNSCHED, UNRESOLVABLE = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
FOO = {"foo": "bar"}
NOT_MATCH = "node(s) didn't match pod topology spread constraints"


def spread(key: str = "zone", skew: int = 1, when: str = "DoNotSchedule", **extra: Any) -> dict[str, Any]:
    return {
        "maxSkew": skew,
        "topologyKey": key,
        "whenUnsatisfiable": when,
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
        **extra,
    }


def cluster(placement: dict[str, list[dict[str, Any]]]) -> list[NodeInfo]:
    zones = {"n1": "a", "n2": "a", "n3": "b", "n4": "b"}
    return [
        node_info(make_node(n, labels={"zone": z, "topology.kubernetes.io/zone": z}), *placement.get(n, []))
        for n, z in zones.items()
    ]


def filter_all(
    pod: dict[str, Any], nodes: list[NodeInfo], args: dict[str, Any] | None = None
) -> dict[str, Code]:
    plugin = PodTopologySpread(args or {}, make_handle(nodes))
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, nodes)
    if status.is_skip():
        return {n.name: OK for n in nodes}
    return {n.name: plugin.filter(state, pod, n).code for n in nodes}


def matching(name: str, namespace: str = "default") -> dict[str, Any]:
    return make_pod(name, labels=FOO, namespace=namespace)


@pytest.mark.parametrize(
    ("pod", "placement", "want"),
    [
        pytest.param(make_pod(labels=FOO), {}, {"n1": OK, "n2": OK, "n3": OK, "n4": OK}, id="no-constraints"),
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread()]),
            {"n1": [matching("e1")]},
            {"n1": UNSCHED, "n2": UNSCHED, "n3": OK, "n4": OK},
            id="zone-skew",
        ),
        pytest.param(
            make_pod(labels={"other": "x"}, topology_spread=[spread()]),
            {"n1": [matching("e1")]},
            {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
            id="pod-not-self-matching",
        ),
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread(skew=2)]),
            {"n1": [matching("e1")]},
            {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
            id="max-skew-2",
        ),
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread()]),
            {"n1": [matching("e1", "other")]},
            {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
            id="other-namespace-not-counted",
        ),
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread("kubernetes.io/hostname")]),
            {"n1": [matching("e1")]},
            {"n1": UNSCHED, "n2": OK, "n3": OK, "n4": OK},
            id="hostname",
        ),
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread()]),
            {"n1": [matching("e1")], "n3": [matching("e2")]},
            {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
            id="balanced",
        ),
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread(minDomains=3)]),
            {"n1": [matching("e1")], "n3": [matching("e2")]},
            {"n1": UNSCHED, "n2": UNSCHED, "n3": UNSCHED, "n4": UNSCHED},
            id="min-domains",
        ),
        pytest.param(
            make_pod(labels=FOO, node_selector={"zone": "a"}, topology_spread=[spread()]),
            {"n1": [matching("e1")]},
            {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
            id="node-affinity-honored",
        ),
        pytest.param(
            make_pod(
                labels=FOO, node_selector={"zone": "a"}, topology_spread=[spread(nodeAffinityPolicy="Ignore")]
            ),
            {"n1": [matching("e1")]},
            {"n1": UNSCHED, "n2": UNSCHED, "n3": OK, "n4": OK},
            id="node-affinity-ignored",
        ),
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread(when="ScheduleAnyway")]),
            {"n1": [matching("e1")]},
            {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
            id="schedule-anyway-not-filtered",
        ),
    ],
)
def test_filter(
    pod: dict[str, Any], placement: dict[str, list[dict[str, Any]]], want: dict[str, Code]
) -> None:
    assert filter_all(pod, cluster(placement)) == want


def test_filter_missing_topology_label() -> None:
    nodes = [*cluster({}), node_info(make_node("bare"))]
    plugin = PodTopologySpread({}, make_handle(nodes))
    state = CycleState()
    pod = make_pod(labels=FOO, topology_spread=[spread()])
    plugin.pre_filter(state, pod, nodes)
    status = plugin.filter(state, pod, nodes[-1])
    assert (status.code, status.message()) == (UNRESOLVABLE, NOT_MATCH + " (missing required label)")
    assert plugin.filter(state, pod, nodes[0]).message() == ""


def test_preemption_remove_pod() -> None:
    victim = matching("e1")
    nodes = cluster({"n1": [victim]})
    plugin = PodTopologySpread({}, make_handle(nodes))
    state = CycleState()
    pod = make_pod(labels=FOO, topology_spread=[spread()])
    plugin.pre_filter(state, pod, nodes)
    assert plugin.filter(state, pod, nodes[0]).code == UNSCHED
    trial = state.clone()
    plugin.remove_pod(trial, pod, nodes[0].pods[0], nodes[0])
    assert plugin.filter(trial, pod, nodes[0]).is_success()
    assert plugin.filter(state, pod, nodes[0]).code == UNSCHED  # the original state is untouched
    plugin.add_pod(trial, pod, PodInfo.of(matching("e9")), nodes[2])
    assert plugin.filter(trial, pod, nodes[2]).code == UNSCHED


@pytest.mark.parametrize(
    ("pod", "placement", "want"),
    [
        pytest.param(
            make_pod(labels=FOO, topology_spread=[spread(when="ScheduleAnyway")]),
            {"n1": [matching("e1")], "n2": [matching("e2")]},
            {"n1": 0, "n2": 0, "n3": 100, "n4": 100},
            id="zone",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}, owner_kind="ReplicaSet"),
            {"n1": [make_pod("e1", labels={"app": "web"})]},
            {"n1": 66, "n2": 88, "n3": 100, "n4": 100},
            id="system-defaults",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}),
            {"n1": [make_pod("e1", labels={"app": "web"})]},
            {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
            id="no-controller-no-defaults",
        ),
    ],
)
def test_score(pod: dict[str, Any], placement: dict[str, list[dict[str, Any]]], want: dict[str, int]) -> None:
    nodes = cluster(placement)
    assert run_score(PodTopologySpread({}, make_handle(nodes)), pod, nodes) == want


def test_score_ignores_nodes_without_the_key() -> None:
    nodes = [*cluster({"n1": [matching("e1")]}), node_info(make_node("bare"))]
    pod = make_pod(labels=FOO, topology_spread=[spread(when="ScheduleAnyway")])
    scores = run_score(PodTopologySpread({}, make_handle(nodes)), pod, nodes)
    assert scores == {"n1": 0, "n2": 0, "n3": 100, "n4": 100, "bare": 0}

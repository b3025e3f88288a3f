"""InterPodAffinity: required affinity/anti-affinity both ways, preemption updates, preferred
terms in Score."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler.framework.cyclestate import CycleState
from scheduler.framework.status import Code
from scheduler.framework.types import NodeInfo
from scheduler.plugins.interpodaffinity.plugin import InterPodAffinity
from tests.scheduler.builders import make_handle, make_node, make_pod, node_info
from tests.scheduler.plugins.harness import run_score

OK, UNSCHED, UNRESOLVABLE = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
HOST, ZONE = "kubernetes.io/hostname", "zone"


def term(app: str, key: str = ZONE, **extra: Any) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key, **extra}


def affinity(*terms: dict[str, Any], anti: bool = False) -> dict[str, Any]:
    kind = "podAntiAffinity" if anti else "podAffinity"
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def preferred(weight: int, t: dict[str, Any], anti: bool = False) -> dict[str, Any]:
    kind = "podAntiAffinity" if anti else "podAffinity"
    return {
        kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": weight, "podAffinityTerm": t}]}
    }


def cluster(placement: dict[str, list[dict[str, Any]]]) -> list[NodeInfo]:
    zones = {"n1": "a", "n2": "a", "n3": "b"}
    return [node_info(make_node(n, labels={ZONE: z}), *placement.get(n, [])) for n, z in zones.items()]


def filter_all(pod: dict[str, Any], nodes: list[NodeInfo]) -> dict[str, tuple[Code, str]]:
    plugin = InterPodAffinity({}, make_handle(nodes))
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, nodes)
    if status.is_skip():
        return {n.name: (OK, "") for n in nodes}
    out = {}
    for n in nodes:
        s = plugin.filter(state, pod, n)
        out[n.name] = (s.code, s.message())
    return out


DB = make_pod("db", labels={"app": "db"})
AFF = (UNRESOLVABLE, "node(s) didn't match pod affinity rules")
ANTI = (UNSCHED, "node(s) didn't match pod anti-affinity rules")
EXISTING = (UNSCHED, "node(s) didn't satisfy existing pods anti-affinity rules")
FITS = (OK, "")


@pytest.mark.parametrize(
    ("pod", "placement", "want"),
    [
        pytest.param(
            make_pod(labels={"app": "web"}), {"n1": [DB]}, {"n1": FITS, "n2": FITS, "n3": FITS}, id="no-terms"
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db"))),
            {"n1": [DB]},
            {"n1": FITS, "n2": FITS, "n3": AFF},
            id="affinity-zone",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db", HOST))),
            {"n1": [DB]},
            {"n1": FITS, "n2": AFF, "n3": AFF},
            id="affinity-host",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db"), term("cache"))),
            {"n1": [DB]},
            {"n1": AFF, "n2": AFF, "n3": AFF},
            id="affinity-all-terms-needed",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db", "rack"))),
            {"n1": [DB]},
            {"n1": AFF, "n2": AFF, "n3": AFF},
            id="affinity-missing-topology-label",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}, affinity=affinity(term("web"))),
            {"n1": [DB]},
            {"n1": FITS, "n2": FITS, "n3": FITS},
            id="first-pod-of-self-affine-group",
        ),
        pytest.param(
            make_pod(labels={"app": "x"}, affinity=affinity(term("web"))),
            {"n1": [DB]},
            {"n1": AFF, "n2": AFF, "n3": AFF},
            id="no-match-not-self",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db"))),
            {"n1": [make_pod("db", labels={"app": "db"}, namespace="other")]},
            {"n1": AFF, "n2": AFF, "n3": AFF},
            id="own-namespace-only",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db", namespaces=["other"]))),
            {"n1": [make_pod("db", labels={"app": "db"}, namespace="other")]},
            {"n1": FITS, "n2": FITS, "n3": AFF},
            id="listed-namespace",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db", namespaceSelector={}))),
            {"n1": [make_pod("db", labels={"app": "db"}, namespace="other")]},
            {"n1": FITS, "n2": FITS, "n3": AFF},
            id="all-namespaces",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db"), anti=True)),
            {"n1": [DB]},
            {"n1": ANTI, "n2": ANTI, "n3": FITS},
            id="anti-affinity-zone",
        ),
        pytest.param(
            make_pod(affinity=affinity(term("db", HOST), anti=True)),
            {"n1": [DB]},
            {"n1": ANTI, "n2": FITS, "n3": FITS},
            id="anti-affinity-host",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}),
            {"n1": [make_pod("db", labels={"app": "db"}, affinity=affinity(term("web", HOST), anti=True))]},
            {"n1": EXISTING, "n2": FITS, "n3": FITS},
            id="existing-anti-affinity",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}),
            {"n1": [make_pod("db", labels={"app": "db"}, affinity=affinity(term("web"), anti=True))]},
            {"n1": EXISTING, "n2": EXISTING, "n3": FITS},
            id="existing-anti-affinity-zone",
        ),
        pytest.param(
            make_pod(labels={"app": "api"}),
            {"n1": [make_pod("db", labels={"app": "db"}, affinity=affinity(term("web", HOST), anti=True))]},
            {"n1": FITS, "n2": FITS, "n3": FITS},
            id="existing-anti-affinity-not-matching",
        ),
    ],
)
def test_filter(
    pod: dict[str, Any], placement: dict[str, list[dict[str, Any]]], want: dict[str, tuple[Code, str]]
) -> None:
    assert filter_all(pod, cluster(placement)) == want


def test_preemption_remove_and_add_pod() -> None:
    nodes = cluster({"n1": [DB]})
    plugin = InterPodAffinity({}, make_handle(nodes))
    pod = make_pod(affinity=affinity(term("db", HOST), anti=True))
    state = CycleState()
    plugin.pre_filter(state, pod, nodes)
    assert plugin.filter(state, pod, nodes[0]).code == UNSCHED
    trial = state.clone()
    plugin.remove_pod(trial, pod, nodes[0].pods[0], nodes[0])
    assert plugin.filter(trial, pod, nodes[0]).is_success()
    assert plugin.filter(state, pod, nodes[0]).code == UNSCHED
    plugin.add_pod(trial, pod, nodes[0].pods[0], nodes[2])
    assert plugin.filter(trial, pod, nodes[2]).code == UNSCHED


def test_preemption_remove_existing_anti_affinity_pod() -> None:
    guard = make_pod("guard", labels={"app": "db"}, affinity=affinity(term("web", HOST), anti=True))
    nodes = cluster({"n1": [guard]})
    plugin = InterPodAffinity({}, make_handle(nodes))
    pod = make_pod(labels={"app": "web"})
    state = CycleState()
    plugin.pre_filter(state, pod, nodes)
    assert plugin.filter(state, pod, nodes[0]).code == UNSCHED
    plugin.remove_pod(state, pod, nodes[0].pods[0], nodes[0])
    assert plugin.filter(state, pod, nodes[0]).is_success()


@pytest.mark.parametrize(
    ("pod", "placement", "args", "want"),
    [
        pytest.param(
            make_pod(affinity=preferred(5, term("db"))),
            {"n1": [DB]},
            {},
            {"n1": 100, "n2": 100, "n3": 0},
            id="preferred-affinity",
        ),
        pytest.param(
            make_pod(affinity=preferred(5, term("db"), anti=True)),
            {"n1": [DB]},
            {},
            {"n1": 0, "n2": 0, "n3": 100},
            id="preferred-anti-affinity",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}),
            {"n3": [make_pod("x", labels={"app": "x"}, affinity=affinity(term("web", HOST)))]},
            {},
            {"n1": 0, "n2": 0, "n3": 100},
            id="existing-required-affinity-hard-weight",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}),
            {"n3": [make_pod("x", labels={"app": "x"}, affinity=affinity(term("web", HOST)))]},
            {"hardPodAffinityWeight": 0},
            {"n1": 0, "n2": 0, "n3": 0},
            id="hard-weight-zero",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}),
            {"n1": [make_pod("x", labels={"app": "x"}, affinity=preferred(3, term("web"), anti=True))]},
            {},
            {"n1": 0, "n2": 0, "n3": 100},
            id="existing-preferred-anti-affinity",
        ),
        pytest.param(
            make_pod(labels={"app": "web"}),
            {"n1": [make_pod("x", labels={"app": "x"}, affinity=preferred(3, term("web"), anti=True))]},
            {"ignorePreferredTermsOfExistingPods": True},
            {"n1": 0, "n2": 0, "n3": 0},
            id="ignore-existing-preferred",
        ),
    ],
)
def test_score(
    pod: dict[str, Any],
    placement: dict[str, list[dict[str, Any]]],
    args: dict[str, Any],
    want: dict[str, int],
) -> None:
    nodes = cluster(placement)
    assert run_score(InterPodAffinity(args, make_handle(nodes)), pod, nodes) == want

"""RollingUpdate decisions (upstream's rolling_update.go math), table-driven over nodes whose
pods are old or new, available or not."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.daemon.context import DaemonContext, pods_by_node
from controllers.daemon.predicates import DaemonPlacement
from controllers.daemon.rolling import old_pods_to_delete, surge_plan, updated_desired_node_counts
from minikube_py.api.unstructured import Object
from minikube_py.clock import FakeClock
from tests.controllers.apps.daemonset_fixtures import daemon_pod, daemon_set, node
from tests.controllers.apps.harness import time_at

NEW, OLD = "new", "old"


def context(clock: FakeClock) -> DaemonContext:
    none: Any = None
    return DaemonContext(none, none, none, none, none, clock, 250, none, none, none)


def layout(ds: Object, spec: str) -> tuple[list[Object], list[Object]]:
    """Nodes n0.. and their pods from a compact spec: per node, comma-separated, a string of
    pods: ``O``/``o`` old available/unavailable, ``N``/``n`` new available/unavailable, ``-``
    none."""
    nodes, pods = [], []
    for i, cell in enumerate(spec.split(",")):
        nodes.append(node(f"n{i}"))
        for j, kind in enumerate(cell.strip()):
            if kind == "-":
                continue
            hash_ = NEW if kind in "Nn" else OLD
            pods.append(daemon_pod(f"p{i}-{j}{kind}", ds, f"n{i}", hash_=hash_, ready=kind.isupper()))
    return nodes, pods


UNAVAILABLE_CASES = [
    ("one at a time", 1, "O,O,O", ["p0-0O"]),
    ("an unavailable new pod uses the budget", 1, "n,O,O", []),
    ("an unavailable old pod is replaced outside the budget", 1, "o,O,O", ["p0-0o"]),
    ("a missing pod counts as unavailable", 2, "-,O,O", ["p1-0O"]),
    ("two per batch", 2, "O,O,O,N", ["p0-0O", "p1-0O"]),
    ("done", 1, "N,N", []),
]


@pytest.mark.parametrize(
    ("max_unavailable", "spec", "expected"),
    [c[1:] for c in UNAVAILABLE_CASES],
    ids=[c[0] for c in UNAVAILABLE_CASES],
)
def test_rolling_update_without_surge(max_unavailable: int, spec: str, expected: list[str]) -> None:
    clock = FakeClock()
    ds = daemon_set(
        updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": max_unavailable}}
    )
    nodes, pods = layout(ds, spec)
    by_node = pods_by_node(pods, False)
    surge, unavailable, desired = updated_desired_node_counts(ds, nodes, by_node, DaemonPlacement(ds))
    assert (surge, unavailable, desired) == (0, max_unavailable, len(nodes))
    assert old_pods_to_delete(context(clock), ds, by_node, NEW, unavailable) == expected


SURGE_CASES = [
    ("surge one node at a time", 1, "O,O,O", [], ["n0"]),
    ("an unavailable old pod gets its replacement at once", 1, "o,O,O", [], ["n0", "n1"]),
    ("wait for the surged pod", 1, "On,O", [], []),
    ("an available new pod retires the old one, the next node surges", 1, "ON,O", ["p0-0O"], ["n1"]),
    ("surge of two", 2, "O,O,O", [], ["n0", "n1"]),
]


@pytest.mark.parametrize(
    ("max_surge", "spec", "deletes", "creates"), [c[1:] for c in SURGE_CASES], ids=[c[0] for c in SURGE_CASES]
)
def test_rolling_update_with_surge(max_surge: int, spec: str, deletes: list[str], creates: list[str]) -> None:
    clock = FakeClock()
    rolling = {"maxUnavailable": 0, "maxSurge": max_surge}
    ds = daemon_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": rolling})
    nodes, pods = layout(ds, spec)
    by_node = pods_by_node(pods, False)
    placement = DaemonPlacement(ds)
    surge, _, desired = updated_desired_node_counts(ds, nodes, by_node, placement)
    plan = surge_plan(context(clock), ds, nodes, by_node, NEW, surge, desired, placement)
    assert plan == (deletes, creates)


def test_both_budgets_zero_fall_back_to_one_unavailable() -> None:
    ds = daemon_set(
        updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}
    )
    nodes, pods = layout(ds, "O,O")
    assert updated_desired_node_counts(ds, nodes, pods_by_node(pods, False), DaemonPlacement(ds)) == (0, 1, 2)


def test_min_ready_seconds_keeps_a_fresh_pod_unavailable() -> None:
    clock = FakeClock()
    rolling = {"maxUnavailable": 1}
    ds = daemon_set(minReadySeconds=30, updateStrategy={"type": "RollingUpdate", "rollingUpdate": rolling})
    _, pods = layout(ds, "N,O")
    pods[0]["status"]["conditions"][0]["lastTransitionTime"] = time_at(clock, -10)
    by_node = pods_by_node(pods, False)
    assert old_pods_to_delete(context(clock), ds, by_node, NEW, 1) == []
    pods[0]["status"]["conditions"][0]["lastTransitionTime"] = time_at(clock, -31)
    assert old_pods_to_delete(context(clock), ds, pods_by_node(pods, False), NEW, 1) == ["p1-0O"]

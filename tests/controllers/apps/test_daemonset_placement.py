"""DaemonSet node eligibility, pod templates and status counts (pure functions, table-driven)."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.daemon.context import pods_by_node
from controllers.daemon.predicates import DaemonPlacement, Placement
from controllers.daemon.status import calculate_counts
from controllers.daemon.util import (
    NoTargetNode,
    create_pod_template,
    replace_node_name_affinity,
    surge_count,
    target_node_name,
    unavailable_count,
)
from minikube_py.clock import FakeClock
from tests.controllers.apps.daemonset_fixtures import daemon_pod, daemon_set, node


def taint(key: str, effect: str, value: str = "") -> dict[str, Any]:
    return {"key": key, "value": value, "effect": effect}


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    }


RUN, STAY, NOWHERE = Placement(True, True), Placement(False, True), Placement(False, False)
TEMPLATE_SPEC = {"containers": [{"name": "c", "image": "nginx:1"}]}

PLACEMENT_CASES = [
    ("plain node", {}, node("n1"), RUN),
    ("nodeSelector matches", {"nodeSelector": {"disk": "ssd"}}, node("n1", labels={"disk": "ssd"}), RUN),
    ("nodeSelector misses", {"nodeSelector": {"disk": "ssd"}}, node("n1"), NOWHERE),
    (
        "required affinity matches",
        {"affinity": required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]})},
        node("n1", labels={"zone": "a"}),
        RUN,
    ),
    (
        "required affinity misses",
        {"affinity": required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]})},
        node("n1", labels={"zone": "b"}),
        NOWHERE,
    ),
    (
        "matchFields on the node name",
        {
            "affinity": required(
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}
            )
        },
        node("n1"),
        NOWHERE,
    ),
    ("template nodeName elsewhere", {"nodeName": "n2"}, node("n1"), NOWHERE),
    ("untolerated NoSchedule: existing pods stay", {}, node("n1", taints=[taint("gpu", "NoSchedule")]), STAY),
    ("untolerated NoExecute: nothing runs", {}, node("n1", taints=[taint("gpu", "NoExecute")]), NOWHERE),
    ("PreferNoSchedule is ignored", {}, node("n1", taints=[taint("gpu", "PreferNoSchedule")]), RUN),
    (
        "tolerated taint",
        {"tolerations": [{"key": "gpu", "operator": "Exists"}]},
        node("n1", taints=[taint("gpu", "NoSchedule")]),
        RUN,
    ),
    (
        "implicit: not-ready NoExecute",
        {},
        node("n1", taints=[taint("node.kubernetes.io/not-ready", "NoExecute")]),
        RUN,
    ),
    (
        "implicit: unreachable NoExecute",
        {},
        node("n1", taints=[taint("node.kubernetes.io/unreachable", "NoExecute")]),
        RUN,
    ),
    (
        "implicit: cordoned",
        {},
        node("n1", taints=[taint("node.kubernetes.io/unschedulable", "NoSchedule")]),
        RUN,
    ),
    (
        "implicit: disk pressure",
        {},
        node("n1", taints=[taint("node.kubernetes.io/disk-pressure", "NoSchedule")]),
        RUN,
    ),
    (
        "network-unavailable without hostNetwork",
        {},
        node("n1", taints=[taint("node.kubernetes.io/network-unavailable", "NoSchedule")]),
        STAY,
    ),
    (
        "network-unavailable with hostNetwork",
        {"hostNetwork": True},
        node("n1", taints=[taint("node.kubernetes.io/network-unavailable", "NoSchedule")]),
        RUN,
    ),
]


@pytest.mark.parametrize(
    ("spec", "the_node", "expected"), [c[1:] for c in PLACEMENT_CASES], ids=[c[0] for c in PLACEMENT_CASES]
)
def test_node_should_run_daemon_pod(
    spec: dict[str, Any], the_node: dict[str, Any], expected: Placement
) -> None:
    ds = daemon_set(template={"metadata": {"labels": {"app": "ds"}}, "spec": {**TEMPLATE_SPEC, **spec}})
    assert DaemonPlacement(ds).of(the_node) == expected


def test_pod_template_carries_generation_hash_and_implicit_tolerations() -> None:
    template: dict[str, Any] = {
        "metadata": {"labels": {"app": "ds"}},
        "spec": {**TEMPLATE_SPEC, "hostNetwork": True},
    }
    made = create_pod_template(template, 3, "abc")
    assert made["metadata"]["labels"] == {
        "app": "ds",
        "pod-template-generation": "3",
        "controller-revision-hash": "abc",
    }
    keys = [(t["key"], t["effect"]) for t in made["spec"]["tolerations"]]
    assert keys == [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ("node.kubernetes.io/network-unavailable", "NoSchedule"),
    ]
    assert all(
        t["operator"] == "Exists" and "tolerationSeconds" not in t for t in made["spec"]["tolerations"]
    )
    assert "tolerations" not in template["spec"]  # the DaemonSet's own template is untouched


def test_a_user_toleration_of_the_same_slot_is_replaced_not_doubled() -> None:
    own = {
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 5,
    }
    made = create_pod_template({"spec": {**TEMPLATE_SPEC, "tolerations": [own]}}, None, "")
    not_ready = [t for t in made["spec"]["tolerations"] if t["key"] == "node.kubernetes.io/not-ready"]
    assert not_ready == [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}]
    assert "pod-template-generation" not in made["metadata"]["labels"]


def test_node_affinity_is_replaced_by_the_node_name_and_other_affinity_kept() -> None:
    pod_affinity: dict[str, Any] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}}
    original = {
        **pod_affinity,
        **required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}),
    }
    replaced = replace_node_name_affinity(original, "n7")
    assert replaced["podAntiAffinity"] == pod_affinity["podAntiAffinity"]
    terms = replaced["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n7"]}]}]
    bare = replace_node_name_affinity(None, "n1")
    assert bare == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                ]
            }
        }
    }


def test_target_node_name_from_binding_or_affinity() -> None:
    ds = daemon_set()
    assert target_node_name(daemon_pod("p", ds, "n1")) == "n1"
    assert target_node_name(daemon_pod("p", ds, "n2", bound=False)) == "n2"
    loose = daemon_pod("p", ds, "n1", bound=False)
    del loose["spec"]["affinity"]
    with pytest.raises(NoTargetNode, match="nodeSelectorTerms found in pod p"):
        target_node_name(loose)
    assert pods_by_node([loose, daemon_pod("q", ds, "n1")], True) == {"n1": [daemon_pod("q", ds, "n1")]}


@pytest.mark.parametrize(
    ("rolling", "desired", "surge", "unavailable"),
    [
        ({"maxUnavailable": 1, "maxSurge": 0}, 10, 0, 1),
        ({"maxUnavailable": "25%", "maxSurge": 0}, 10, 0, 3),  # percentages round up
        ({"maxUnavailable": 0, "maxSurge": "10%"}, 15, 2, 0),
        ({"maxUnavailable": "100%", "maxSurge": 0}, 500, 0, 500),
    ],
)
def test_rolling_budgets(rolling: dict[str, Any], desired: int, surge: int, unavailable: int) -> None:
    ds = daemon_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": rolling})
    assert (surge_count(ds, desired), unavailable_count(ds, desired)) == (surge, unavailable)
    on_delete = daemon_set(updateStrategy={"type": "OnDelete"})
    assert (surge_count(on_delete, desired), unavailable_count(on_delete, desired)) == (0, 0)


def test_status_counts_per_node() -> None:
    clock = FakeClock()
    ds = daemon_set(nodeSelector={"role": "worker"}, minReadySeconds=0)
    ds["spec"]["template"]["spec"]["nodeSelector"] = ds["spec"].pop("nodeSelector")
    nodes = [node(f"n{i}", labels={"role": "worker"}) for i in range(1, 5)] + [node("master")]
    pods = [
        daemon_pod("a", ds, "n1", hash_="new"),
        daemon_pod("b", ds, "n2", hash_="old"),
        daemon_pod("c", ds, "n3", hash_="new", ready=False),
        daemon_pod("m", ds, "master", hash_="new"),  # the node selector excludes it
    ]
    counts = calculate_counts(ds, nodes, pods_by_node(pods, False), DaemonPlacement(ds), "new", clock.now())
    assert counts == {
        "desiredNumberScheduled": 4,
        "currentNumberScheduled": 3,
        "numberMisscheduled": 1,
        "numberReady": 2,
        "updatedNumberScheduled": 2,
        "numberAvailable": 2,
        "numberUnavailable": 2,
    }

"""TaintToleration, NodeAffinity and ImageLocality."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler.framework.cyclestate import CycleState
from scheduler.framework.interface import PreFilterResult
from scheduler.framework.status import Code
from scheduler.plugins.imagelocality import ImageLocality
from scheduler.plugins.nodeaffinity import NodeAffinity
from scheduler.plugins.tainttoleration import TaintToleration
from tests.scheduler.builders import make_handle, make_node, make_pod, node_info, taint, toleration
from tests.scheduler.plugins.harness import run_filter, run_score

OK, UNRESOLVABLE = Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
MB = 1024 * 1024


@pytest.mark.parametrize(
    ("taints", "tolerations", "code", "message"),
    [
        ([], [], OK, ""),
        ([taint("dedicated", "x")], [], UNRESOLVABLE, "node(s) had untolerated taint {dedicated: x}"),
        ([taint("dedicated", "x")], [toleration("dedicated", "x")], OK, ""),
        (
            [taint("dedicated", "x")],
            [toleration("dedicated", "y")],
            UNRESOLVABLE,
            "node(s) had untolerated taint {dedicated: x}",
        ),
        ([taint("dedicated", "x")], [toleration("dedicated", operator="Exists")], OK, ""),
        ([taint("dedicated", "x")], [toleration(operator="Exists")], OK, ""),
        (
            [taint("dedicated", "x")],
            [toleration("dedicated", "x", effect="NoExecute")],
            UNRESOLVABLE,
            "node(s) had untolerated taint {dedicated: x}",
        ),
        ([taint("gpu", effect="NoExecute")], [], UNRESOLVABLE, "node(s) had untolerated taint {gpu: }"),
        ([taint("soft", "x", effect="PreferNoSchedule")], [], OK, ""),
        (
            [taint("a", "1"), taint("b", "2")],
            [toleration("a", "1")],
            UNRESOLVABLE,
            "node(s) had untolerated taint {b: 2}",
        ),
    ],
)
def test_taint_toleration_filter(
    taints: list[dict[str, Any]], tolerations: list[dict[str, Any]], code: Code, message: str
) -> None:
    status = run_filter(
        TaintToleration({}, make_handle()),
        make_pod(tolerations=tolerations),
        node_info(make_node(taints=taints)),
    )
    assert (status.code, status.message()) == (code, message)


@pytest.mark.parametrize(
    ("tolerations", "want"),
    [
        ([], {"clean": 100, "one": 50, "two": 0}),
        ([toleration("a", "1", effect="PreferNoSchedule")], {"clean": 100, "one": 100, "two": 0}),
        ([toleration("a", "1", effect="NoSchedule")], {"clean": 100, "one": 50, "two": 0}),
        ([toleration(operator="Exists")], {"clean": 100, "one": 100, "two": 100}),
    ],
)
def test_taint_toleration_score(tolerations: list[dict[str, Any]], want: dict[str, int]) -> None:
    soft = "PreferNoSchedule"
    nodes = [
        node_info(make_node("clean")),
        node_info(make_node("one", taints=[taint("a", "1", soft)])),
        node_info(make_node("two", taints=[taint("a", "1", soft), taint("b", "2", soft)])),
    ]
    assert (
        run_score(TaintToleration({}, make_handle(nodes)), make_pod(tolerations=tolerations), nodes) == want
    )


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    }


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": key, "operator": op, "values": list(values)}]}


ZONE_A = {"zone": "a", "cores": "8"}
NOT_MATCH = "node(s) didn't match Pod's node affinity/selector"


@pytest.mark.parametrize(
    ("pod", "labels", "code"),
    [
        pytest.param(make_pod(), ZONE_A, OK, id="no-constraints"),
        pytest.param(make_pod(node_selector={"zone": "a"}), ZONE_A, OK, id="selector-match"),
        pytest.param(make_pod(node_selector={"zone": "b"}), ZONE_A, UNRESOLVABLE, id="selector-mismatch"),
        pytest.param(make_pod(affinity=required(expr("zone", "In", "a", "b"))), ZONE_A, OK, id="in"),
        pytest.param(
            make_pod(affinity=required(expr("zone", "In", "b"))), ZONE_A, UNRESOLVABLE, id="in-miss"
        ),
        pytest.param(
            make_pod(affinity=required(expr("zone", "NotIn", "a"))), ZONE_A, UNRESOLVABLE, id="notin"
        ),
        pytest.param(make_pod(affinity=required(expr("gpu", "NotIn", "x"))), ZONE_A, OK, id="notin-absent"),
        pytest.param(make_pod(affinity=required(expr("zone", "Exists"))), ZONE_A, OK, id="exists"),
        pytest.param(
            make_pod(affinity=required(expr("zone", "DoesNotExist"))),
            ZONE_A,
            UNRESOLVABLE,
            id="does-not-exist",
        ),
        pytest.param(make_pod(affinity=required(expr("cores", "Gt", "4"))), ZONE_A, OK, id="gt"),
        pytest.param(make_pod(affinity=required(expr("cores", "Lt", "4"))), ZONE_A, UNRESOLVABLE, id="lt"),
        pytest.param(
            make_pod(affinity=required(expr("zone", "Gt", "4"))), ZONE_A, UNRESOLVABLE, id="gt-not-a-number"
        ),
        pytest.param(
            make_pod(affinity=required(expr("zone", "In", "b"), expr("cores", "Exists"))),
            ZONE_A,
            OK,
            id="terms-ored",
        ),
        pytest.param(
            make_pod(
                affinity=required(
                    {
                        "matchExpressions": [
                            {"key": "zone", "operator": "In", "values": ["a"]},
                            {"key": "cores", "operator": "In", "values": ["4"]},
                        ]
                    }
                )
            ),
            ZONE_A,
            UNRESOLVABLE,
            id="expressions-anded",
        ),
        pytest.param(make_pod(affinity=required({})), ZONE_A, UNRESOLVABLE, id="empty-term-matches-nothing"),
        pytest.param(
            make_pod(
                affinity=required(
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                )
            ),
            ZONE_A,
            OK,
            id="field-match",
        ),
        pytest.param(
            make_pod(
                affinity=required(
                    {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}
                )
            ),
            ZONE_A,
            UNRESOLVABLE,
            id="field-notin",
        ),
        pytest.param(
            make_pod(node_selector={"zone": "a"}, affinity=required(expr("cores", "In", "4"))),
            ZONE_A,
            UNRESOLVABLE,
            id="selector-and-affinity-both-needed",
        ),
    ],
)
def test_node_affinity_filter(pod: dict[str, Any], labels: dict[str, str], code: Code) -> None:
    status = run_filter(NodeAffinity({}, make_handle()), pod, node_info(make_node("n1", labels=labels)))
    assert status.code == code
    if code != OK:
        assert status.message() == NOT_MATCH


def test_node_affinity_added_affinity() -> None:
    args = {"addedAffinity": required(expr("pool", "In", "web"))["nodeAffinity"]}
    plugin = NodeAffinity(args, make_handle())
    status = run_filter(plugin, make_pod(), node_info(make_node(labels={"pool": "db"})))
    assert (status.code, status.message()) == (
        UNRESOLVABLE,
        "node(s) didn't match scheduler-enforced node affinity",
    )
    assert run_filter(plugin, make_pod(), node_info(make_node(labels={"pool": "web"}))).is_success()


@pytest.mark.parametrize(
    ("terms", "want", "code"),
    [
        (
            [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}],
            PreFilterResult(frozenset({"n1"})),
            OK,
        ),
        (
            [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]},
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]},
            ],
            PreFilterResult(frozenset({"n1", "n2"})),
            OK,
        ),
        (
            [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]},
                expr("zone", "Exists"),
            ],
            None,
            OK,
        ),
        (
            [
                {
                    "matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": ["n1"]},
                        {"key": "metadata.name", "operator": "In", "values": ["n2"]},
                    ]
                }
            ],
            None,
            UNRESOLVABLE,
        ),
    ],
)
def test_node_affinity_pre_filter_node_names(
    terms: list[dict[str, Any]], want: PreFilterResult | None, code: Code
) -> None:
    result, status = NodeAffinity({}, make_handle()).pre_filter(
        CycleState(), make_pod(affinity=required(*terms)), []
    )
    assert (result, status.code) == (want, code)


def test_node_affinity_score() -> None:
    affinity = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 2, "preference": expr("zone", "In", "a")},
                {"weight": 8, "preference": expr("disk", "In", "ssd")},
            ]
        }
    }
    nodes = [
        node_info(make_node("zone", labels={"zone": "a"})),
        node_info(make_node("ssd", labels={"disk": "ssd"})),
        node_info(make_node("both", labels={"zone": "a", "disk": "ssd"})),
        node_info(make_node("none")),
    ]
    want = {"zone": 20, "ssd": 80, "both": 100, "none": 0}
    assert run_score(NodeAffinity({}, make_handle(nodes)), make_pod(affinity=affinity), nodes) == want
    assert run_score(NodeAffinity({}, make_handle(nodes)), make_pod(), nodes) == dict.fromkeys(want, 0)


@pytest.mark.parametrize(
    ("images", "want"),
    [
        (["big:1"], {"n1": 23, "n2": 0}),  # 500 MB on half the nodes -> 250 MB
        (["nginx"], {"n1": 28, "n2": 28}),  # nginx -> nginx:latest, on every node
        (["small:1"], {"n1": 0, "n2": 0}),  # under the 23 MB threshold
        (["absent:1"], {"n1": 0, "n2": 0}),
    ],
)
def test_image_locality(images: list[str], want: dict[str, int]) -> None:
    nodes = [
        node_info(make_node("n1", images={"big:1": 500 * MB, "nginx:latest": 300 * MB, "small:1": 10 * MB})),
        node_info(make_node("n2", images={"nginx:latest": 300 * MB})),
    ]
    assert run_score(ImageLocality({}, make_handle(nodes)), make_pod(images=images), nodes) == want

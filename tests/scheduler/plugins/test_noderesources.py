"""NodeResourcesFit (filter and the three scoring strategies) and BalancedAllocation."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler.framework.status import Code
from scheduler.plugins.noderesources.balancedallocation import NodeResourcesBalancedAllocation
from scheduler.plugins.noderesources.fit import NodeResourcesFit
from tests.scheduler.builders import make_handle, make_node, make_pod, node_info
from tests.scheduler.plugins.harness import run_filter, run_score

OK, UNSCHED, UNRESOLVABLE = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
GPU = "example.com/gpu"


@pytest.mark.parametrize(
    ("pod", "node", "existing", "args", "code", "reasons"),
    [
        pytest.param(make_pod(cpu="1"), make_node(cpu="4"), [], {}, OK, (), id="fits"),
        pytest.param(
            make_pod(cpu="1"),
            make_node(cpu="4"),
            [make_pod("e", cpu="3500m")],
            {},
            UNSCHED,
            ("Insufficient cpu",),
            id="cpu-used",
        ),
        pytest.param(
            make_pod(cpu="5"),
            make_node(cpu="4"),
            [],
            {},
            UNRESOLVABLE,
            ("Insufficient cpu",),
            id="cpu-above-allocatable",
        ),
        pytest.param(
            make_pod(cpu="1", memory="2Gi"),
            make_node(cpu="4", memory="4Gi"),
            [make_pod("e", cpu="3500m", memory="3Gi")],
            {},
            UNSCHED,
            ("Insufficient cpu", "Insufficient memory"),
            id="cpu-and-memory",
        ),
        pytest.param(
            make_pod(),
            make_node(pods=1),
            [make_pod("e")],
            {},
            UNSCHED,
            ("Too many pods",),
            id="too-many-pods",
        ),
        pytest.param(
            make_pod(),
            make_node(cpu="1"),
            [make_pod("e", cpu="1")],
            {},
            OK,
            (),
            id="best-effort-on-full-node",
        ),
        pytest.param(
            make_pod(ephemeral_storage="2Gi"),
            make_node(ephemeral_storage="1Gi"),
            [],
            {},
            UNRESOLVABLE,
            ("Insufficient ephemeral-storage",),
            id="ephemeral-storage",
        ),
        pytest.param(
            make_pod(extended={GPU: "1"}),
            make_node(),
            [],
            {},
            UNRESOLVABLE,
            (f"Insufficient {GPU}",),
            id="extended-missing",
        ),
        pytest.param(
            make_pod(extended={GPU: "1"}),
            make_node(extended={GPU: "2"}),
            [make_pod("e", extended={GPU: "2"})],
            {},
            UNSCHED,
            (f"Insufficient {GPU}",),
            id="extended-used",
        ),
        pytest.param(
            make_pod(extended={GPU: "1"}),
            make_node(),
            [],
            {"ignoredResources": [GPU]},
            OK,
            (),
            id="extended-ignored",
        ),
        pytest.param(
            make_pod(extended={GPU: "1"}),
            make_node(),
            [],
            {"ignoredResourceGroups": ["example.com"]},
            OK,
            (),
            id="extended-group-ignored",
        ),
        pytest.param(
            make_pod(cpu="1", init_cpu="3"),
            make_node(cpu="4"),
            [make_pod("e", cpu="2")],
            {},
            UNSCHED,
            ("Insufficient cpu",),
            id="init-container-max",
        ),
        pytest.param(
            make_pod(cpu="1", overhead={"cpu": "1500m"}),
            make_node(cpu="4"),
            [make_pod("e", cpu="2")],
            {},
            UNSCHED,
            ("Insufficient cpu",),
            id="overhead",
        ),
    ],
)
def test_fit_filter(
    pod: dict[str, Any],
    node: dict[str, Any],
    existing: list[dict[str, Any]],
    args: dict[str, Any],
    code: Code,
    reasons: tuple[str, ...],
) -> None:
    status = run_filter(NodeResourcesFit(args, make_handle()), pod, node_info(node, *existing))
    assert (status.code, status.reasons) == (code, reasons)


RTCR = {
    "type": "RequestedToCapacityRatio",
    "requestedToCapacityRatio": {
        "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
    },
}


@pytest.mark.parametrize(
    ("strategy", "pod", "want"),
    [
        ({}, make_pod(cpu="1", memory="2Gi"), {"empty": 75, "half": 25}),
        ({"type": "LeastAllocated"}, make_pod(), {"empty": 97, "half": 47}),
        ({"type": "MostAllocated"}, make_pod(cpu="1", memory="2Gi"), {"empty": 25, "half": 75}),
        (
            {
                "type": "LeastAllocated",
                "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}],
            },
            make_pod(cpu="2", memory="2Gi"),
            {"empty": 56, "half": 6},
        ),
        (RTCR, make_pod(cpu="1", memory="2Gi"), {"empty": 25, "half": 75}),
        (
            {
                **RTCR,
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
                },
            },
            make_pod(cpu="1", memory="2Gi"),
            {"empty": 75, "half": 25},
        ),
    ],
)
def test_fit_score(strategy: dict[str, Any], pod: dict[str, Any], want: dict[str, int]) -> None:
    nodes = [
        node_info(make_node("empty", cpu="4", memory="8Gi")),
        node_info(make_node("half", cpu="4", memory="8Gi"), make_pod("e", cpu="2", memory="4Gi")),
    ]
    plugin = NodeResourcesFit({"scoringStrategy": strategy} if strategy else {}, make_handle(nodes))
    assert run_score(plugin, pod, nodes) == want


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        (make_pod(cpu="1", memory="2Gi"), {"empty": 100, "cpu-heavy": 75}),
        (make_pod(cpu="2", memory="1Gi"), {"empty": 81, "cpu-heavy": 56}),
        (make_pod(), {"empty": 0, "cpu-heavy": 0}),  # best effort: skipped
    ],
)
def test_balanced_allocation(pod: dict[str, Any], want: dict[str, int]) -> None:
    nodes = [
        node_info(make_node("empty", cpu="4", memory="8Gi")),
        node_info(make_node("cpu-heavy", cpu="4", memory="8Gi"), make_pod("e", cpu="2")),
    ]
    assert run_score(NodeResourcesBalancedAllocation({}, make_handle(nodes)), pod, nodes) == want

"""The replica calculator, table-driven: tolerance, scale up and down, missing and unready pods
treated as upstream's ``GetResourceReplicas`` treats them, AverageValue targets, and errors."""

from __future__ import annotations

from typing import Any

import pytest

from controllers.podautoscaler.metrics import MetricsError, PodMetric, pod_metrics
from controllers.podautoscaler.replicas import raw_resource_replicas, resource_replicas
from tests.controllers.autoscaling.harness import pod
from tests.controllers.autoscaling.harness import pod_metrics as metrics_object

NOW = 1_800_000_000.0


def samples(**usage: int) -> dict[str, PodMetric]:
    return {name: PodMetric(milli, NOW, 10.0) for name, milli in usage.items()}


RUNNING = [pod("a"), pod("b"), pod("c")]


@pytest.mark.parametrize(
    ("case", "current", "target", "pods", "usage", "expected"),
    [
        ("at target", 3, 50, RUNNING, {"a": 50, "b": 50, "c": 50}, (3, 50, 50)),
        ("within the 10% tolerance", 3, 50, RUNNING, {"a": 54, "b": 54, "c": 54}, (3, 54, 54)),
        ("double the target: twice the pods", 3, 50, RUNNING, {"a": 100, "b": 100, "c": 100}, (6, 100, 100)),
        ("far below: scale down", 3, 50, RUNNING, {"a": 10, "b": 10, "c": 10}, (1, 10, 10)),
        # a missing pod counts as using nothing on a scale up: 200m of 300m requested is 1.33x
        ("missing pod on scale up", 3, 50, RUNNING, {"a": 100, "b": 100}, (4, 100, 100)),
        # ... and as using its whole request on a scale down: (10+10+100)/300 = 40% of 50%: 3 pods
        ("missing pod on scale down", 3, 50, RUNNING, {"a": 10, "b": 10}, (3, 10, 10)),
        # a Pending pod is unready: it counts as using nothing when scaling up
        ("pending pod on scale up", 3, 50, [pod("a"), pod("b"), pod("c", phase="Pending")],
         {"a": 100, "b": 100, "c": 100}, (4, 100, 100)),
        # an unready pod is left out when it does not make the HPA scale up
        ("unready pod on scale down", 3, 50, [pod("a"), pod("b"), pod("c", ready="False", age=10)],
         {"a": 10, "b": 10, "c": 500}, (1, 10, 10)),
        ("deleted and failed pods are ignored", 2, 50,
         [pod("a"), pod("b"), pod("c", phase="Failed"), {**pod("d"), "metadata": {**pod("d")["metadata"], "deletionTimestamp": "x"}}],  # noqa: E501
         {"a": 100, "b": 100, "c": 0, "d": 0}, (4, 100, 100)),
        ("the scale direction may not flip", 3, 50, [pod("a"), pod("b"), pod("c", phase="Pending")],
         {"a": 60, "b": 60}, (3, 60, 60)),
    ],
)  # fmt: skip
def test_resource_replicas(
    case: str,
    current: int,
    target: int,
    pods: list[Any],
    usage: dict[str, int],
    expected: tuple[int, int, int],
) -> None:
    proposal = resource_replicas(current, target, "cpu", pods, samples(**usage), NOW)
    assert (proposal.replicas, proposal.utilization, proposal.raw) == expected, case


@pytest.mark.parametrize(
    ("pods", "usage", "message"),
    [
        ([], {"a": 1}, "no pods returned by selector while calculating replica count"),
        (
            [pod("a", phase="Pending")],
            {"a": 1},
            "did not receive metrics for targeted pods (pods might be unready)",
        ),
        ([pod("a", request=None)], {"a": 1}, "missing request for cpu in container c of Pod a"),
        ([pod("a")], {"z": 1}, "no metrics returned matched known pods"),
    ],
)
def test_resource_replicas_errors(pods: list[Any], usage: dict[str, int], message: str) -> None:
    with pytest.raises(MetricsError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        resource_replicas(1, 50, "cpu", pods, samples(**usage), NOW)


def test_average_value_target() -> None:
    proposal = raw_resource_replicas(3, 100, "cpu", RUNNING, samples(a=200, b=200, c=200), NOW)
    assert (proposal.replicas, proposal.raw) == (6, 200)
    assert raw_resource_replicas(3, 100, "cpu", RUNNING, samples(a=105, b=95, c=100), NOW).replicas == 3


def test_pod_metrics_sum_containers_and_skip_incomplete_pods() -> None:
    two = metrics_object("a", "100m", NOW)
    two["containers"].append({"name": "sidecar", "usage": {"cpu": "1500000n", "memory": "1Mi"}})
    incomplete = metrics_object("b", "100m", NOW)
    incomplete["containers"].append({"name": "x", "usage": {"memory": "1Mi"}})
    found = pod_metrics([two, incomplete], "cpu")
    assert (
        set(found) == {"a"} and found["a"].value == 102
    )  # MilliValue rounds 1.5m up and found["a"].window == 10.0
    assert pod_metrics([two], "cpu", container="sidecar")["a"].value == 2

"""HorizontalController.sync against a FakeClient, hand-seeded caches and a FakeClock: scaling
through the scale subresource, status, conditions and Events as upstream's, stabilization and
behavior policies, and bad input (missing metrics, a missing target)."""

from __future__ import annotations

from controllers.podautoscaler.normalize import DOWNSCALE_STABILIZATION
from minikube_py.client.resourcetypes import DEPLOYMENTS, HORIZONTALPODAUTOSCALERS
from tests.controllers.autoscaling.harness import HPAHarness, hpa

UTILIZATION = "cpu resource utilization (percentage of request)"
NO_METRICS = "unable to get metrics for resource cpu: no metrics returned from resource metrics API"


async def test_scales_up_through_the_scale_subresource_and_writes_status() -> None:
    h = HPAHarness()
    h.scenario(2, {"a": "100m", "b": "100m"})
    stored = await h.sync()
    assert h.scaled_to() == [4]
    assert h.stored(DEPLOYMENTS, "web")["spec"]["replicas"] == 4
    assert h.recorder.events == [f"Normal SuccessfulRescale New size: 4; reason: {UTILIZATION} above target"]
    status = stored["status"]
    assert (status["currentReplicas"], status["desiredReplicas"]) == (2, 4)
    assert status["currentMetrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "current": {"averageUtilization": 100, "averageValue": "100m"}},
        }
    ]
    assert status["lastScaleTime"]
    assert h.condition(stored, "AbleToScale") == (
        "True",
        "SucceededRescale",
        "the HPA controller was able to update the target scale to 4",
    )
    assert h.condition(stored, "ScalingActive") == (
        "True",
        "ValidMetricFound",
        f"the HPA was able to successfully calculate a replica count from {UTILIZATION}",
    )
    assert h.condition(stored, "ScalingLimited")[:2] == ("False", "DesiredWithinRange")


async def test_within_tolerance_nothing_changes_and_status_is_written_once() -> None:
    h = HPAHarness()
    h.scenario(2, {"a": "52m", "b": "52m"})
    stored = await h.sync()
    assert h.scaled_to() == [] and h.recorder.events == []
    assert (stored["status"]["currentReplicas"], stored["status"]["desiredReplicas"]) == (2, 2)
    assert h.condition(stored, "AbleToScale")[1] == "ReadyForNewScale"
    await h.sync()
    assert len(h.bodies("update", "horizontalpodautoscalers", "status")) == 1  # unchanged: no write


async def test_scale_up_is_limited_without_behavior() -> None:
    h = HPAHarness()
    h.scenario(1, {"a": "1"}, hpa(maximum=20))  # 1000% of the request: 20 pods wanted
    stored = await h.sync()
    assert h.scaled_to() == [4]  # max(2 x 1, 4)
    assert h.condition(stored, "ScalingLimited") == (
        "True",
        "ScaleUpLimit",
        "the desired replica count is increasing faster than the maximum scale rate",
    )


async def test_scale_down_waits_for_the_downscale_stabilization_window() -> None:
    h = HPAHarness()
    h.scenario(4, {p: "10m" for p in "abcd"})
    stored = await h.sync()
    assert h.scaled_to() == []  # the first recommendation (4) stands for 300 s
    assert h.condition(stored, "AbleToScale")[:2] == ("True", "ScaleDownStabilized")
    await h.clock.step(DOWNSCALE_STABILIZATION + 1)
    h.set_usage({p: "10m" for p in "abcd"})
    await h.sync()
    assert h.scaled_to() == [1]
    assert h.recorder.events[-1] == "Normal SuccessfulRescale New size: 1; reason: All metrics below target"


async def test_behavior_window_and_pods_policy_limit_the_scale_down() -> None:
    behavior = {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}],
        },
        "scaleDown": {
            "stabilizationWindowSeconds": 5,
            "selectPolicy": "Max",
            "policies": [{"type": "Pods", "value": 1, "periodSeconds": 15}],
        },
    }
    h = HPAHarness()
    h.scenario(4, {p: "10m" for p in "abcd"}, hpa(behavior=behavior))
    await h.sync()
    assert h.scaled_to() == []  # inside the 5 s window
    await h.clock.step(6)
    h.set_usage({p: "10m" for p in "abcd"})
    stored = await h.sync()
    assert h.scaled_to() == [3]  # one pod per 15 s
    assert h.condition(stored, "ScalingLimited") == (
        "True",
        "ScaleDownLimit",
        "the desired replica count is decreasing faster than the maximum scale rate",
    )
    await h.clock.step(6)
    h.set_usage({p: "10m" for p in "abc"})
    await h.sync()
    assert h.scaled_to() == [3]  # the policy's period has not passed
    await h.clock.step(15)
    h.set_usage({p: "10m" for p in "abc"})
    await h.sync()
    assert h.scaled_to() == [3, 2]


async def test_missing_metrics_set_scaling_active_false_failed_get_resource_metric() -> None:
    h = HPAHarness()
    h.scenario(2, {"a": "", "b": ""})
    stored = await h.sync()
    assert h.scaled_to() == []
    error = f"failed to get cpu utilization: {NO_METRICS}"
    assert h.condition(stored, "ScalingActive") == (
        "False",
        "FailedGetResourceMetric",
        f"the HPA was unable to compute the replica count: {error}",
    )
    assert h.condition(stored, "AbleToScale")[:2] == ("True", "SucceededGetScale")
    assert h.recorder.events == [
        f"Warning FailedGetResourceMetric {error}",
        "Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: "
        f"failed to get cpu resource metric value: {error}",
    ]
    assert stored["status"]["currentReplicas"] == 2 and stored["status"]["currentMetrics"] == [{"type": ""}]


async def test_a_missing_target_is_failed_get_scale() -> None:
    h = HPAHarness()
    h.seed(HORIZONTALPODAUTOSCALERS, hpa())
    stored = await h.sync()
    assert h.condition(stored, "AbleToScale") == (
        "False",
        "FailedGetScale",
        'the HPA controller was unable to get the target\'s current scale: deployments.apps "web" not found',
    )
    assert h.recorder.events == ['Warning FailedGetScale deployments.apps "web" not found']


async def test_an_unknown_kind_is_failed_get_scale() -> None:
    h = HPAHarness()
    bad = hpa()
    bad["spec"]["scaleTargetRef"] = {"apiVersion": "apps/v1", "kind": "Widget", "name": "web"}
    h.seed(HORIZONTALPODAUTOSCALERS, bad)
    await h.sync()
    assert h.recorder.events == ['Warning FailedGetScale no matches for kind "Widget" in group "apps"']


async def test_replicas_outside_the_bounds_are_clamped_and_zero_disables() -> None:
    h = HPAHarness()
    h.scenario(12, {"a": "50m"}, hpa(maximum=5))
    await h.sync()
    assert h.scaled_to() == [5]
    assert h.recorder.events == [
        "Normal SuccessfulRescale New size: 5; reason: Current number of replicas above Spec.MaxReplicas"
    ]
    zero = HPAHarness()
    zero.scenario(0, {}, hpa())
    stored = await zero.sync()
    assert zero.scaled_to() == []
    assert zero.condition(stored, "ScalingActive") == (
        "False",
        "ScalingDisabled",
        "scaling is disabled since the replica count of the target is zero",
    )


async def test_a_deleted_hpa_forgets_its_history() -> None:
    h = HPAHarness()
    h.scenario(2, {"a": "50m", "b": "50m"})
    await h.sync()
    assert "default/web" in h.controller.histories
    h.fake.objects[("autoscaling", "horizontalpodautoscalers")].clear()
    h.resync(HORIZONTALPODAUTOSCALERS)
    await h.controller.sync("default/web")
    assert "default/web" not in h.controller.histories

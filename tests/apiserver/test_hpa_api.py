"""HorizontalPodAutoscalers over the REST API (in process): autoscaling/v2 and autoscaling/v1
share one storage (v1 through the round-trip annotations of upstream's conversion), defaults,
validation (422 with upstream's messages), the ``kubectl get hpa`` Table and discovery."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

TABLE = {"accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
MEMORY = {
    "type": "Resource",
    "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}},
}


def cpu(percent: int) -> dict[str, Any]:
    target = {"type": "Utilization", "averageUtilization": percent}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


def v2(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 5, **spec},
    }


def v1(name: str, **spec: Any) -> dict[str, Any]:
    return {**v2(name, **spec), "apiVersion": "autoscaling/v1"}


async def test_v2_defaults_min_replicas_metric_and_behavior(api: httpx.AsyncClient) -> None:
    created = await api.post(V2, json=v2("plain"))
    assert created.status_code == 201, created.text
    spec = created.json()["spec"]
    assert spec["minReplicas"] == 1 and spec["metrics"] == [cpu(80)]
    assert "behavior" not in spec  # defaulted only when set, as upstream
    assert created.json()["status"] == {"currentMetrics": None, "desiredReplicas": 0}  # Go's zero status
    with_behavior = await api.post(
        V2, json=v2("b", behavior={"scaleDown": {"stabilizationWindowSeconds": 5}})
    )
    behavior = with_behavior.json()["spec"]["behavior"]
    assert behavior["scaleUp"] == {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15},
        ],
    }
    assert behavior["scaleDown"] == {
        "stabilizationWindowSeconds": 5,
        "selectPolicy": "Max",
        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
    }


async def test_v1_create_reads_back_as_v2_and_v1(api: httpx.AsyncClient) -> None:
    created = await api.post(V1, json=v1("web", minReplicas=2, targetCPUUtilizationPercentage=50))
    assert created.status_code == 201, created.text
    assert created.json()["spec"]["targetCPUUtilizationPercentage"] == 50
    assert created.json()["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    as_v2 = (await api.get(f"{V2}/web")).json()
    assert as_v2["apiVersion"] == "autoscaling/v2"
    assert as_v2["spec"]["metrics"] == [cpu(50)] and as_v2["spec"]["minReplicas"] == 2
    assert "targetCPUUtilizationPercentage" not in as_v2["spec"]
    without_target = (await api.post(V1, json=v1("auto"))).json()
    assert without_target["spec"]["targetCPUUtilizationPercentage"] == 80  # the default metric


async def test_v2_only_fields_travel_in_v1_annotations_and_round_trip(api: httpx.AsyncClient) -> None:
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 5}}
    created = await api.post(V2, json=v2("rich", metrics=[MEMORY, cpu(60)], behavior=behavior))
    assert created.status_code == 201, created.text
    status = {
        "currentReplicas": 2,
        "desiredReplicas": 3,
        "currentMetrics": [
            {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "50Mi"}}},
            {
                "type": "Resource",
                "resource": {"name": "cpu", "current": {"averageUtilization": 70, "averageValue": "70m"}},
            },
        ],
        "conditions": [
            {"type": "AbleToScale", "status": "True", "reason": "SucceededGetScale", "message": "m"}
        ],
    }
    stored = created.json() | {"status": status}
    updated = await api.put(f"{V2}/rich/status", json=stored)
    assert updated.status_code == 200, updated.text
    old = (await api.get(f"{V1}/rich")).json()
    annotations = old["metadata"]["annotations"]
    assert old["spec"]["targetCPUUtilizationPercentage"] == 60
    assert old["status"]["currentCPUUtilizationPercentage"] == 70
    assert json.loads(annotations["autoscaling.alpha.kubernetes.io/metrics"]) == [
        {"type": "Resource", "resource": {"name": "memory", "targetAverageValue": "100Mi"}}
    ]
    current = json.loads(annotations["autoscaling.alpha.kubernetes.io/current-metrics"])
    assert current[1] == {
        "type": "Resource",
        "resource": {"name": "cpu", "currentAverageUtilization": 70, "currentAverageValue": "70m"},
    }
    assert (
        json.loads(annotations["autoscaling.alpha.kubernetes.io/conditions"])[0]["reason"]
        == "SucceededGetScale"
    )
    assert (
        json.loads(annotations["autoscaling.alpha.kubernetes.io/behavior"])["scaleDown"][
            "stabilizationWindowSeconds"
        ]
        == 5
    )
    # a v1 update that changes only the CPU target keeps every v2-only field
    old["spec"]["targetCPUUtilizationPercentage"] = 40
    replaced = await api.put(f"{V1}/rich", json=old)
    assert replaced.status_code == 200, replaced.text
    again = (await api.get(f"{V2}/rich")).json()
    assert again["spec"]["metrics"] == [MEMORY, cpu(40)]  # other metrics first, CPU last (upstream)
    assert again["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 5
    assert again["status"]["currentMetrics"] == status["currentMetrics"]
    assert "annotations" not in again["metadata"]  # round-trip annotations never reach v2
    unchanged = await api.put(f"{V1}/rich", json=(await api.get(f"{V1}/rich")).json())
    assert unchanged.json()["metadata"]["resourceVersion"] == again["metadata"]["resourceVersion"]  # a no-op


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"minReplicas": 0}, "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"),
        (
            {"minReplicas": 6},
            "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`",
        ),
        ({"maxReplicas": 0, "minReplicas": 1}, "spec.maxReplicas: Invalid value: 0: must be greater than 0"),
        ({"scaleTargetRef": {"name": "web"}}, "spec.scaleTargetRef.kind: Required value"),
        (
            {"metrics": [cpu(0)]},
            "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
        ),
        (
            {"metrics": [{"type": "Pods", "resource": cpu(50)["resource"]}]},
            "spec.metrics[0].pods: Required value: must populate information for the given metric source",
        ),
        (
            {
                "metrics": [
                    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization"}}}
                ]
            },
            "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization",  # noqa: E501
        ),
        (
            {"behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 0, "periodSeconds": 15}]}}},
            "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
        ),
        (
            {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 3601}}},
            "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",  # noqa: E501
        ),
    ],
)
async def test_invalid_hpas_are_422(api: httpx.AsyncClient, spec: dict[str, Any], message: str) -> None:
    body = v2("bad")
    body["spec"].update(spec)
    answer = await api.post(V2, json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["reason"] == "Invalid"
    assert message in answer.json()["message"]


async def test_v1_validation_reports_the_v2_paths(api: httpx.AsyncClient) -> None:
    answer = await api.post(V1, json=v1("bad", minReplicas=3, maxReplicas=2))
    assert answer.status_code == 422
    assert (
        "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"
        in answer.json()["message"]
    )


async def test_table_is_kubectls_row(api: httpx.AsyncClient) -> None:
    pods = {
        "type": "Pods",
        "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}},
    }
    await api.post(V2, json=v2("web", metrics=[MEMORY, pods, cpu(50)]))
    table = (await api.get(V2, headers=TABLE)).json()
    names = [c["name"] for c in table["columnDefinitions"]]
    assert names == ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"]
    cells = table["rows"][0]["cells"]
    assert cells[:6] == [
        "web",
        "Deployment/web",
        "memory: <unknown>/100Mi, <unknown>/10 + 1 more...",
        "1",
        5,
        0,
    ]
    v1_table = (await api.get(V1, headers=TABLE)).json()
    assert v1_table["rows"][0]["cells"][:3] == cells[:3]


async def test_discovery_lists_both_versions_v2_preferred(api: httpx.AsyncClient) -> None:
    group = (await api.get("/apis/autoscaling")).json()
    assert [v["version"] for v in group["versions"]] == ["v2", "v1"]
    assert group["preferredVersion"]["version"] == "v2"
    for version in ("v1", "v2"):
        resources = (await api.get(f"/apis/autoscaling/{version}")).json()["resources"]
        hpa = next(r for r in resources if r["name"] == "horizontalpodautoscalers")
        assert hpa["shortNames"] == ["hpa"] and hpa["categories"] == ["all"]
        assert any(r["name"] == "horizontalpodautoscalers/status" for r in resources)

"""The horizontal pod autoscaler in ``up --fake-nodes 2``, with real kubectl: ``kubectl
autoscale`` scales a Deployment up under scripted CPU (the ``minikube-py.io/simulated-cpu``
annotation) and back down (a short scale-down window patched into its behavior), ``kubectl get
hpa`` prints upstream's row, autoscaling/v1 reads carry the v2 state in their annotations, every
installed kubectl (1.27..1.33) can create one, and missing metrics give ScalingActive=False with
reason FailedGetResourceMetric."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import (
    KUBECTL_DIR,
    KUBECTL_MINORS,
    Cluster,
    eventually,
    kubectl,
    kubectl_json,
    kubectl_ok,
    running_up,
)

pytestmark = pytest.mark.e2e
SIMULATED_CPU = "minikube-py.io/simulated-cpu"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("hpa"), flags=["--fake-nodes", "2"])


def namespace(cluster: Cluster) -> str:
    name = f"hpa-{uuid.uuid4().hex[:6]}"
    kubectl_ok(cluster, "create", "namespace", name)
    return name


def deployment(name: str, cpu: str, **pod_spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}, "annotations": {SIMULATED_CPU: cpu}},
                "spec": {"containers": [container], **pod_spec},
            },
        },
    }


def apply(cluster: Cluster, ns: str, manifest: dict[str, Any]) -> None:
    kubectl_ok(cluster, "-n", ns, "apply", "-f", "-", stdin=json.dumps(manifest))


def replicas(cluster: Cluster, ns: str, name: str) -> int:
    return int(kubectl_json(cluster, "-n", ns, "deployment", name)["spec"]["replicas"])


def condition(hpa: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in (hpa.get("status") or {}).get("conditions") or [] if c["type"] == kind)


def test_autoscale_scales_up_under_scripted_cpu_and_back_down(cluster: Cluster) -> None:
    ns = namespace(cluster)
    apply(cluster, ns, deployment("web", "400m"))
    kubectl_ok(cluster, "-n", ns, "autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=5")
    eventually(lambda: replicas(cluster, ns, "web") > 1, "a scale up", timeout=60)
    rows = eventually(
        lambda: (out := kubectl_ok(cluster, "-n", ns, "get", "hpa")) and "cpu: 400%/50%" in out and out,
        "a reading in kubectl get hpa",
        timeout=60,
    )
    header, row = rows.splitlines()[:2]
    assert header.split() == ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]
    assert row.split()[:7] == ["web", "Deployment/web", "cpu:", "400%/50%", "1", "5", row.split()[6]]
    hpa = kubectl_json(cluster, "-n", ns, "hpa", "web")
    assert condition(hpa, "ScalingActive")["reason"] == "ValidMetricFound"
    v1 = json.loads(
        kubectl_ok(
            cluster, "get", "--raw", f"/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers/web"
        )
    )
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 50
    assert v1["status"]["currentCPUUtilizationPercentage"] == 400
    annotations = v1["metadata"]["annotations"]
    assert json.loads(annotations["autoscaling.alpha.kubernetes.io/conditions"])[0]["type"] == "AbleToScale"
    assert "autoscaling.alpha.kubernetes.io/current-metrics" in annotations
    behavior = {"spec": {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 5}}}}
    kubectl_ok(cluster, "-n", ns, "patch", "hpa", "web", "--type=merge", "-p", json.dumps(behavior))

    def idle_and_scaled_down() -> bool:
        # pods created by a late scale up start with the template's 400m: quiet them too
        kubectl(cluster, "-n", ns, "annotate", "pods", "-l", "app=web", f"{SIMULATED_CPU}=10m", "--overwrite")
        return replicas(cluster, ns, "web") == 1

    eventually(idle_and_scaled_down, "a scale down to 1", timeout=90, interval=2)
    events = kubectl_json(
        cluster, "-n", ns, "events", "--field-selector", "involvedObject.kind=HorizontalPodAutoscaler"
    )
    messages = [e["message"] for e in events["items"] if e["reason"] == "SuccessfulRescale"]
    assert any("reason: cpu resource utilization (percentage of request) above target" in m for m in messages)
    assert any(m == "New size: 1; reason: All metrics below target" for m in messages)


def test_missing_metrics_are_scaling_active_false(cluster: Cluster) -> None:
    ns = namespace(cluster)
    apply(cluster, ns, deployment("pending", "400m", nodeSelector={"no-such": "node"}))  # never runs
    kubectl_ok(cluster, "-n", ns, "autoscale", "deployment", "pending", "--max=3")

    def failed() -> dict[str, Any]:
        found = condition(kubectl_json(cluster, "-n", ns, "hpa", "pending"), "ScalingActive")
        return found if found["status"] == "False" else {}

    active = eventually(failed, "ScalingActive=False", timeout=60)
    assert active["reason"] == "FailedGetResourceMetric"
    assert active["message"] == (
        "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get "
        "metrics for resource cpu: no metrics returned from resource metrics API"
    )
    assert "cpu: <unknown>/80%" in kubectl_ok(cluster, "-n", ns, "get", "hpa", "pending")


INSTALLED = [m for m in KUBECTL_MINORS if (Path(KUBECTL_DIR) / f"kubectl.1.{m}").exists()]


@pytest.mark.parametrize("minor", INSTALLED)
def test_every_kubectl_autoscales(cluster: Cluster, minor: int) -> None:
    """kubectl creates an autoscaling/v1 HPA (from 1.32 its typed client writes protobuf:
    /work/shared/kubectl-wire.md)."""
    binary = Path(KUBECTL_DIR) / f"kubectl.1.{minor}"
    ns = namespace(cluster)
    apply(cluster, ns, deployment("web", "10m"))
    result = kubectl(
        cluster, "-n", ns, "autoscale", "deployment", "web", "--cpu-percent=60", "--max=4", binary=str(binary)
    )
    assert result.returncode == 0, result.stderr
    hpa = kubectl_json(cluster, "-n", ns, "hpa", "web")
    assert hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 60
    listed = kubectl(cluster, "-n", ns, "get", "hpa", binary=str(binary))
    assert listed.returncode == 0 and "Deployment/web" in listed.stdout, listed.stderr

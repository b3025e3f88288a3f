"""Builders for the horizontal pod autoscaler's tests: pods with requests and readiness, their
PodMetrics, a Deployment with a status, HPAs, and a Harness wiring the controller to a
FakeClient, hand-seeded caches and a FakeClock."""

from __future__ import annotations

from typing import Any

from controllers.podautoscaler import HorizontalController
from controllers.podautoscaler.metrics import POD_METRICS
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import DEPLOYMENTS, HORIZONTALPODAUTOSCALERS, PODS
from tests.controllers.apps.harness import NS, Harness

HOUR = 3600.0


def pod(
    name: str,
    request: str | None = "100m",
    *,
    phase: str = "Running",
    ready: str | None = "True",
    age: float = HOUR,
) -> Object:
    """A pod of ``app=web`` started ``age`` seconds before the fake clock's start, Ready as
    ``ready`` (None: no Ready condition) since then."""
    resources = {"requests": {"cpu": request}} if request is not None else {}
    start = format_rfc3339(1_800_000_000.0 - age)
    obj: Object = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}", "labels": {"app": "web"}},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx", "resources": resources}]},
        "status": {"phase": phase, "startTime": start},
    }
    if ready is not None:
        obj["status"]["conditions"] = [{"type": "Ready", "status": ready, "lastTransitionTime": start}]
    return obj


def pod_metrics(name: str, cpu: str, at: float, memory: str = "10Mi") -> Object:
    return {
        "apiVersion": "metrics.k8s.io/v1beta1",
        "kind": "PodMetrics",
        "metadata": {"name": name, "namespace": NS, "labels": {"app": "web"}},
        "timestamp": format_rfc3339(at),
        "window": "10s",
        "containers": [{"name": "c", "usage": {"cpu": cpu, "memory": memory}}],
    }


def deployment(replicas: int) -> Object:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": NS, "uid": "uid-web", "generation": 1},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"replicas": replicas},
    }


def cpu_metric(percent: int) -> Object:
    target = {"type": "Utilization", "averageUtilization": percent}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


def hpa(*, minimum: int = 1, maximum: int = 10, metrics: list[Object] | None = None, **spec: Any) -> Object:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": NS, "uid": "uid-hpa", "generation": 1},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": minimum,
            "maxReplicas": maximum,
            "metrics": metrics or [cpu_metric(50)],
            **spec,
        },
    }


class HPAHarness(Harness):
    def __init__(self) -> None:
        super().__init__()
        self.controller = HorizontalController(self.fake, self.factory, self.recorder, clock=self.clock)

    def scenario(
        self, replicas: int, usage: dict[str, str], autoscaler: Object | None = None, **pod_args: Any
    ) -> None:
        """A Deployment of ``replicas``, a pod per ``usage`` entry with its CPU sample (an empty
        usage: no sample), and the HPA."""
        self.seed(DEPLOYMENTS, deployment(replicas))
        for name, cpu in usage.items():
            self.seed(PODS, pod(name, **pod_args))
            if cpu:
                self.fake.seed(POD_METRICS, pod_metrics(name, cpu, self.clock.now()))
        self.seed(HORIZONTALPODAUTOSCALERS, autoscaler or hpa())

    def set_usage(self, usage: dict[str, str]) -> None:
        for name, cpu in usage.items():
            self.fake.seed(POD_METRICS, pod_metrics(name, cpu, self.clock.now()))

    async def sync(self) -> Object:
        """One sync of ``default/web``, the caches caught up first; the stored HPA after it."""
        self.resync(HORIZONTALPODAUTOSCALERS, PODS)
        await self.controller.sync(f"{NS}/web")
        return self.stored(HORIZONTALPODAUTOSCALERS, "web")

    def scaled_to(self) -> list[int]:
        return [b["spec"]["replicas"] for b in self.bodies("update", "deployments", "scale")]

    def condition(self, obj: Object, kind: str) -> tuple[str, str, str]:
        found = next(c for c in obj["status"]["conditions"] if c["type"] == kind)
        return found["status"], found["reason"], found["message"]

"""The desired replicas from an HPA's metrics (upstream's ``computeReplicasForMetrics``): one
proposal per metric, the highest wins; each failure is an Event and the ScalingActive=False
condition of the first one (``FailedGetResourceMetric``...), which stands when every metric
failed or when the working ones would scale down."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from controllers.podautoscaler.conditions import set_condition
from controllers.podautoscaler.metrics import MetricsError, ResourceMetricsClient
from controllers.podautoscaler.replicas import Proposal, raw_resource_replicas, resource_replicas
from minikube_py.api.labels import Selector, SelectorError, parse_label_selector
from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.unstructured import Object
from minikube_py.events import Recorder

CUSTOM_METRICS_MISSING = "the server could not find the requested resource"
FAILED_REASONS = {
    "Pods": "FailedGetPodsMetric",
    "Object": "FailedGetObjectMetric",
    "External": "FailedGetExternalMetric",
}
NO_TARGET = "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set"  # noqa: E501


class ComputeError(Exception):
    """No replica count: ``statuses`` are the metrics read anyway."""

    def __init__(self, message: str, statuses: list[Object] | None = None) -> None:
        super().__init__(message)
        self.statuses = statuses or []


class MetricFailure(Exception):
    """One metric failed: ``reason`` and ``message`` are its ScalingActive=False condition's."""

    def __init__(self, error: str, reason: str, message: str) -> None:
        super().__init__(error)
        self.reason, self.message = reason, message


@dataclass
class Computed:
    replicas: int
    metric: str
    statuses: list[Object] = field(default_factory=list)
    error: str = ""


def _milli_quantity(milli: int) -> str:
    """A DecimalSI quantity from milli-units, as ``resource.NewMilliQuantity(...).String()``."""
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"


class MetricsComputer:
    def __init__(self, metrics: ResourceMetricsClient, recorder: Recorder) -> None:
        self.metrics = metrics
        self.recorder = recorder

    def _unable(self, hpa: Object, reason: str, message: str, now: float) -> tuple[str, str]:
        self.recorder.event(hpa, "Warning", reason, message)
        return reason, f"the HPA was unable to compute the replica count: {message}"

    def selector(self, hpa: Object, text: str, now: float) -> Selector:
        if not text:
            self.recorder.event(hpa, "Warning", "SelectorRequired", "selector is required")
            message = "the HPA target's scale is missing a selector"
            set_condition(hpa, "ScalingActive", "False", "InvalidSelector", message, now)
            raise ComputeError("selector is required")
        try:
            return parse_label_selector(text)
        except SelectorError as err:
            message = f"couldn't convert selector into a corresponding internal selector object: {err}"
            self.recorder.event(hpa, "Warning", "InvalidSelector", message)
            set_condition(hpa, "ScalingActive", "False", "InvalidSelector", message, now)
            raise ComputeError(message) from err

    async def compute(self, hpa: Object, scale: Object, pods: Sequence[Object], now: float) -> Computed:
        """Raises ``ComputeError`` (statuses attached) when no replica count can be proposed."""
        selector = self.selector(hpa, (scale.get("status") or {}).get("selector") or "", now)
        spec_replicas = int((scale.get("spec") or {}).get("replicas") or 0)
        metrics = hpa["spec"].get("metrics") or []
        statuses: list[Object] = [{"type": ""} for _ in metrics]
        selected = [p for p in pods if selector.matches(p["metadata"].get("labels") or {})]
        replicas, name, failures = 0, "", 0
        first: MetricFailure | None = None
        for i, metric in enumerate(metrics):
            try:
                proposal, metric_name, statuses[i] = await self._one(
                    hpa, metric, spec_replicas, str(selector), selected, now
                )
            except MetricFailure as failure:
                failures += 1
                first = first or failure
                continue
            if replicas == 0 or proposal.replicas > replicas:
                replicas, name = proposal.replicas, metric_name
        error = ""
        if first is not None:
            error = f"invalid metrics ({failures} invalid out of {len(metrics)}), first error is: {first}"
        if first is not None and (failures >= len(metrics) or replicas < spec_replicas):
            set_condition(hpa, "ScalingActive", "False", first.reason, first.message, now)
            raise ComputeError(error, statuses)
        message = f"the HPA was able to successfully calculate a replica count from {name}"
        set_condition(hpa, "ScalingActive", "True", "ValidMetricFound", message, now)
        return Computed(replicas, name, statuses, error)

    def _failure(self, hpa: Object, reason: str, event: str, error: str) -> MetricFailure:
        """Upstream's ``getUnableComputeReplicaCountCondition``: the Event, then the failure."""
        self.recorder.event(hpa, "Warning", reason, event)
        return MetricFailure(error, reason, f"the HPA was unable to compute the replica count: {event}")

    async def _one(
        self, hpa: Object, metric: Object, current: int, selector: str, pods: Sequence[Object], now: float
    ) -> tuple[Proposal, str, Object]:
        """One metric's proposal, its name in events and its status."""
        kind = str(metric.get("type") or "")
        if kind in ("Resource", "ContainerResource"):
            key = "resource" if kind == "Resource" else "containerResource"
            source = metric.get(key) or {}
            resource, container = str(source.get("name") or ""), str(source.get("container") or "")
            try:
                proposal, name, value = await self._resource(
                    hpa, source, (resource, container), current, selector, pods, now
                )
            except MetricsError as err:
                reason = (
                    "FailedGetResourceMetric" if kind == "Resource" else "FailedGetContainerResourceMetric"
                )
                raise self._failure(
                    hpa, reason, str(err), f"failed to get {resource} resource metric value: {err}"
                ) from err
            status: Object = {"name": resource, "current": value}
            if container:
                status["container"] = container
            return proposal, name, {"type": kind, key: status}
        if kind in FAILED_REASONS:
            source = metric.get(kind.lower()) or {}
            metric_name = (source.get("metric") or {}).get("name", "")
            error = f"unable to get metric {metric_name}: unable to fetch metrics from custom metrics API: "
            error += CUSTOM_METRICS_MISSING
            raise self._failure(
                hpa, FAILED_REASONS[kind], error, f"failed to get {kind.lower()} metric value: {error}"
            )
        error = f'unknown metric source type "{kind}"'
        raise self._failure(hpa, "InvalidMetricSourceType", error, error)

    async def _resource(
        self,
        hpa: Object,
        source: Object,
        names: tuple[str, str],
        current: int,
        selector: str,
        pods: Sequence[Object],
        now: float,
    ) -> tuple[Proposal, str, Object]:
        """A resource metric's proposal, name and current value (upstream's
        ``computeStatusForResourceMetricGeneric``); ``names`` are the resource and container."""
        target = source.get("target") or {}
        namespace = hpa["metadata"]["namespace"]
        resource, container = names
        if target.get("averageValue") is not None:
            try:
                metrics, _ = await self.metrics.resource_metric(resource, namespace, selector, container)
            except MetricsError as err:
                raise MetricsError(
                    f"failed to get {resource} usage: {_unable_metrics(resource, err)}"
                ) from err
            try:
                average = _milli_target(target["averageValue"])
                proposal = raw_resource_replicas(current, average, resource, pods, metrics, now)
            except MetricsError as err:
                raise MetricsError(f"failed to get {resource} usage: {err}") from err
            return proposal, f"{resource} resource", {"averageValue": _milli_quantity(proposal.raw)}
        utilization = target.get("averageUtilization")
        if utilization is None:
            raise MetricsError(NO_TARGET)
        try:
            metrics, _ = await self.metrics.resource_metric(resource, namespace, selector, container)
        except MetricsError as err:
            raise MetricsError(
                f"failed to get {resource} utilization: {_unable_metrics(resource, err)}"
            ) from err
        try:
            proposal = resource_replicas(current, int(utilization), resource, pods, metrics, now, container)
        except MetricsError as err:
            raise MetricsError(f"failed to get {resource} utilization: {err}") from err
        scope = "container resource" if container else "resource"
        name = f"{resource} {scope} utilization (percentage of request)"
        value = {"averageUtilization": proposal.utilization, "averageValue": _milli_quantity(proposal.raw)}
        return proposal, name, value


def _unable_metrics(resource: str, err: Exception) -> str:
    return f"unable to get metrics for resource {resource}: {err}"


def _milli_target(value: object) -> int:
    try:
        return parse_quantity(str(value)).milli_value()
    except QuantityError as err:
        raise MetricsError(f"invalid target value {value}") from err

"""The replica calculator (upstream's ``replica_calculator.go``, resource metrics): how many
replicas bring the pods' average usage to the target.

Pods are grouped as upstream's ``groupPods``: deleted or Failed pods are ignored; Pending pods
and (for CPU) pods not yet ready, or still in their CPU initialization period with a sample from
before they became ready, are unready; pods without a sample are missing. The ratio of usage to
target is computed over the ready pods with samples; within the tolerance (10%) nothing changes.
Otherwise, when pods are unready or missing, the ratio is recomputed conservatively: on a scale
up unready and missing pods count as using nothing, on a scale down missing pods count as using
their whole request (or the target, when it is above 100%), and a change that the recomputation
reverses or makes tiny is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controllers.podautoscaler.metrics import MetricsError, PodMetric, PodMetricsInfo
from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object

TOLERANCE = 0.1  # --horizontal-pod-autoscaler-tolerance
CPU_INITIALIZATION_PERIOD = 300.0  # --horizontal-pod-autoscaler-cpu-initialization-period
INITIAL_READINESS_DELAY = 30.0  # --horizontal-pod-autoscaler-initial-readiness-delay


@dataclass(frozen=True)
class PodGroups:
    ready_count: int
    unready: frozenset[str]
    missing: frozenset[str]
    ignored: frozenset[str]


def _ready_condition(pod: Object) -> Object | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            found: Object = condition
            return found
    return None


def group_pods(pods: Sequence[Object], metrics: PodMetricsInfo, resource: str, now: float) -> PodGroups:
    ready, unready, missing, ignored = 0, set(), set(), set()
    for pod in pods:
        name, status = pod["metadata"]["name"], pod.get("status") or {}
        if pod["metadata"].get("deletionTimestamp") or status.get("phase") == "Failed":
            ignored.add(name)
            continue
        if status.get("phase") == "Pending":
            unready.add(name)
            continue
        metric = metrics.get(name)
        if metric is None:
            missing.add(name)
            continue
        if resource == "cpu" and _unready_for_cpu(pod, metric, now):
            unready.add(name)
            continue
        ready += 1
    return PodGroups(ready, frozenset(unready), frozenset(missing), frozenset(ignored))


def _unready_for_cpu(pod: Object, metric: PodMetric, now: float) -> bool:
    condition = _ready_condition(pod)
    started = parse_rfc3339((pod.get("status") or {}).get("startTime"))
    if condition is None or started is None:
        return True
    transition = parse_rfc3339(condition.get("lastTransitionTime")) or 0.0
    if started + CPU_INITIALIZATION_PERIOD > now:
        # still initializing: an unready pod, or a sample taken before a full window of readiness
        return condition.get("status") == "False" or metric.timestamp < transition + metric.window
    # unready and never ready yet
    return condition.get("status") == "False" and started + INITIAL_READINESS_DELAY > transition


def pod_requests(pods: Sequence[Object], resource: str, container: str = "") -> dict[str, int]:
    """Upstream's ``calculatePodRequests``: milli-units requested per pod."""
    requests: dict[str, int] = {}
    for pod in pods:
        total = 0
        for c in (pod.get("spec") or {}).get("containers") or []:
            if container and c.get("name") != container:
                continue
            requested = ((c.get("resources") or {}).get("requests") or {}).get(resource)
            try:
                total += parse_quantity(str(requested)).milli_value() if requested is not None else -1
            except QuantityError:
                requested = None
            if requested is None:
                name = pod["metadata"]["name"]
                raise MetricsError(
                    f"missing request for {resource} in container {c.get('name')} of Pod {name}"
                )
        requests[pod["metadata"]["name"]] = total
    return requests


def _milli(value: object) -> int | None:
    try:
        return parse_quantity(str(value)).milli_value()
    except QuantityError:
        return None


def utilization_ratio(
    metrics: PodMetricsInfo, requests: dict[str, int], target: int
) -> tuple[float, int, int]:
    """Upstream's ``GetResourceUtilizationRatio``: (usage / target, utilization %, raw average)."""
    used = requested = entries = 0
    for name, metric in metrics.items():
        if name in requests:
            used, requested, entries = used + metric.value, requested + requests[name], entries + 1
    if requested == 0:
        raise MetricsError("no metrics returned matched known pods")
    utilization = used * 100 // requested
    return utilization / target, utilization, used // entries


def within(ratio: float, tolerance: float = TOLERANCE) -> bool:
    return abs(1.0 - ratio) <= tolerance


@dataclass(frozen=True)
class Proposal:
    replicas: int
    utilization: int  # percent of the request (0 for an average value target)
    raw: int  # the average usage, milli-units


def _counted_metrics(
    pods: Sequence[Object], metrics: PodMetricsInfo, resource: str, now: float
) -> tuple[PodGroups, PodMetricsInfo]:
    """The pods grouped, and the metrics of those that count (neither ignored nor unready);
    ``MetricsError`` with upstream's messages when there are no pods or no such metrics."""
    if not pods:
        raise MetricsError("no pods returned by selector while calculating replica count")
    groups = group_pods(pods, metrics, resource, now)
    counted = dict(metrics)
    for name in groups.ignored | groups.unready:
        counted.pop(name, None)
    if not counted:
        raise MetricsError("did not receive metrics for targeted pods (pods might be unready)")
    return groups, counted


def resource_replicas(
    current: int,
    target_utilization: int,
    resource: str,
    pods: Sequence[Object],
    metrics: PodMetricsInfo,
    now: float,
    container: str = "",
) -> Proposal:
    """Upstream's ``GetResourceReplicas`` on the listed pods and metrics."""
    groups, metrics = _counted_metrics(pods, metrics, resource, now)
    requests = pod_requests(pods, resource, container)
    ratio, utilization, raw = utilization_ratio(metrics, requests, target_utilization)

    def ratio_of(m: PodMetricsInfo) -> float:
        return utilization_ratio(m, requests, target_utilization)[0]

    def fallback(name: str) -> int:  # a missing pod on a scale down: its whole request (or the target)
        return requests.get(name, 0) * max(100, target_utilization) // 100

    return Proposal(_adjusted(current, ratio, groups, metrics, ratio_of, fallback), utilization, raw)


def raw_resource_replicas(
    current: int,
    target_average: int,
    resource: str,
    pods: Sequence[Object],
    metrics: PodMetricsInfo,
    now: float,
) -> Proposal:
    """Upstream's ``GetRawResourceReplicas`` (an AverageValue target, milli-units)."""
    groups, metrics = _counted_metrics(pods, metrics, resource, now)

    def ratio_of(m: PodMetricsInfo) -> float:
        return sum(v.value for v in m.values()) / len(m) / target_average

    ratio = ratio_of(metrics)
    raw = sum(v.value for v in metrics.values()) // len(metrics)
    replicas = _adjusted(current, ratio, groups, metrics, ratio_of, fallback=lambda name: target_average)
    return Proposal(replicas, 0, raw)


def _adjusted(
    current: int,
    ratio: float,
    groups: PodGroups,
    metrics: PodMetricsInfo,
    ratio_of: Callable[[PodMetricsInfo], float],
    fallback: Callable[[str], int],
) -> int:
    """The replica count from ``ratio``, made conservative for unready and missing pods."""
    scale_up_with_unready = bool(groups.unready) and ratio > 1.0
    if not scale_up_with_unready and not groups.missing:
        return current if within(ratio) else math.ceil(ratio * groups.ready_count)
    for name in groups.missing:
        if ratio < 1.0:
            metrics[name] = PodMetric(fallback(name), 0.0, 0.0)
        elif ratio > 1.0:
            metrics[name] = PodMetric(0, 0.0, 0.0)
    if scale_up_with_unready:
        for name in groups.unready:
            metrics[name] = PodMetric(0, 0.0, 0.0)
    new_ratio = ratio_of(metrics)
    if within(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return int(current)
    replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return int(current)
    return int(replicas)

"""The resource metrics client (upstream's ``metrics/client.go``, resource part): per-pod usage
from the ``metrics.k8s.io/v1beta1`` PodMetrics the node agents feed, in milli-units (millicores
of CPU, milli-bytes of memory, as upstream's ``MilliValue``)."""

from __future__ import annotations

from dataclasses import dataclass

from minikube_py.api.errors import ApiError
from minikube_py.api.quantity import QuantityError, parse_quantity
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import resource_type
from minikube_py.goduration import parse_go_duration

POD_METRICS = resource_type("metrics.k8s.io/v1beta1", "pods")


class MetricsError(Exception):
    """The metrics could not be read; the message is upstream's."""


@dataclass(frozen=True)
class PodMetric:
    value: int  # milli-units
    timestamp: float  # wall-clock seconds
    window: float  # seconds


PodMetricsInfo = dict[str, PodMetric]


def _milli(value: object) -> int | None:
    try:
        return parse_quantity(str(value)).milli_value()
    except QuantityError:
        return None


def pod_metrics(items: list[Object], resource: str, container: str = "") -> PodMetricsInfo:
    """Upstream's ``getPodMetrics``/``getContainerMetrics``: the sum over the pod's containers (or
    the one named); a pod missing the resource in any counted container is left out."""
    found: PodMetricsInfo = {}
    for item in items:
        containers = item.get("containers") or []
        total, missing = 0, not containers
        for c in containers:
            if container and c.get("name") != container:
                continue
            usage = (
                _milli((c.get("usage") or {}).get(resource)) if resource in (c.get("usage") or {}) else None
            )
            if usage is None:
                missing = True
                break
            total += usage
        if container and not any(c.get("name") == container for c in containers):
            missing = True
        if not missing:
            try:
                window = parse_go_duration(str(item.get("window") or "0s"))
            except ValueError:
                window = 0.0
            found[item["metadata"]["name"]] = PodMetric(
                total, parse_rfc3339(item.get("timestamp")) or 0.0, window
            )
    return found


class ResourceMetricsClient:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def resource_metric(
        self, resource: str, namespace: str, selector: str, container: str = ""
    ) -> tuple[PodMetricsInfo, float]:
        """Usage of ``resource`` per pod matching ``selector`` and the first item's timestamp."""
        try:
            listed = await self.client.resource(POD_METRICS, namespace).list(label_selector=selector)
        except ApiError as err:
            raise MetricsError(f"unable to fetch metrics from resource metrics API: {err}") from err
        items = listed.get("items") or []
        if not items:
            raise MetricsError("no metrics returned from resource metrics API")
        return pod_metrics(items, resource, container), parse_rfc3339(items[0].get("timestamp")) or 0.0

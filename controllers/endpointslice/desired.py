"""The endpoints a Service's pods give (upstream's ``podToEndpoint`` and ``getEndpointPorts``):
every pod with an address that can still run, terminating ones included (``serving`` and
``terminating`` tell proxies about them; ``ready`` is never true for a terminating pod unless
``publishNotReadyAddresses``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controllers.endpointslice.reconciler import Desired
from controllers.endpointutil.pods import (
    find_port,
    is_headless,
    pod_ip,
    should_pod_be_in_endpoints,
    should_set_hostname,
    target_ref,
)
from controllers.endpointutil.slices import (
    HEADLESS_LABEL,
    MANAGED_BY_LABEL,
    SERVICE_NAME_LABEL,
    endpoint_key,
    ports_key,
)
from controllers.podcontrol.pods import is_pod_ready
from minikube_py.api.unstructured import Object

ZONE_LABEL = "topology.kubernetes.io/zone"


def endpoint_ports(service: Object, pod: Object) -> list[dict[str, Any]]:
    ports: list[dict[str, Any]] = []
    for service_port in (service.get("spec") or {}).get("ports") or []:
        number = find_port(pod, service_port)
        if number is None:
            continue  # a named port this pod does not declare
        port: dict[str, Any] = {
            "name": service_port.get("name") or "",
            "port": number,
            "protocol": service_port.get("protocol") or "TCP",
        }
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def pod_endpoint(pod: Object, node: Object | None, service: Object) -> dict[str, Any]:
    serving = is_pod_ready(pod)
    terminating = bool(pod["metadata"].get("deletionTimestamp"))
    ready = bool((service.get("spec") or {}).get("publishNotReadyAddresses")) or (serving and not terminating)
    endpoint: dict[str, Any] = {
        "addresses": [pod_ip(pod)],
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
    }
    if should_set_hostname(pod, service):
        endpoint["hostname"] = pod["spec"]["hostname"]
    endpoint["targetRef"] = target_ref(pod)
    node_name = (pod.get("spec") or {}).get("nodeName")
    if node_name:
        endpoint["nodeName"] = node_name
    zone = ((node or {}).get("metadata", {}).get("labels") or {}).get(ZONE_LABEL)
    if zone:
        endpoint["zone"] = zone
    return endpoint


def desired_endpoints(
    service: Object, pods: list[Object], node_of: Callable[[str], Object | None]
) -> tuple[dict[str, Desired], list[str]]:
    """The wanted endpoints by port set, and the pods left out because their node is unknown
    (upstream retries those once the node informer catches up)."""
    desired: dict[str, Desired] = {}
    missing: list[str] = []
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, True):
            continue
        node_name = (pod.get("spec") or {}).get("nodeName") or ""
        node = node_of(node_name)
        if node is None:
            missing.append(pod["metadata"]["name"])
            continue
        ports = endpoint_ports(service, pod)
        endpoint = pod_endpoint(pod, node, service)
        want = desired.setdefault(ports_key(ports), Desired(ports))
        want.endpoints[endpoint_key(endpoint)] = endpoint
    return desired, missing


def slice_labels(service: Object, managed_by: str) -> dict[str, str]:
    """The Service's labels (but the reserved two), its name, the manager, headless-ness."""
    labels = {
        k: v
        for k, v in (service["metadata"].get("labels") or {}).items()
        if k not in (SERVICE_NAME_LABEL, MANAGED_BY_LABEL)
    }
    labels[SERVICE_NAME_LABEL] = service["metadata"]["name"]
    labels[MANAGED_BY_LABEL] = managed_by
    if is_headless(service):
        labels[HEADLESS_LABEL] = ""
    else:
        labels.pop(HEADLESS_LABEL, None)
    return labels

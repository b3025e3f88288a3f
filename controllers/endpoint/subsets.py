"""The subsets of a Service's Endpoints (upstream's ``syncService`` body, ``addEndpointSubset``,
``endpoints.RepackSubsets`` and ``truncateEndpoints``).

Each selected pod that may back the Service gives one address per Service port it serves
(ready, or in ``notReadyAddresses``); a named target port the pod does not declare gives that
pod no address for that port. ``repack`` then groups addresses that serve the same ports into
one subset, in a canonical order, so equal endpoints compare equal."""

from __future__ import annotations

import json
from typing import Any

from controllers.endpointutil.pods import (
    find_port,
    is_headless,
    pod_ip,
    should_pod_be_in_endpoints,
    should_set_hostname,
    target_ref,
)
from controllers.podcontrol.pods import is_pod_ready
from minikube_py.api.unstructured import Object

#: upstream's ``maxCapacity``: addresses kept in one Endpoints object
MAX_CAPACITY = 1000
OVER_CAPACITY_ANNOTATION = "endpoints.kubernetes.io/over-capacity"
TRUNCATED = "truncated"

Subset = dict[str, Any]


def endpoint_address(pod: Object, service: Object) -> dict[str, Any]:
    address: dict[str, Any] = {"ip": pod_ip(pod)}
    if should_set_hostname(pod, service):
        address["hostname"] = pod["spec"]["hostname"]
    node = (pod.get("spec") or {}).get("nodeName")
    if node:
        address["nodeName"] = node
    address["targetRef"] = target_ref(pod)
    return address


def endpoint_port(service_port: dict[str, Any], number: int) -> dict[str, Any]:
    port: dict[str, Any] = {"port": number, "protocol": service_port.get("protocol") or "TCP"}
    if service_port.get("name"):
        port["name"] = service_port["name"]
    if service_port.get("appProtocol"):
        port["appProtocol"] = service_port["appProtocol"]
    return port


def desired_subsets(service: Object, pods: list[Object]) -> list[Subset]:
    spec = service.get("spec") or {}
    publish_not_ready = bool(spec.get("publishNotReadyAddresses"))
    subsets: list[Subset] = []
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, publish_not_ready):
            continue
        address = endpoint_address(pod, service)
        ready = publish_not_ready or is_pod_ready(pod)
        kind = "addresses" if ready else "notReadyAddresses"
        service_ports = spec.get("ports") or []
        if not service_ports:
            if is_headless(service):  # a headless Service may have no ports
                subsets.append({kind: [address]})
            continue
        for service_port in service_ports:
            number = find_port(pod, service_port)
            if number is None:
                continue  # upstream logs and skips: no pod port by that name
            subsets.append({kind: [address], "ports": [endpoint_port(service_port, number)]})
    return repack(subsets)


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _address_order(address: dict[str, Any]) -> tuple[str, str]:
    return (str(address.get("ip", "")), str((address.get("targetRef") or {}).get("uid", "")))


def repack(subsets: list[Subset]) -> list[Subset]:
    """Upstream's ``RepackSubsets``: per port, which addresses serve it and whether ready
    (ready wins when both); ports whose address maps are equal share one subset."""
    addresses: dict[str, dict[str, Any]] = {}
    port_values: dict[str, dict[str, Any] | None] = {}
    ready_by_port: dict[str, dict[str, bool]] = {}
    for subset in subsets:
        ports = subset.get("ports") or [None]
        for ready, field in ((True, "addresses"), (False, "notReadyAddresses")):
            for address in subset.get(field) or []:
                akey = _key(address)
                addresses[akey] = address
                for port in ports:
                    pkey = _key(port)
                    port_values[pkey] = port
                    readiness = ready_by_port.setdefault(pkey, {})
                    readiness[akey] = ready or readiness.get(akey, False)
    groups: dict[str, tuple[dict[str, bool], list[str]]] = {}
    for pkey, readiness in ready_by_port.items():
        group = groups.setdefault(_key(sorted(readiness.items())), (readiness, []))
        group[1].append(pkey)
    out: list[Subset] = []
    for gkey in groups:
        readiness, port_keys = groups[gkey]
        packed: Subset = {}
        for ready, field in ((True, "addresses"), (False, "notReadyAddresses")):
            chosen = [addresses[a] for a, r in readiness.items() if r == ready]
            if chosen:
                packed[field] = sorted(chosen, key=_address_order)
        ports = [p for p in (port_values[k] for k in port_keys) if p is not None]
        if ports:
            packed["ports"] = sorted(ports, key=lambda p: (str(p.get("name", "")), p["port"], p["protocol"]))
        out.append(packed)
    # a canonical order (by ports, then addresses), so equal endpoints compare equal
    return sorted(out, key=lambda s: _key([s.get("ports"), s.get("addresses"), s.get("notReadyAddresses")]))


def count_addresses(subsets: list[Subset]) -> int:
    return sum(len(s.get("addresses") or []) + len(s.get("notReadyAddresses") or []) for s in subsets)


def truncate(subsets: list[Subset]) -> bool:
    """Keep at most ``MAX_CAPACITY`` addresses, shared among subsets in proportion to their size,
    ready ones first within each subset (upstream's ``truncateEndpoints``). True if any dropped."""
    total = count_addresses(subsets)
    if total <= MAX_CAPACITY:
        return False
    left = MAX_CAPACITY
    for index, subset in enumerate(subsets):
        size = len(subset.get("addresses") or []) + len(subset.get("notReadyAddresses") or [])
        allowed = left if index == len(subsets) - 1 else min(left, size * MAX_CAPACITY // total)
        left -= allowed
        ready = subset.get("addresses") or []
        subset["addresses"] = ready[:allowed]
        subset["notReadyAddresses"] = (subset.get("notReadyAddresses") or [])[: max(allowed - len(ready), 0)]
        for field in ("addresses", "notReadyAddresses"):
            if not subset[field]:
                del subset[field]
    return True

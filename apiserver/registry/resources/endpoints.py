"""Endpoints: port protocols default to TCP; upstream's validation of subsets (an address
or a not-ready address each, valid non-special IPs, loopback accepted: see
``endpointvalidation``; DNS-label host names, node names, named ports when several, port
numbers, protocols); ``kubectl get endpoints`` lists up to three ``ip:port`` pairs and how
many more there are."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.endpointvalidation import (
    VALID_IP,
    dns_label,
    ip_version,
    node_name,
    non_special_ip,
    qualified_name,
)
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.resources.servicespec import PROTOCOLS
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid, not_supported, required
from minikube_py.api.models import core_service
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Endpoints", "string", "", "The set of all endpoints is the union of all subsets.", 0),
    AGE_COLUMN,
]
SHOWN = 3


def _host_port(ip: str, port: Any) -> str:
    """``net.JoinHostPort``: IPv6 addresses in brackets."""
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def format_endpoints(endpoints: Object) -> str:
    """``10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more...``; ``<none>`` without subsets."""
    subsets = endpoints.get("subsets") or []
    if not subsets:
        return "<none>"
    shown: list[str] = []
    count = 0
    for subset in subsets:
        ips = [str(a.get("ip", "")) for a in subset.get("addresses") or []]
        ports = subset.get("ports") or []
        pairs = [_host_port(ip, p.get("port")) for p in ports for ip in ips] if ports else ips
        count += len(pairs)
        shown += pairs[: max(SHOWN - len(shown), 0)]
    text = ",".join(shown)
    return f"{text} + {count - SHOWN} more..." if count > SHOWN else text


class EndpointsStrategy(Strategy):
    kinds = (core_service.Endpoints,)
    columns = COLUMNS

    def default(self, obj: Object) -> None:
        _default_ports(obj)

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_subsets(obj.get("subsets") or []))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [meta["name"], format_endpoints(obj), age(meta.get("creationTimestamp"), now)]


def _default_ports(obj: Object) -> None:
    for subset in obj.get("subsets") or []:
        for port in subset.get("ports") or []:
            port.setdefault("protocol", "TCP")


def validate_subsets(subsets: list[Any]) -> list[FieldError]:
    """Upstream's ``validateEndpointSubsets``."""
    errs: list[FieldError] = []
    for i, subset in enumerate(subsets):
        at = f"subsets[{i}]"
        if not subset.get("addresses") and not subset.get("notReadyAddresses"):
            errs.append(required(at, "must specify `addresses` or `notReadyAddresses`"))
        for field in ("addresses", "notReadyAddresses"):
            for j, address in enumerate(subset.get(field) or []):
                errs += _validate_address(address, f"{at}.{field}[{j}]")
        ports = subset.get("ports") or []
        for j, port in enumerate(ports):
            errs += _validate_port(port, len(ports) > 1, f"{at}.ports[{j}]")
    return errs


def _validate_address(address: dict[str, Any], at: str) -> list[FieldError]:
    ip = str(address.get("ip") or "")
    errs = [] if ip_version(ip) else [invalid(f"{at}.ip", ip, VALID_IP)]
    if address.get("hostname"):
        errs += dns_label(address["hostname"], f"{at}.hostname")
    if address.get("nodeName") is not None:
        errs += node_name(address["nodeName"], f"{at}.nodeName")
    return errs + non_special_ip(ip, f"{at}.ip")


def _validate_port(port: dict[str, Any], require_name: bool, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = str(port.get("name") or "")
    if require_name and not name:
        errs.append(required(f"{at}.name"))
    elif name:
        errs += dns_label(name, f"{at}.name")
    number = port.get("port")
    if not isinstance(number, int) or not 1 <= number <= 65535:
        errs.append(invalid(f"{at}.port", number, "must be between 1 and 65535, inclusive"))
    protocol = port.get("protocol")
    if not protocol:
        errs.append(required(f"{at}.protocol"))
    elif protocol not in PROTOCOLS:
        errs.append(not_supported(f"{at}.protocol", protocol, PROTOCOLS))
    if port.get("appProtocol") is not None:
        errs += qualified_name(port["appProtocol"], f"{at}.appProtocol")
    return errs

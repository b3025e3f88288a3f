"""Endpoints: port protocols default to TCP; ``kubectl get endpoints`` lists up to three
``ip:port`` pairs and how many more there are."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
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

    def default(self, obj: Object) -> None:
        _default_ports(obj)

    def table_columns(self) -> list[Column]:
        return list(COLUMNS)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj["metadata"]
        return [meta["name"], format_endpoints(obj), age(meta.get("creationTimestamp"), now)]


def _default_ports(obj: Object) -> None:
    for subset in obj.get("subsets") or []:
        for port in subset.get("ports") or []:
            port.setdefault("protocol", "TCP")

"""Ingresses (networking.k8s.io/v1): no defaults (``pathType`` is required in v1), upstream's
validation (``ingressvalidation``), status through the ``/status`` subresource, and the
``kubectl get ingress`` row: Name, Class, Hosts, Address, Ports, Age."""

from __future__ import annotations

import ipaddress
from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.ingressvalidation import validate_ingress
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.field_errors import FieldError, invalid
from minikube_py.api.models import networking
from minikube_py.api.unstructured import Object
from minikube_py.api.validation import is_dns1123_subdomain

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Class", "string", "", "The name of the IngressClass resource that should be used for this Ingress", 0),
    ("Hosts", "string", "", "Hosts that incoming requests are matched against before the ingress rule", 0),
    ("Address", "string", "", "Address is a list containing ingress points for the load-balancer", 0),
    ("Ports", "string", "", "Ports of TLS configurations that open", 0),
    AGE_COLUMN,
]
MAX_HOSTS_SHOWN = 3
ADDRESS_WIDTH = 16  # upstream's loadBalancerWidth: longer address lists are clipped


def format_hosts(rules: list[Any]) -> str:
    """Upstream's ``formatHosts``: the first three hosts, then ``+ N more...`` when a rule
    follows them (N counts the rules past the third); ``*`` for none."""
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == MAX_HOSTS_SHOWN:
            more = True
            break
        if rule.get("host"):
            hosts.append(str(rule["host"]))
    if not hosts:
        return "*"
    shown = ",".join(hosts)
    return f"{shown} + {len(rules) - MAX_HOSTS_SHOWN} more..." if more else shown


def format_address(status: Object) -> str:
    """Upstream's ``ingressLoadBalancerStatusStringer`` (not wide): sorted, unique, clipped."""
    points = (status.get("loadBalancer") or {}).get("ingress") or []
    text = ",".join(
        sorted({str(p.get("ip") or p.get("hostname")) for p in points if p.get("ip") or p.get("hostname")})
    )
    return text[: ADDRESS_WIDTH - 3] + "..." if len(text) > ADDRESS_WIDTH else text


def validate_load_balancer_status(obj: Object) -> list[FieldError]:
    """``ValidateIngressLoadBalancerStatus``: ingress points are IPs or DNS names."""
    errs: list[FieldError] = []
    points = ((obj.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    for i, point in enumerate(points):
        at = f"status.loadBalancer.ingress[{i}]"
        ip, hostname = str(point.get("ip") or ""), str(point.get("hostname") or "")
        if ip and not _is_ip(ip):
            errs.append(invalid(f"{at}.ip", ip, "must be a valid IP address"))
        if hostname:
            errs += [invalid(f"{at}.hostname", hostname, msg) for msg in is_dns1123_subdomain(hostname)]
            if _is_ip(hostname):
                errs.append(invalid(f"{at}.hostname", hostname, "must be a DNS name, not an IP address"))
    return errs


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class IngressStrategy(Strategy):
    kinds = (networking.Ingress,)
    status_field = "status"
    spec_field = "spec"
    columns = COLUMNS

    def validate(self, obj: Object) -> list[Cause]:
        return to_causes(validate_ingress(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return to_causes(validate_ingress(new) + validate_load_balancer_status(new))

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, spec = obj["metadata"], obj.get("spec") or {}
        class_name = spec.get("ingressClassName")
        return [
            meta["name"],
            "<none>" if class_name is None else class_name,
            format_hosts(spec.get("rules") or []),
            format_address(obj.get("status") or {}),
            "80, 443" if spec.get("tls") else "80",
            age(meta.get("creationTimestamp"), now),
        ]

"""Service ports from Services (upstream ``pkg/proxy/servicechangetracker.go``,
``serviceport.go``): what the proxy serves for each port of each Service. Headless Services
(``clusterIP: None``) and Services of ``type: ExternalName`` get nothing; a ClusterIP that is
not a loopback address is not served (logged once)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from minikube_py.api.unstructured import Object
from nodeagent.proxy.endpoints import PortKey, is_loopback

log = logging.getLogger("proxy")

DEFAULT_AFFINITY_TIMEOUT = 10800  # upstream's sessionAffinityConfig.clientIP.timeoutSeconds default


@dataclass(frozen=True)
class ServicePort:
    """One port of one Service, with what routing to it needs. ``affinity_timeout`` is 0
    without ``sessionAffinity: ClientIP``."""

    key: PortKey
    cluster_ips: tuple[str, ...]
    port: int
    node_port: int
    protocol: str
    load_balancer: bool
    internal_local: bool
    external_local: bool
    affinity_timeout: float

    @property
    def name(self) -> str:
        namespace, service, port_name, _ = self.key
        return f"{namespace}/{service}:{port_name}" if port_name else f"{namespace}/{service}"


class ServiceMap:
    """Builds the service ports of every Service; remembers which non-loopback ClusterIPs it
    has logged."""

    def __init__(self) -> None:
        self._ignored: set[str] = set()

    def build(self, services: Iterable[Object]) -> list[ServicePort]:
        ports: list[ServicePort] = []
        for service in services:
            ports.extend(self._service_ports(service))
        return ports

    def _service_ports(self, service: Object) -> list[ServicePort]:
        spec = service.get("spec") or {}
        if spec.get("type") == "ExternalName":
            return []
        ips = tuple(spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else []))
        if not ips or ips[0] == "None":
            return []  # headless: DNS answers with the pods, the proxy serves nothing
        served = tuple(ip for ip in ips if self._loopback(ip, service))
        if not served:
            return []
        meta = service.get("metadata") or {}
        affinity = 0.0
        if spec.get("sessionAffinity") == "ClientIP":
            config = ((spec.get("sessionAffinityConfig") or {}).get("clientIP")) or {}
            affinity = float(config.get("timeoutSeconds") or DEFAULT_AFFINITY_TIMEOUT)
        kind = spec.get("type") or "ClusterIP"
        return [
            ServicePort(
                key=(
                    meta.get("namespace", ""),
                    meta.get("name", ""),
                    port.get("name") or "",
                    port.get("protocol") or "TCP",
                ),
                cluster_ips=served,
                port=int(port.get("port", 0)),
                node_port=int(port.get("nodePort") or 0) if kind in ("NodePort", "LoadBalancer") else 0,
                protocol=port.get("protocol") or "TCP",
                load_balancer=kind == "LoadBalancer",
                internal_local=spec.get("internalTrafficPolicy") == "Local",
                external_local=spec.get("externalTrafficPolicy") == "Local",
                affinity_timeout=affinity,
            )
            for port in spec.get("ports") or []
            if (port.get("protocol") or "TCP") in ("TCP", "UDP") and port.get("port")
        ]

    def _loopback(self, ip: str, service: Object) -> bool:
        if is_loopback(ip):
            return True
        if ip not in self._ignored:
            self._ignored.add(ip)
            meta = service.get("metadata") or {}
            log.warning(
                "proxy: not serving %s/%s at %s: not a loopback address",
                meta.get("namespace"),
                meta.get("name"),
                ip,
            )
        return False

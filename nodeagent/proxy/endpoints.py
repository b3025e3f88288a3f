"""Backends from EndpointSlices (upstream ``pkg/proxy/endpointslicecache.go``): each slice's
endpoints per (service, port name, protocol), and which of them may take traffic
(``usable``: ready ones, else serving-and-terminating ones, upstream's terminating-endpoints
fallback; ``Local`` traffic policy keeps only endpoints on the proxy's nodes)."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from dataclasses import dataclass

from minikube_py.api.unstructured import Object

log = logging.getLogger("proxy")

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time"


@dataclass(frozen=True)
class Backend:
    """One endpoint address and port. ``ready`` null in the API counts as ready, ``serving``
    null as ``ready`` (the API's rules)."""

    ip: str
    port: int
    node_name: str = ""
    ready: bool = True
    serving: bool = True
    terminating: bool = False

    @property
    def address(self) -> str:
        return f"{self.ip}:{self.port}"


# (namespace, service name, port name, protocol)
PortKey = tuple[str, str, str, str]


class EndpointsIndex:
    """Backends by port key, built from every slice (a slice without the service-name label
    belongs to no Service). A non-loopback address is ignored and logged once: the proxy
    never sends a packet off the machine."""

    def __init__(self) -> None:
        self._ignored: set[str] = set()

    def build(self, slices: Iterable[Object]) -> dict[PortKey, tuple[Backend, ...]]:
        found: dict[PortKey, dict[str, Backend]] = {}
        for item in slices:
            if item.get("addressType", "IPv4") not in ("IPv4", "IPv6"):
                continue
            meta = item.get("metadata") or {}
            service = (meta.get("labels") or {}).get(SERVICE_NAME_LABEL)
            if not service:
                continue
            for port in item.get("ports") or []:
                number = port.get("port")
                if not isinstance(number, int):
                    continue
                key = (
                    meta.get("namespace", ""),
                    service,
                    port.get("name") or "",
                    port.get("protocol") or "TCP",
                )
                backends = found.setdefault(key, {})
                for endpoint in item.get("endpoints") or []:
                    backend = self._backend(endpoint, number)
                    if backend is not None:
                        # an address in two slices (a move between slices) counts once
                        backends.setdefault(backend.address, backend)
        return {key: tuple(sorted(b.values(), key=lambda b: b.address)) for key, b in found.items()}

    def _backend(self, endpoint: Object, port: int) -> Backend | None:
        addresses = endpoint.get("addresses") or []
        if not addresses:
            return None
        ip = addresses[0]  # upstream uses the first address too
        if not is_loopback(ip):
            if ip not in self._ignored:
                self._ignored.add(ip)
                log.warning(
                    "proxy: ignoring endpoint %s: not a loopback address (nothing is sent off this machine)",
                    ip,
                )
            return None
        conditions = endpoint.get("conditions") or {}
        ready = conditions.get("ready") is not False
        serving = conditions.get("serving")
        return Backend(
            ip=ip,
            port=port,
            node_name=endpoint.get("nodeName") or "",
            ready=ready,
            serving=ready if serving is None else bool(serving),
            terminating=bool(conditions.get("terminating")),
        )


def usable(backends: Iterable[Backend], local_nodes: frozenset[str] | None) -> tuple[Backend, ...]:
    """The backends that take traffic: with ``local_nodes`` (a ``Local`` policy) only those on
    these nodes; then the ready ones, or if none is ready the serving terminating ones."""
    pool = [b for b in backends if local_nodes is None or b.node_name in local_nodes]
    ready = tuple(b for b in pool if b.ready)
    if ready:
        return ready
    return tuple(b for b in pool if b.serving and b.terminating)


def is_loopback(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False

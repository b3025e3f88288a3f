"""The ``kube-system/kube-dns`` Service and its Endpoints, written by the DNS component itself.

Upstream's addon manager (or kubeadm) creates the Service from the CoreDNS manifests, with a
selector that picks the CoreDNS pods; here the server is no pod, so the Service has no
selector and the component writes its Endpoints: ``127.0.0.1`` (where it listens) with its
real ports (``dns`` UDP, ``dns-tcp`` TCP, ``metrics``). The EndpointSlice mirroring
controller mirrors them, and the service proxy forwards ``<clusterIP>:53`` there.

The ClusterIP is the service range's tenth address, kubeadm's choice: unless given, it is
the ``default/kubernetes`` Service's ClusterIP (the range's first address) + 9. ``reconcile``
runs at start and every ``RESYNC`` seconds (or sooner when woken): a missing object is
created, one with other ports or labels is put right; a ClusterIP of an existing Service is
immutable, so one that differs is left as it is and logged. A refusal (e.g. a 422 from an
apiserver that refuses loopback endpoint addresses) is logged once per distinct message and
retried at the next pass.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from dataclasses import dataclass
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import SERVICES, resource_type
from minikube_py.clock import Clock, RealClock

log = logging.getLogger("dns")

ENDPOINTS = resource_type("v1", "endpoints")
NAMESPACE, NAME = "kube-system", "kube-dns"
RESYNC = 10.0
LABELS = {
    "k8s-app": "kube-dns",
    "kubernetes.io/cluster-service": "true",
    "kubernetes.io/name": "CoreDNS",
}
DNS_OFFSET = 9  # kubernetes is the range's first address, kube-dns its tenth


@dataclass(frozen=True)
class Listening:
    """Where the DNS server really is: its address, its DNS port (UDP and TCP) and metrics port."""

    host: str
    port: int
    metrics_port: int


def dns_ip_from_kubernetes(kubernetes_ip: str) -> str:
    return str(ipaddress.ip_address(kubernetes_ip) + DNS_OFFSET)


def desired_service(cluster_ip: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": NAME,
            "namespace": NAMESPACE,
            "labels": dict(LABELS),
            "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"},
        },
        "spec": {
            "clusterIP": cluster_ip,
            "ports": [
                {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                {"name": "metrics", "port": 9153, "protocol": "TCP", "targetPort": 9153},
            ],
        },
    }


def desired_endpoints(where: Listening) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": dict(LABELS)},
        "subsets": [
            {
                "addresses": [{"ip": where.host}],
                "ports": [
                    {"name": "dns", "port": where.port, "protocol": "UDP"},
                    {"name": "dns-tcp", "port": where.port, "protocol": "TCP"},
                    {"name": "metrics", "port": where.metrics_port, "protocol": "TCP"},
                ],
            }
        ],
    }


class KubeDNSService:
    """Keeps the Service and Endpoints right; ``cluster_ip`` "" derives it (see module doc)."""

    def __init__(
        self, client: Client, where: Listening, cluster_ip: str = "", clock: Clock | None = None
    ) -> None:
        self.client = client
        self.where = where
        self.cluster_ip = cluster_ip
        self.clock: Clock = clock or RealClock()
        self.wake = asyncio.Event()
        self._reported: set[str] = set()

    async def run(self) -> None:
        while True:
            await self.reconcile()
            self.wake.clear()
            sleep = asyncio.ensure_future(self.clock.sleep(RESYNC))
            woken = asyncio.ensure_future(self.wake.wait())
            try:
                await asyncio.wait({sleep, woken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleep.cancel()
                woken.cancel()

    async def reconcile(self) -> bool:
        """One pass; True when both objects are as desired."""
        try:
            ip = self.cluster_ip or await self._derived_ip()
            service_ok = await self._sync_service(ip)
            await self._sync(ENDPOINTS, desired_endpoints(self.where), _endpoints_differ)
        except ApiError as err:
            self._report(f"cannot write {NAMESPACE}/{NAME}: {err}")
            return False
        except (KeyError, TypeError, ValueError) as err:  # a kubernetes Service without a ClusterIP
            self._report(f"cannot derive the {NAMESPACE}/{NAME} ClusterIP: {err!r}")
            return False
        return service_ok

    async def _derived_ip(self) -> str:
        kubernetes = await self.client.resource(SERVICES, "default").get("kubernetes")
        return dns_ip_from_kubernetes(kubernetes["spec"]["clusterIP"])

    async def _sync_service(self, ip: str) -> bool:
        current = await self._sync(SERVICES, desired_service(ip), _service_differs)
        actual = (current.get("spec") or {}).get("clusterIP")
        if actual != ip:
            self._report(
                f"Service {NAMESPACE}/{NAME} has clusterIP {actual}, not {ip} (immutable: left as is)"
            )
            return False
        return True

    async def _sync(self, kind: Any, desired: dict[str, Any], differs: Any) -> dict[str, Any]:
        handle = self.client.resource(kind, NAMESPACE)
        try:
            current = await handle.get(NAME)
        except ApiError as err:
            if err.code != 404:
                raise
            created = await handle.create(desired)
            log.info("dns: created %s %s/%s", kind.kind, NAMESPACE, NAME)
            return dict(created)
        if not differs(current, desired):
            return dict(current)
        updated = _merged(current, desired)
        result = await handle.update(updated)
        log.info("dns: updated %s %s/%s", kind.kind, NAMESPACE, NAME)
        return dict(result)

    def _report(self, message: str) -> None:
        if message not in self._reported:
            self._reported.add(message)
            log.warning("dns: %s; retrying every %.0fs", message, RESYNC)


def _labels_differ(current: dict[str, Any], desired: dict[str, Any]) -> bool:
    labels = (current.get("metadata") or {}).get("labels") or {}
    return any(labels.get(k) != v for k, v in desired["metadata"]["labels"].items())


def _service_differs(current: dict[str, Any], desired: dict[str, Any]) -> bool:
    ports = [
        (p.get("name"), p.get("port"), p.get("protocol"), p.get("targetPort"))
        for p in (current.get("spec") or {}).get("ports") or []
    ]
    wanted = [(p["name"], p["port"], p["protocol"], p["targetPort"]) for p in desired["spec"]["ports"]]
    return (
        _labels_differ(current, desired)
        or ports != wanted
        or bool((current.get("spec") or {}).get("selector"))
    )


def _endpoints_differ(current: dict[str, Any], desired: dict[str, Any]) -> bool:
    return _labels_differ(current, desired) or _subsets(current) != _subsets(desired)


def _subsets(endpoints: dict[str, Any]) -> list[tuple[frozenset[str], frozenset[tuple[Any, ...]]]]:
    """The subsets as sets of addresses and ports (the server may order them its own way)."""
    return [
        (
            frozenset(str(a.get("ip")) for a in subset.get("addresses") or []),
            frozenset((p.get("name"), p.get("port"), p.get("protocol")) for p in subset.get("ports") or []),
        )
        for subset in endpoints.get("subsets") or []
    ]


def _merged(current: dict[str, Any], desired: dict[str, Any]) -> dict[str, Any]:
    """``current`` with the desired labels, ports and subsets (its clusterIP kept: immutable)."""
    meta = dict(current.get("metadata") or {})
    meta["labels"] = {**(meta.get("labels") or {}), **desired["metadata"]["labels"]}
    updated = {**current, "metadata": meta}
    if "spec" in desired:
        spec = dict(current.get("spec") or {})
        spec["ports"] = desired["spec"]["ports"]
        spec.pop("selector", None)
        updated["spec"] = spec
    if "subsets" in desired:
        updated["subsets"] = desired["subsets"]
    return updated

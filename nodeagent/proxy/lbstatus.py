"""``type: LoadBalancer`` status, as ``minikube tunnel`` (and k3s' service LB) write it: the
load balancer's address is the Service's ClusterIP (a loopback address the proxy already
serves), ``status.loadBalancer.ingress: [{ip: <clusterIP>, ipMode: VIP}]``. When the Service
stops being a LoadBalancer the ingress is cleared. A Service with ``spec.loadBalancerClass``
belongs to another implementation and is left alone.

Upstream this is the cloud provider's service controller; here the proxy writes it (its
identity may update ``services/status``: a deviation, see the node agent's README). Writes
run beside the sync, one Service at a time, retried after a failure."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import SERVICES
from minikube_py.clock import Clock
from nodeagent.proxy.endpoints import is_loopback

log = logging.getLogger("proxy")

RETRY_DELAY = 1.0
ServiceKey = tuple[str, str]


def desired_ingress(service: Object) -> list[Object] | None:
    """The ingress the proxy wants in the status, or None when it does not manage it."""
    spec = service.get("spec") or {}
    if spec.get("loadBalancerClass"):
        return None
    ip = spec.get("clusterIP")
    if spec.get("type") == "LoadBalancer" and ip and ip != "None" and is_loopback(ip):
        return [{"ip": ip, "ipMode": "VIP"}]
    return []


def current_ingress(service: Object) -> list[Object]:
    return list(((service.get("status") or {}).get("loadBalancer") or {}).get("ingress") or [])


class LoadBalancerStatus:
    def __init__(self, client: Client, clock: Clock) -> None:
        self._client = client
        self._clock = clock
        self._pending: dict[ServiceKey, list[Object]] = {}
        self._failing: set[ServiceKey] = set()
        self._seen: dict[ServiceKey, str] = {}  # the version each pending or sent write was for
        self._wake = asyncio.Event()

    def sync(self, services: Iterable[Object]) -> None:
        """Queue a write for each Service whose status differs from what it should be."""
        for service in services:
            meta = service.get("metadata") or {}
            key = (meta.get("namespace", ""), meta.get("name", ""))
            wanted = desired_ingress(service)
            if wanted is None or wanted == current_ingress(service):
                self._seen.pop(key, None)
                continue
            version = meta.get("resourceVersion", "")
            if self._seen.get(key) == version:
                continue  # already queued or written for this version; the cache lags the write
            self._seen[key] = version
            self._pending[key] = wanted
            self._wake.set()

    async def run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                key, ingress = self._pending.popitem()
                if not await self._write(key, ingress):
                    self._pending.setdefault(key, ingress)
                    await self._clock.sleep(RETRY_DELAY)

    async def _write(self, key: ServiceKey, ingress: list[Object]) -> bool:
        namespace, name = key
        body = {"status": {"loadBalancer": {"ingress": ingress or None}}}  # null removes it
        try:
            await self._client.resource(SERVICES, namespace).patch(name, body, subresource="status")
        except ApiError as err:
            if err.code == 404:
                return True  # deleted meanwhile
            if key not in self._failing:  # once per Service until a write succeeds
                self._failing.add(key)
                log.warning("proxy: cannot write the load balancer status of %s/%s: %s", namespace, name, err)
            return False
        self._failing.discard(key)
        log.info(
            "proxy: %s/%s load balancer ingress %s", namespace, name, [i["ip"] for i in ingress] or "cleared"
        )
        return True

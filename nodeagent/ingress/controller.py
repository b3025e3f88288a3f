"""The ingress controller's control loop: informers on Ingresses, IngressClasses, Services and
EndpointSlices; the routing table rebuilt on every Ingress or class change (a table of a few
hundred routes builds in well under a millisecond); routes resolved per request from the
caches; the served Ingresses' ``status.loadBalancer`` kept at the listening address.

A backend without a Service or ready endpoints answers 503 and is logged once per Ingress and
backend until what is wrong with it changes (not per request)."""

from __future__ import annotations

import asyncio
import logging

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import Indexer
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import SECRETS, SERVICES, resource_type
from minikube_py.clock import Clock, RealClock
from minikube_py.events import Recorder
from nodeagent.ingress.classes import CONTROLLER_NAME, INGRESS_CLASSES, own_classes, served
from nodeagent.ingress.endpoints import SERVICE_NAME_LABEL, resolve
from nodeagent.ingress.proxy import Route
from nodeagent.ingress.routes import Backend, RoutingTable, build_table, host_name
from nodeagent.ingress.tls import TLS_SECRET_TYPE, Certificates

INGRESSES = resource_type("networking.k8s.io/v1", "ingresses")
ENDPOINT_SLICES = resource_type("discovery.k8s.io/v1", "endpointslices")
SERVICE_INDEX = "service"
STATUS_RETRY = 1.0
log = logging.getLogger("ingress")


def _by_service(obj: Object) -> list[str]:
    meta = obj.get("metadata") or {}
    service = (meta.get("labels") or {}).get(SERVICE_NAME_LABEL)
    return [f"{meta.get('namespace', '')}/{service}"] if service else []


def load_balancer_status(address: str, *ports: int) -> Object:
    entries = [{"port": port, "protocol": "TCP"} for port in ports]
    return {"loadBalancer": {"ingress": [{"ip": address, "ports": entries}]}}


class IngressController:
    """Routes for the proxy (``route``) and status for the API (``run``)."""

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        *,
        address: str = "127.0.0.1",
        port: int = 80,
        controller: str = CONTROLLER_NAME,
        clock: Clock | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        self.client, self.address, self.port, self.controller = client, address, port, controller
        self.clock = clock or RealClock()
        self.recorder = recorder
        self.ingresses = factory.informer(INGRESSES)
        self.classes = factory.informer(INGRESS_CLASSES)
        services = factory.informer(SERVICES)
        self.services: Indexer = services.indexer
        slices = factory.informer(ENDPOINT_SLICES)
        slices.add_indexers({SERVICE_INDEX: _by_service})
        self.slices: Indexer = slices.indexer
        secrets = factory.informer(SECRETS, field_selector=f"type={TLS_SECRET_TYPE}")
        self.certificates = Certificates(lambda ns, name: secrets.indexer.get_by_key(f"{ns}/{name}"))
        self.tls_port: int | None = None
        self._informers = (self.ingresses, self.classes, services, slices, secrets)
        self.table = RoutingTable()
        self._failing: dict[tuple[str, Backend], str] = {}
        self._dirty = asyncio.Event()
        changed = EventHandlerFuncs(
            add=lambda obj: self._changed(),
            update=lambda old, new: self._changed(),
            delete=lambda obj: self._changed(),
        )
        self.ingresses.add_event_handler(changed)
        self.classes.add_event_handler(changed)
        self._announced: dict[str, object] = {}  # ingress key -> generation of its Sync event

    def has_synced(self) -> bool:
        return all(informer.has_synced() for informer in self._informers)

    def served_ingresses(self) -> list[Object]:
        classes = own_classes(self.classes.indexer.list(), self.controller)
        return [ing for ing in self.ingresses.indexer.list() if served(ing, classes)]

    def _changed(self) -> None:
        served = self.served_ingresses()
        self.table = build_table(served)
        self.certificates.update(served)
        self._dirty.set()

    def route(self, host: str, path: str, scheme: str = "http") -> Route:
        if scheme == "http" and self.tls_port is not None and self.certificates.redirects(host_name(host)):
            return Route(None, https_port=self.tls_port)  # ingress-nginx's ssl-redirect
        backend = self.table.match(host, path)
        if backend is None:
            return Route(None)
        resolved = resolve(backend, self._service, self._slices)
        key = (backend.ingress, backend)
        if resolved.endpoints:
            if self._failing.pop(key, None) is not None:
                log.info(
                    "ingress %s: backend %s:%s has ready endpoints again",
                    backend.ingress,
                    backend.service,
                    backend.port,
                )
            return Route(backend, resolved.endpoints)
        if self._failing.get(key) != resolved.reason:
            self._failing[key] = resolved.reason
            log.warning("ingress %s: answering 503: %s", backend.ingress, resolved.reason)
        return Route(backend)

    def _service(self, namespace: str, name: str) -> Object | None:
        return self.services.get_by_key(f"{namespace}/{name}")

    def _slices(self, namespace: str, service: str) -> list[Object]:
        return self.slices.by_index(SERVICE_INDEX, f"{namespace}/{service}")

    async def run(self) -> None:
        """Keep the served Ingresses' status at this controller's address, until cancelled."""
        ports = [self.port] if self.tls_port is None else [self.port, self.tls_port]
        wanted = load_balancer_status(self.address, *ports)
        await self.ingresses.wait_synced()
        await self.classes.wait_synced()
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                for ingress in self.served_ingresses():
                    self._announce(ingress)
                    if (ingress.get("status") or {}).get("loadBalancer") != wanted["loadBalancer"]:
                        await self._write_status(ingress, wanted)
            except (ApiError, OSError) as err:
                log.warning("ingress status update failed, retrying: %s", err)
                await self.clock.sleep(STATUS_RETRY)
                self._dirty.set()
            except Exception:  # a bug here must not stop the routing (nor, in up, the cluster)
                log.exception("ingress status update failed, retrying")
                await self.clock.sleep(STATUS_RETRY)
                self._dirty.set()

    def _announce(self, ingress: Object) -> None:
        """ingress-nginx's ``Sync`` event, once per served Ingress and generation."""
        meta = ingress["metadata"]
        key, generation = f"{meta.get('namespace')}/{meta['name']}", meta.get("generation")
        if self.recorder is None or self._announced.get(key) == generation:
            return
        self._announced[key] = generation
        involved = {**ingress, "apiVersion": "networking.k8s.io/v1", "kind": "Ingress"}
        self.recorder.event(involved, "Normal", "Sync", "Scheduled for sync")

    async def _write_status(self, ingress: Object, status: Object) -> None:
        meta = ingress["metadata"]
        updated = {**ingress, "status": {**(ingress.get("status") or {}), **status}}
        try:
            await self.client.resource(INGRESSES, meta.get("namespace")).update_status(updated)
        except ApiError as err:
            if err.code == 404:
                return  # deleted meanwhile
            if err.code != 409:
                raise
            return  # a newer version is on its way through the informer, and is checked then
        log.info(
            "ingress %s/%s: status.loadBalancer %s:%d",
            meta.get("namespace"),
            meta["name"],
            self.address,
            self.port,
        )

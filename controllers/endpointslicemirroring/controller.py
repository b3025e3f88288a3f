"""``EndpointSliceMirroringController`` (upstream's ``pkg/controller/endpointslicemirroring``):
the Endpoints of a Service without a selector (written by a user, an operator, or here the
cluster DNS component) mirrored to EndpointSlices labelled ``endpointslice.kubernetes.io/
managed-by: endpointslicemirroring-controller.k8s.io``, so slice readers (the service proxy)
see them too.

Keys are Endpoints (= Service) keys. ``sync`` deletes the mirrored slices when the Service is
gone or has a selector (the EndpointSlice controller owns those), when the Endpoints is gone,
or when it should not be mirrored: labelled ``endpointslice.kubernetes.io/skip-mirror: "true"``
(the apiserver labels the ``kubernetes`` Endpoints so, as it writes that slice itself) or a
leader-election lock. Otherwise it writes what ``mirror.plan_mirror`` plans.
"""

from __future__ import annotations

import logging

from controllers.endpointslicemirroring.mirror import CONTROLLER_NAME, plan_mirror
from controllers.endpointutil.services import has_selector
from controllers.endpointutil.slices import SKIP_MIRROR_LABEL, managed_slice_index
from controllers.endpointutil.written import Written, observing_handlers, update_or_forget
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import meta_namespace_key, split_meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import ENDPOINTS, ENDPOINTSLICES, SERVICES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("endpointslicemirroring")

LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader"
_MIRRORED = managed_slice_index(CONTROLLER_NAME)
MIRRORED_INDEX = "endpointslice-mirrored-service"


def should_mirror(endpoints: Object) -> bool:
    meta = endpoints["metadata"]
    if (meta.get("labels") or {}).get(SKIP_MIRROR_LABEL) == "true":
        return False
    return LEADER_ANNOTATION not in (meta.get("annotations") or {})


class EndpointSliceMirroringController:
    """``name`` = "endpoint_slice_mirroring". Informers: services, endpoints, endpointslices."""

    name = "endpoint_slice_mirroring"

    def __init__(self, client: Client, factory: SharedInformerFactory, *, clock: Clock | None = None) -> None:
        self.client = client
        self.clock: Clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.written = Written()
        self.services = factory.informer(SERVICES)
        self.endpoints = factory.informer(ENDPOINTS)
        self.slices = factory.informer(ENDPOINTSLICES)
        if MIRRORED_INDEX not in self.slices.indexer.indexer_names():  # another instance added it
            self.slices.add_indexers({MIRRORED_INDEX: _MIRRORED})
        handlers = EventHandlerFuncs.enqueueing(self.queue.add)
        self.services.add_event_handler(handlers)
        self.endpoints.add_event_handler(handlers)
        self.slices.add_event_handler(observing_handlers(self.written, _MIRRORED, self.queue.add))

    async def run(self, workers: int) -> None:
        synced = [self.services.has_synced, self.endpoints.has_synced, self.slices.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    async def sync(self, key: str) -> None:
        """``syncEndpoints``: mirror the Endpoints ``key``, or remove its mirrored slices."""
        service = self.services.indexer.get_by_key(key)
        endpoints = self.endpoints.indexer.get_by_key(key)
        existing = self._existing(key)
        creates: list[Object]
        updates: list[Object]
        if service is None or has_selector(service) or endpoints is None or not should_mirror(endpoints):
            creates, updates, deletes = [], [], existing
        else:
            creates, updates, deletes = plan_mirror(endpoints, existing)
        if not (creates or updates or deletes):
            return
        namespace, _ = split_meta_namespace_key(key)
        resource = self.client.resource(ENDPOINTSLICES, namespace)
        for slice_ in creates:
            self.written.wrote(key, await resource.create(slice_))
        for slice_ in updates:
            self.written.wrote(key, await update_or_forget(resource, slice_, self.written, key))
        for slice_ in deletes:
            name = slice_["metadata"]["name"]
            try:
                await resource.delete(name)
            except ApiError as err:
                if err.code != 404:
                    raise
            self.written.deleted(key, f"{namespace}/{name}")
        log.info(
            "mirrored %s: %d created, %d updated, %d deleted", key, len(creates), len(updates), len(deletes)
        )

    def _existing(self, key: str) -> list[Object]:
        cached = {meta_namespace_key(s): s for s in self.slices.indexer.by_index(MIRRORED_INDEX, key)}
        return [
            s
            for s in self.written.overlay(key, cached).values()
            if not s["metadata"].get("deletionTimestamp")
        ]

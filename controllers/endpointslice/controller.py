"""``EndpointSliceController`` (upstream's ``pkg/controller/endpointslice``): EndpointSlices
labelled ``kubernetes.io/service-name`` and ``endpointslice.kubernetes.io/managed-by:
endpointslice-controller.k8s.io``, owned by their Service, for every Service with a selector.

Keys are Service keys. Service events enqueue the Service; pod events every Service that
selects the pod before or after; a change to one of this controller's slices (by anyone) its
Service, so an edited or deleted slice is put back. ``sync`` plans the writes
(``reconciler.plan_slices``) and sends creates, then updates, then deletes (upstream's order:
new endpoints appear before old ones go). A deleted Service's slices are left to the garbage
collector (they are owned by it), as upstream. Slices this controller just wrote are read
through ``Written`` until the informer has them, so back-to-back syncs never act twice.
"""

from __future__ import annotations

import logging

from controllers.endpointslice.desired import desired_endpoints, slice_labels
from controllers.endpointslice.reconciler import MAX_ENDPOINTS_PER_SLICE, Plan, plan_slices
from controllers.endpointutil.services import (
    has_selector,
    is_external_name,
    pod_event_handlers,
    selected_pods,
)
from controllers.endpointutil.slices import SERVICE_INDEX, managed_slice_index
from controllers.endpointutil.triggertime import ANNOTATION as TRIGGER_TIME_ANNOTATION
from controllers.endpointutil.triggertime import TriggerTimeTracker
from controllers.endpointutil.written import Written, observing_handlers, update_or_forget
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import meta_namespace_key, split_meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import ENDPOINTSLICES, NODES, PODS, SERVICES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("endpointslice")

CONTROLLER_NAME = "endpointslice-controller.k8s.io"
ADDRESS_TYPE = "IPv4"  # pod addresses here are IPv4 loopback addresses


_MANAGED = managed_slice_index(CONTROLLER_NAME)  # the Service key of a slice of ours, if it is


class MissingNodesError(Exception):
    """Some selected pods run on nodes the cache does not know yet; retried with backoff."""


class EndpointSliceController:
    """``name`` = "endpoint_slice" (upstream's queue name). Informers: services, pods, nodes,
    endpointslices."""

    name = "endpoint_slice"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        *,
        clock: Clock | None = None,
        max_endpoints_per_slice: int = MAX_ENDPOINTS_PER_SLICE,
    ) -> None:
        self.client = client
        self.clock: Clock = clock or RealClock()
        self.max_endpoints_per_slice = max_endpoints_per_slice
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.triggers = TriggerTimeTracker()
        self.written = Written()
        self.services = factory.informer(SERVICES)
        self.pods = factory.informer(PODS)
        self.nodes = factory.informer(NODES)
        self.slices = factory.informer(ENDPOINTSLICES)
        if SERVICE_INDEX not in self.slices.indexer.indexer_names():  # another instance added it
            self.slices.add_indexers({SERVICE_INDEX: _MANAGED})
        self.services.add_event_handler(EventHandlerFuncs.enqueueing(self.queue.add))
        self.pods.add_event_handler(pod_event_handlers(self.services.indexer, self.queue.add))
        self.slices.add_event_handler(observing_handlers(self.written, _MANAGED, self.queue.add))

    async def run(self, workers: int) -> None:
        synced = [s.has_synced for s in (self.services, self.pods, self.nodes, self.slices)]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    # -- event handlers ------------------------------------------------------------------------

    # -- sync ----------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """``syncService``: make the Service's managed slices hold its pods' endpoints."""
        service = self.services.indexer.get_by_key(key)
        if service is None:
            self.triggers.delete_service(key)
            self.written.forget_owner(key)
            return  # its slices are owned by it: the garbage collector deletes them
        if is_external_name(service) or not has_selector(service):
            return
        pods = selected_pods(self.pods.indexer, service)
        desired, missing = desired_endpoints(service, pods, self.nodes.indexer.get_by_key)
        existing = self._existing(key)
        labels = slice_labels(service, CONTROLLER_NAME)
        plan = plan_slices(service, labels, ADDRESS_TYPE, desired, existing, self.max_endpoints_per_slice)
        trigger = self.triggers.compute(key, service, pods)
        if not plan.empty():
            await self._apply(key, plan, trigger)
        if missing:
            raise MissingNodesError(f"{key}: pods on nodes not known yet: {', '.join(sorted(missing))}")

    def _existing(self, key: str) -> list[Object]:
        cached = {meta_namespace_key(s): s for s in self.slices.indexer.by_index(SERVICE_INDEX, key)}
        current = self.written.overlay(key, cached)
        return [s for s in current.values() if not s["metadata"].get("deletionTimestamp")]

    async def _apply(self, key: str, plan: Plan, trigger: float | None) -> None:
        namespace, _ = split_meta_namespace_key(key)
        resource = self.client.resource(ENDPOINTSLICES, namespace)
        for slice_ in [*plan.create, *plan.update]:
            annotations = dict(slice_["metadata"].get("annotations") or {})
            if trigger is not None:
                annotations[TRIGGER_TIME_ANNOTATION] = format_rfc3339(trigger)
            else:
                annotations.pop(TRIGGER_TIME_ANNOTATION, None)
            slice_["metadata"]["annotations"] = annotations
        for slice_ in plan.create:
            self.written.wrote(key, await resource.create(slice_))
        for slice_ in plan.update:
            self.written.wrote(key, await update_or_forget(resource, slice_, self.written, key))
        for slice_ in plan.delete:
            name = slice_["metadata"]["name"]
            try:
                await resource.delete(name)
            except ApiError as err:
                if err.code != 404:
                    raise
            self.written.deleted(key, f"{namespace}/{name}")
        log.info(
            "synced slices of %s: %d created, %d updated, %d deleted",
            key,
            len(plan.create),
            len(plan.update),
            len(plan.delete),
        )

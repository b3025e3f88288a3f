"""``EndpointsController`` (upstream's ``pkg/controller/endpoint``): an Endpoints object, named
and labelled like its Service, for every Service with a selector.

Keys are Service keys. A Service event enqueues itself; a pod event enqueues every Service
that selects the pod before or after the change; an Endpoints deletion enqueues its Service
(so a deleted Endpoints comes back). ``sync`` deletes the Endpoints of a Service that is gone,
leaves ExternalName and selector-less Services alone (their Endpoints belong to someone else:
the DNS component, the apiserver, a user), and otherwise writes the subsets the pods give,
only when they, the labels or the annotations differ. At start every existing Endpoints is
enqueued once, so one left over from a Service deleted while the controller was down goes.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from controllers.endpoint.subsets import (
    OVER_CAPACITY_ANNOTATION,
    TRUNCATED,
    desired_subsets,
    truncate,
)
from controllers.endpointutil.pods import is_headless
from controllers.endpointutil.services import (
    has_selector,
    is_external_name,
    pod_event_handlers,
    selected_pods,
)
from controllers.endpointutil.triggertime import ANNOTATION as TRIGGER_TIME_ANNOTATION
from controllers.endpointutil.triggertime import TriggerTimeTracker
from controllers.endpointutil.written import Written, update_or_forget
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import (
    DeletedFinalStateUnknown,
    final_state,
    meta_namespace_key,
    split_meta_namespace_key,
)
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import ENDPOINTS, PODS, SERVICES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers, wait_for_cache_sync
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("endpoint")

HEADLESS_LABEL = "service.kubernetes.io/headless"
#: Endpoints used as leader-election locks (old components) are never deleted as left-overs
LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader"


class EndpointsController:
    """``name`` = "endpoint" (upstream's queue name). Informers: services, pods, endpoints."""

    name = "endpoint"

    def __init__(self, client: Client, factory: SharedInformerFactory, *, clock: Clock | None = None) -> None:
        self.client = client
        self.clock: Clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.triggers = TriggerTimeTracker()
        self.written = Written()
        self.services = factory.informer(SERVICES)
        self.pods = factory.informer(PODS)
        self.endpoints = factory.informer(ENDPOINTS)
        self.services.add_event_handler(EventHandlerFuncs.enqueueing(self.queue.add))
        self.pods.add_event_handler(pod_event_handlers(self.services.indexer, self.queue.add))
        self.endpoints.add_event_handler(
            EventHandlerFuncs(
                add=self.written.observed,
                update=lambda _o, new: self.written.observed(new),
                delete=self._endpoints_deleted,
            )
        )

    async def run(self, workers: int) -> None:
        synced = [self.services.has_synced, self.pods.has_synced, self.endpoints.has_synced]
        await wait_for_cache_sync(self.name, synced, self.clock)
        self.check_leftover_endpoints()
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    def check_leftover_endpoints(self) -> None:
        """Enqueue every Endpoints (but leader-election locks): those without a Service go."""
        for endpoints in self.endpoints.indexer.list():
            if LEADER_ANNOTATION not in ((endpoints["metadata"].get("annotations")) or {}):
                self.queue.add(meta_namespace_key(endpoints))

    # -- event handlers ------------------------------------------------------------------------

    def _endpoints_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        endpoints = final_state(obj)
        self.written.observed(endpoints, deleted=True)
        self.queue.add(meta_namespace_key(endpoints))

    # -- sync ----------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """``syncService``: make the Endpoints ``key`` match the Service's pods."""
        namespace, name = split_meta_namespace_key(key)
        service = self.services.indexer.get_by_key(key)
        if service is None:
            await self._delete(namespace, name)
            self.triggers.delete_service(key)
            return
        if is_external_name(service) or not has_selector(service):
            return
        pods = selected_pods(self.pods.indexer, service)
        trigger = self.triggers.compute(key, service, pods)
        subsets = desired_subsets(service, pods)
        truncated = truncate(subsets)
        current = self._current(key)
        desired = self._desired(service, current, subsets, truncated, trigger)
        if current is not None and _same(current, desired):
            return
        resource = self.client.resource(ENDPOINTS, namespace)
        if current is None:
            written = await resource.create(desired)
        else:
            written = await update_or_forget(resource, desired, self.written, key)
        self.written.wrote(key, written)
        ready = sum(len(s.get("addresses") or []) for s in subsets)
        log.info("%s endpoints %s: %d ready", "created" if current is None else "updated", key, ready)

    def _current(self, key: str) -> Object | None:
        cached = self.endpoints.indexer.get_by_key(key)
        return self.written.overlay(key, {key: cached} if cached is not None else {}).get(key)

    def _desired(
        self,
        service: Object,
        current: Object | None,
        subsets: list[dict[str, Any]],
        truncated: bool,
        trigger: float | None,
    ) -> Object:
        meta = service["metadata"]
        if current is None:
            desired: Object = {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": meta["name"], "namespace": meta.get("namespace", "")},
            }
        else:
            desired = copy.deepcopy(current)  # the cache's copy is shared
        desired["subsets"] = subsets
        labels = dict(meta.get("labels") or {})
        if is_headless(service):
            labels[HEADLESS_LABEL] = ""
        else:
            labels.pop(HEADLESS_LABEL, None)
        desired["metadata"]["labels"] = labels
        annotations = dict(desired["metadata"].get("annotations") or {})
        if trigger is not None:
            annotations[TRIGGER_TIME_ANNOTATION] = format_rfc3339(trigger)
        else:  # no pod or Service change to report (a pod went away): upstream clears it
            annotations.pop(TRIGGER_TIME_ANNOTATION, None)
        if truncated:
            annotations[OVER_CAPACITY_ANNOTATION] = TRUNCATED
        else:
            annotations.pop(OVER_CAPACITY_ANNOTATION, None)
        desired["metadata"]["annotations"] = annotations
        return desired

    async def _delete(self, namespace: str, name: str) -> None:
        try:
            await self.client.resource(ENDPOINTS, namespace).delete(name)
        except ApiError as err:
            if err.code != 404:
                raise
        else:
            log.info("deleted endpoints %s/%s: the service is gone", namespace, name)
        self.written.forget_owner(f"{namespace}/{name}")


def _same_content(current: Object, subsets: list[dict[str, Any]], labels: dict[str, str]) -> bool:
    return bool(
        (current.get("subsets") or []) == subsets and (current["metadata"].get("labels") or {}) == labels
    )


def _same(current: Object, desired: Object) -> bool:
    """Subsets, labels and the over-capacity annotation as wanted: no write (a trigger time
    alone never causes one, as upstream compares without it)."""
    over = OVER_CAPACITY_ANNOTATION
    return _same_content(current, desired.get("subsets") or [], desired["metadata"]["labels"]) and (
        (current["metadata"].get("annotations") or {}).get(over)
        == (desired["metadata"].get("annotations") or {}).get(over)
    )

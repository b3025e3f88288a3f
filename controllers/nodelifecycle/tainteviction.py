"""The taint eviction controller (upstream's ``tainteviction.Controller``, the former taint
manager): pods on a node with NoExecute taints they do not tolerate are deleted.

For each pod bound to a node with NoExecute taints (``process_pod_on_node``):

- a taint the pod does not tolerate: delete it now;
- every taint tolerated forever (no ``tolerationSeconds``): cancel any scheduled deletion;
- otherwise schedule the deletion for the earliest ``timeAdded + tolerationSeconds`` over the
  taints (``timeAdded`` missing: now). An earlier scheduled deletion is kept.

Scheduled deletions are keys in ``eviction_queue`` (``add_after`` on the injected clock) plus an
entry in ``evictions``; cancelling removes the entry (with a ``Cancelling deletion`` event), so
a queued key that fires without one does nothing. Node keys are queued when a node's NoExecute
taints change (all taints gone: every pending deletion on it is cancelled); pod keys
(``ns/name``) when a pod is bound, changes tolerations or is deleted.

A deletion records ``TaintManagerEviction`` ("Marking for deletion Pod ns/name"), adds the
``DisruptionTarget`` condition to the pod's status, then deletes the pod.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import math
from dataclasses import dataclass

from controllers.nodelifecycle.controller import NODE_NAME_INDEX, pods_by_node_name
from controllers.nodelifecycle.health import get_condition
from controllers.nodelifecycle.taints import (
    Taint,
    Toleration,
    matching_tolerations,
    no_execute_taints,
)
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339 as format_time
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import NODES, PODS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("taint-eviction-controller")

EVENT_REASON = "TaintManagerEviction"
DELETE_RETRIES = 5


@dataclass
class ScheduledEviction:
    created_at: float
    fire_at: float


def pod_ref(key: str) -> Object:
    namespace, _, name = key.partition("/")
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": namespace, "name": name}}


def tolerations_of(pod: Object) -> list[Toleration]:
    return list((pod.get("spec") or {}).get("tolerations") or [])


class TaintEvictionController:
    """``name`` = "taint-eviction-controller". Informers: nodes, pods (indexed by
    ``spec.nodeName``). Keys: node names and ``ns/name`` pods; ``evict`` works the
    ``eviction_queue``."""

    name = "taint-eviction-controller"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._client = client
        self._clock = clock or RealClock()
        self._recorder = recorder
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(
            clock=self._clock, name="taint-eviction-controller"
        )
        self.eviction_queue: RateLimitingQueue[str] = RateLimitingQueue(
            clock=self._clock, name="taint-evictions"
        )
        self.evictions: dict[str, ScheduledEviction] = {}
        self.nodes = factory.informer(NODES)
        self.pods = pods_by_node_name(factory.informer(PODS))
        self.nodes.add_event_handler(
            EventHandlerFuncs(
                add=lambda n: self._node_updated(None, n),
                update=self._node_updated,
                delete=self._node_deleted,
            )
        )
        self.pods.add_event_handler(
            EventHandlerFuncs(
                add=lambda p: self._pod_updated(None, p), update=self._pod_updated, delete=self._pod_deleted
            )
        )

    # -- handlers --------------------------------------------------------------------------

    def _node_updated(self, old: Object | None, new: Object) -> None:
        if old is not None and no_execute_taints(old) == no_execute_taints(new):
            return
        self.queue.add(new["metadata"]["name"])

    def _node_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        node = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        self.queue.add(node["metadata"]["name"])

    def _pod_updated(self, old: Object | None, new: Object) -> None:
        if old is not None and (
            tolerations_of(old) == tolerations_of(new)
            and (old.get("spec") or {}).get("nodeName") == (new.get("spec") or {}).get("nodeName")
        ):
            return
        self.queue.add(meta_namespace_key(new))

    def _pod_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        self.queue.add(meta_namespace_key(pod))

    # -- running ---------------------------------------------------------------------------

    async def run(self, workers: int) -> None:
        synced = [self.nodes.has_synced, self.pods.has_synced]
        async with asyncio.TaskGroup() as tg:
            tg.create_task(run_workers(self.name, self.queue, self.sync, workers, synced, self._clock))
            tg.create_task(
                run_workers(
                    f"{self.name}-evictions", self.eviction_queue, self.evict, workers, synced, self._clock
                )
            )

    async def sync(self, key: str) -> None:
        if "/" in key:
            await self.handle_pod_update(key)
        else:
            await self.handle_node_update(key)

    async def handle_node_update(self, node_name: str) -> None:
        node = self.nodes.indexer.get_by_key(node_name)
        pods = self.pods.indexer.by_index(NODE_NAME_INDEX, node_name)
        taints = no_execute_taints(node) if node is not None else []
        if not taints:
            for pod in pods:
                self.cancel_work_with_event(meta_namespace_key(pod))
            return
        for pod in pods:
            await self.process_pod_on_node(meta_namespace_key(pod), tolerations_of(pod), taints)

    async def handle_pod_update(self, key: str) -> None:
        pod = self.pods.indexer.get_by_key(key)
        if pod is None:
            self.cancel_work_with_event(key)
            return
        node_name = (pod.get("spec") or {}).get("nodeName")
        node = self.nodes.indexer.get_by_key(node_name) if node_name else None
        if node is None:
            return
        taints = no_execute_taints(node)
        if not taints:
            return
        await self.process_pod_on_node(key, tolerations_of(pod), taints)

    async def process_pod_on_node(self, key: str, tolerations: list[Toleration], taints: list[Taint]) -> None:
        now = self._clock.now()
        used = matching_tolerations(taints, tolerations)
        if used is None:
            log.info("not all taints are tolerated by pod %s; deleting it", key)
            self.cancel_work_with_event(key)
            await self.delete_pod(key)
            return
        fire_at = math.inf
        for taint, toleration in zip(taints, used, strict=True):
            seconds = toleration.get("tolerationSeconds")
            if seconds is None:
                continue
            added = parse_time(taint.get("timeAdded"))
            start = now if added is None else min(added, now)
            fire_at = min(fire_at, start + max(0, int(seconds)))
        if fire_at == math.inf:
            self.cancel_work_with_event(key)  # tolerated forever
            return
        scheduled = self.evictions.get(key)
        if scheduled is not None:
            if scheduled.fire_at <= fire_at:
                return
            self.cancel_work_with_event(key)
        if fire_at <= now:
            await self.delete_pod(key)
            return
        self.evictions[key] = ScheduledEviction(now, fire_at)
        self.eviction_queue.add_after(key, fire_at - now)

    def cancel_work_with_event(self, key: str) -> None:
        if self.evictions.pop(key, None) is not None:
            self._recorder.event(pod_ref(key), "Normal", EVENT_REASON, f"Cancelling deletion of Pod {key}")

    def scheduled_at(self, key: str) -> float | None:
        scheduled = self.evictions.get(key)
        return scheduled.fire_at if scheduled is not None else None

    # -- evicting --------------------------------------------------------------------------

    async def evict(self, key: str) -> None:
        """The eviction queue's worker: delete the pod if its scheduled time has come."""
        scheduled = self.evictions.get(key)
        if scheduled is None:
            return  # cancelled
        now = self._clock.now()
        if scheduled.fire_at > now:
            self.eviction_queue.add_after(key, scheduled.fire_at - now)
            return
        del self.evictions[key]
        await self.delete_pod(key)

    async def delete_pod(self, key: str) -> None:
        self._recorder.event(pod_ref(key), "Normal", EVENT_REASON, f"Marking for deletion Pod {key}")
        namespace, _, name = key.partition("/")
        pods = self._client.resource(PODS, namespace)
        for attempt in range(DELETE_RETRIES):
            try:
                pod = await pods.get(name)
                await self._add_disruption_condition(pod)
                await pods.delete(name)
                return
            except ApiError as exc:
                if exc.code == 404:
                    return
                if attempt == DELETE_RETRIES - 1:
                    raise

    async def _add_disruption_condition(self, pod: Object) -> None:
        condition = get_condition(pod, "DisruptionTarget")
        if condition is not None and condition.get("status") == "True":
            return
        updated = copy.deepcopy(pod)
        conditions = updated.setdefault("status", {}).setdefault("conditions", [])
        conditions[:] = [c for c in conditions if c.get("type") != "DisruptionTarget"]
        conditions.append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "lastTransitionTime": format_time(self._clock.now()),
                "reason": "DeletionByTaintManager",
                "message": "Taint manager: deleting due to NoExecute taint",
            }
        )
        await self._client.resource(PODS, pod["metadata"]["namespace"]).update_status(updated)

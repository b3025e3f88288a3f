"""``ReplicaSetController`` (upstream's pkg/controller/replicaset), for any ``ReplicatedKind``:
ReplicaSets (the default) and ReplicationControllers (``controllers/replication``).

Event handlers only compute keys, touch expectations and enqueue. ``sync`` (upstream's
``syncReplicaSet``) reads the caches, claims pods, runs ``manage_replicas`` when the
expectations say the cache has caught up with this controller's own writes, and writes status.

Pods are found through the pod informer's ``controller-uid`` index (owned pods by owner uid,
orphans by namespace), so a sync and every handler cost O(pods of this set), not O(all pods).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from controllers.podcontrol.control import PodControl
from controllers.podcontrol.controllerref import objects_selecting, resolve_controller_ref
from controllers.podcontrol.expectations import UIDTrackingExpectations
from controllers.podcontrol.ownerrefs import (
    add_controller_uid_index,
    get_controller_of,
    new_controller_ref,
    objects_for_owner,
)
from controllers.podcontrol.pods import filter_active_pods, is_pod_ready
from controllers.podcontrol.refmanager import ControllerRefManager, recheck_owner
from controllers.replicaset.kinds import REPLICA_SET, ReplicatedKind
from controllers.replicaset.replicas import ReplicasContext, manage_replicas
from controllers.replicaset.status import calculate_status, update_replica_set_status
from minikube_py.api.labels import Selector, SelectorError
from minikube_py.api.replicas import invalid_replicas_message, spec_replicas
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
from minikube_py.client.resourcetypes import PODS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("replicaset")

BURST_REPLICAS = 500


class ReplicaSetController:
    """Keeps ``spec.replicas`` pods of each object of ``kind`` running (``REPLICA_SET`` unless
    told otherwise)."""

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        burst_replicas: int = BURST_REPLICAS,
        kind: ReplicatedKind = REPLICA_SET,
    ) -> None:
        self.kind = kind
        self.name = kind.name
        self.client = client
        self.recorder = recorder
        self.clock: Clock = clock or RealClock()
        self.burst_replicas = burst_replicas
        self.expectations = UIDTrackingExpectations(self.clock)
        self.pod_control = PodControl(client, recorder)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.rs_informer = factory.informer(kind.resource_type)
        self.pod_informer = factory.informer(PODS)
        add_controller_uid_index(self.rs_informer)
        add_controller_uid_index(self.pod_informer)
        self.rs_informer.add_event_handler(
            EventHandlerFuncs(add=self._enqueue, update=self._update_rs, delete=self._delete_rs)
        )
        self.pod_informer.add_event_handler(
            EventHandlerFuncs(add=self._add_pod, update=self._update_pod, delete=self._delete_pod)
        )
        self.replicas = ReplicasContext(
            self.pod_control,
            self.expectations,
            self.controller_ref,
            burst_replicas,
            self.clock,
            self.rs_informer.indexer,
            self.pod_informer.indexer,
        )

    async def run(self, workers: int) -> None:
        synced = [self.rs_informer.has_synced, self.pod_informer.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    def controller_ref(self, rs: Object) -> dict[str, Any]:
        return new_controller_ref(rs, self.kind.api_version, self.kind.kind)

    def selector(self, rs: Object) -> Selector | None:
        """The object's selector, or None when it is not a valid one."""
        try:
            return self.kind.selector(rs)
        except SelectorError:
            return None

    # -- event handlers ------------------------------------------------------------------------

    def _enqueue(self, rs: Object) -> None:
        self.queue.add(meta_namespace_key(rs))

    def _update_rs(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("uid") != cur["metadata"].get("uid"):
            self._delete_rs(DeletedFinalStateUnknown(meta_namespace_key(old), old))
        self._enqueue(cur)

    def _delete_rs(self, obj: Object | DeletedFinalStateUnknown) -> None:
        rs = final_state(obj)
        key = meta_namespace_key(rs)
        self.expectations.delete_expectations(key)
        self.queue.add(key)

    def _resolve_controller_ref(self, namespace: str, ref: Any) -> Object | None:
        return resolve_controller_ref(self.rs_informer.indexer, self.kind.kind, namespace, ref)

    def _pod_replica_sets(self, pod: Object) -> list[Object]:
        """Objects in the pod's namespace whose selector matches its labels (for orphans)."""
        return objects_selecting(self.rs_informer.indexer, pod, self.selector)

    def _add_pod(self, pod: Object) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            self._delete_pod(pod)
            return
        ref = get_controller_of(pod)
        if ref is not None:
            rs = self._resolve_controller_ref(pod["metadata"]["namespace"], ref)
            if rs is not None:
                key = meta_namespace_key(rs)
                self.expectations.creation_observed(key)
                self.queue.add(key)
            return
        for rs in self._pod_replica_sets(pod):
            self._enqueue(rs)

    def _update_pod(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("resourceVersion") == cur["metadata"].get("resourceVersion"):
            return
        labels_changed = old["metadata"].get("labels") != cur["metadata"].get("labels")
        if cur["metadata"].get("deletionTimestamp"):
            self._delete_pod(cur)
            if labels_changed:
                self._delete_pod(old)
            return
        old_ref, cur_ref = get_controller_of(old), get_controller_of(cur)
        ref_changed = old_ref != cur_ref
        namespace = cur["metadata"]["namespace"]
        old_rs = self._resolve_controller_ref(namespace, old_ref) if ref_changed and old_ref else None
        if old_rs is not None:
            self._enqueue(old_rs)
        if cur_ref is not None:
            rs = self._resolve_controller_ref(namespace, cur_ref)
            if rs is None:
                return
            self._enqueue(rs)
            min_ready = int(rs["spec"].get("minReadySeconds") or 0)
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                self.queue.add_after(meta_namespace_key(rs), min_ready + 1.0)
            return
        if labels_changed or ref_changed:
            for rs in self._pod_replica_sets(cur):
                self._enqueue(rs)

    def _delete_pod(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = final_state(obj)
        ref = get_controller_of(pod)
        if ref is None:
            return
        rs = self._resolve_controller_ref(pod["metadata"].get("namespace", ""), ref)
        if rs is None:
            return
        key = meta_namespace_key(rs)
        self.expectations.deletion_observed_of(key, meta_namespace_key(pod))
        self.queue.add(key)

    # -- sync ------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        await self.sync_replica_set(key)

    async def sync_replica_set(self, key: str) -> None:
        namespace, name = split_meta_namespace_key(key)
        cached = self.rs_informer.indexer.get_by_key(key)
        if cached is None:
            self.expectations.delete_expectations(key)
            return
        if spec_replicas(cached) is None:  # stored before the apiserver checked types: never act
            log.warning("%s %s skipped: spec.replicas %r", self.name, key, cached["spec"].get("replicas"))
            self.recorder.event(cached, "Warning", "InvalidReplicas", invalid_replicas_message(cached))
            return
        needs_sync = self.expectations.satisfied_expectations(key)
        selector = self.selector(cached)
        if selector is None:  # upstream's sync fails on it and never retries: nothing to act on
            log.error("%s %s skipped: invalid selector %r", self.name, key, cached["spec"].get("selector"))
            return
        pods = filter_active_pods(objects_for_owner(self.pod_informer, cached, include_orphans=True))
        manager = ControllerRefManager(
            self.client,
            cached,
            self.kind.api_version,
            self.kind.kind,
            selector,
            PODS,
            recheck_owner(self.client, self.kind.resource_type, cached),
        )
        pods = await manager.claim(pods)
        manage_error: Exception | None = None
        if needs_sync and not cached["metadata"].get("deletionTimestamp"):
            try:
                await manage_replicas(self.replicas, pods, cached)
            except Exception as err:
                manage_error = err
        rs = copy.deepcopy(cached)
        new_status = calculate_status(rs, pods, manage_error, self.clock)
        updated = await update_replica_set_status(self.client, self.kind.resource_type, rs, new_status)
        self._requeue_for_availability(key, updated, manage_error)
        if manage_error is not None:
            raise manage_error
        log.debug("%s synced key=%s namespace=%s name=%s", self.name, key, namespace, name)

    def _requeue_for_availability(self, key: str, rs: Object, manage_error: Exception | None) -> None:
        min_ready = int(rs["spec"].get("minReadySeconds") or 0)
        status = rs.get("status") or {}
        ready, available = status.get("readyReplicas", 0), status.get("availableReplicas", 0)
        if manage_error is None and min_ready > 0 and ready > available:
            self.queue.add_after(key, float(min_ready))

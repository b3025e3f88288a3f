"""``StatefulSetController`` (upstream's pkg/controller/statefulset).

Handlers map a StatefulSet, Pod, PersistentVolumeClaim or Service event to set keys and
enqueue them. ``sync`` (upstream's ``syncStatefulSet``) adopts orphan ControllerRevisions,
claims the member pods (matching the selector and named ``<set>-<ordinal>``), warns about a
missing governing Service, works out the current and update revisions, runs one
``SetUpdate`` pass, writes status and trims the revision history.

There are no expectations: a member has a fixed name, so a create the cache has not seen yet
comes back as AlreadyExists, which is ignored.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from controllers.history import History
from controllers.podcontrol.controllerref import objects_selecting, resolve_controller_ref
from controllers.podcontrol.ownerrefs import add_controller_uid_index, get_controller_of, objects_for_owner
from controllers.podcontrol.pods import is_pod_ready
from controllers.podcontrol.refmanager import ControllerRefManager, recheck_owner
from controllers.statefulset import identity as ident
from controllers.statefulset import revisions as revs
from controllers.statefulset.governing import GoverningServiceCheck
from controllers.statefulset.statefulpods import StatefulPodControl
from controllers.statefulset.status import update_status
from controllers.statefulset.update import SetUpdate, UpdateContext
from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.replicas import invalid_replicas_message, spec_replicas
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import NAMESPACE_INDEX, DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import (
    CONTROLLERREVISIONS,
    PERSISTENTVOLUMECLAIMS,
    PODS,
    SERVICES,
    STATEFULSETS,
)
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("statefulset")


class StatefulSetController:
    name = "statefulset"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
    ) -> None:
        self.client = client
        self.recorder = recorder
        self.clock: Clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.set_informer = factory.informer(STATEFULSETS)
        self.pod_informer = factory.informer(PODS)
        self.revision_informer = factory.informer(CONTROLLERREVISIONS)
        self.claim_informer = factory.informer(PERSISTENTVOLUMECLAIMS)
        self.service_informer = factory.informer(SERVICES)
        add_controller_uid_index(self.pod_informer)
        self.set_informer.add_event_handler(
            EventHandlerFuncs(
                add=self._enqueue,
                update=lambda old, cur: self._enqueue(cur),
                delete=lambda obj: self._deleted_set(final_state(obj)),
            )
        )
        self.pod_informer.add_event_handler(
            EventHandlerFuncs(add=self._add_pod, update=self._update_pod, delete=self._delete_pod)
        )
        self.claim_informer.add_event_handler(
            EventHandlerFuncs(delete=lambda obj: self._enqueue_selecting(final_state(obj)))
        )
        self.service_informer.add_event_handler(
            EventHandlerFuncs(add=self._service_changed, update=lambda old, cur: self._service_changed(cur))
        )
        self.history = History(client, self.revision_informer.indexer)
        self.pod_control = StatefulPodControl(client, recorder, self.claim_informer.indexer)
        self.governing = GoverningServiceCheck(self.service_informer.indexer, recorder)

    async def run(self, workers: int) -> None:
        informers = (
            self.set_informer,
            self.pod_informer,
            self.revision_informer,
            self.claim_informer,
            self.service_informer,
        )
        synced = [i.has_synced for i in informers]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    # -- event handlers ------------------------------------------------------------------------

    def _enqueue(self, sts: Object) -> None:
        self.queue.add(meta_namespace_key(sts))

    def _deleted_set(self, sts: Object) -> None:
        self.governing.forget(meta_namespace_key(sts))
        self._enqueue(sts)

    def _resolve(self, namespace: str, ref: Any) -> Object | None:
        return resolve_controller_ref(self.set_informer.indexer, ident.KIND, namespace, ref)

    def _sets_selecting(self, obj: Object) -> list[Object]:
        return objects_selecting(self.set_informer.indexer, obj)

    def _enqueue_selecting(self, obj: Object) -> None:
        for sts in self._sets_selecting(obj):
            self._enqueue(sts)

    def _add_pod(self, pod: Object) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            self._delete_pod(pod)
            return
        ref = get_controller_of(pod)
        if ref is not None:
            if (sts := self._resolve(pod["metadata"]["namespace"], ref)) is not None:
                self._enqueue(sts)
            return
        self._enqueue_selecting(pod)

    def _update_pod(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("resourceVersion") == cur["metadata"].get("resourceVersion"):
            return
        namespace = cur["metadata"]["namespace"]
        old_ref, cur_ref = get_controller_of(old), get_controller_of(cur)
        if old_ref != cur_ref and (old_sts := self._resolve(namespace, old_ref)) is not None:
            self._enqueue(old_sts)
        if cur_ref is not None:
            sts = self._resolve(namespace, cur_ref)
            if sts is None:
                return
            self._enqueue(sts)
            min_ready = int(sts["spec"].get("minReadySeconds") or 0)
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                self.queue.add_after(meta_namespace_key(sts), min_ready + 1.0)
            return
        if old_ref != cur_ref or old["metadata"].get("labels") != cur["metadata"].get("labels"):
            self._enqueue_selecting(cur)

    def _delete_pod(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = final_state(obj)
        sts = self._resolve(pod["metadata"].get("namespace", ""), get_controller_of(pod))
        if sts is not None:
            self._enqueue(sts)

    def _service_changed(self, svc: Object) -> None:
        namespace, name = svc["metadata"].get("namespace", ""), svc["metadata"].get("name")
        for sts in self.set_informer.indexer.by_index(NAMESPACE_INDEX, namespace):
            if sts["spec"].get("serviceName") == name:
                self._enqueue(sts)

    # -- sync ------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        cached = self.set_informer.indexer.get_by_key(key)
        if cached is None:
            return
        if spec_replicas(cached) is None:  # stored before the apiserver checked types: never act
            log.warning("statefulset %s skipped: spec.replicas %r", key, cached["spec"].get("replicas"))
            self.recorder.event(cached, "Warning", "InvalidReplicas", invalid_replicas_message(cached))
            return
        sts = copy.deepcopy(cached)
        revisions = revs.list_revisions(self.history, sts)
        await revs.adopt_orphan_revisions(
            self.history, sts, revisions, recheck_owner(self.client, STATEFULSETS, sts)
        )
        pods = await self._claim_pods(sts)
        self.governing.check(key, sts)
        await self._update_stateful_set(sts, pods, revisions)

    async def _claim_pods(self, sts: Object) -> list[Object]:
        """Owned and orphan pods of the set's namespace that match its selector and are named
        as its members (a pod matching the selector under another name is not adopted)."""
        selector = label_selector_as_selector(sts["spec"].get("selector"))
        candidates = [p for p in objects_for_owner(self.pod_informer, sts, include_orphans=True)]
        members = [p for p in candidates if ident.is_member_of(sts, p)]
        manager = ControllerRefManager(
            self.client,
            sts,
            ident.API_VERSION,
            ident.KIND,
            selector,
            PODS,
            recheck_owner(self.client, STATEFULSETS, sts),
        )
        return await manager.claim(members)

    async def _update_stateful_set(self, sts: Object, pods: list[Object], revisions: list[Object]) -> None:
        """upstream's ``UpdateStatefulSet``: one pass, status written even when a write failed,
        then the history trimmed."""
        found = await revs.stateful_set_revisions(self.history, sts, revisions)
        error: Exception | None = None
        update = SetUpdate(UpdateContext(self.pod_control, self.clock.now()), sts, found, pods)
        try:
            status = await update.run()
        except Exception as err:  # the walk stopped at a failed write: still record what it saw
            error, status = err, update.status
        try:
            stored = await update_status(self.client, sts, status)
        finally:
            await revs.truncate_history(self.history, sts, pods, revisions, [found.current, found.update])
        if error is not None:
            raise error
        min_ready = int(sts["spec"].get("minReadySeconds") or 0)
        stored_status = stored.get("status") or {}
        if min_ready > 0 and stored_status.get("readyReplicas", 0) != stored_status.get(
            "availableReplicas", 0
        ):
            self.queue.add_after(meta_namespace_key(sts), float(min_ready))
        log.debug("statefulset synced %s", meta_namespace_key(sts))

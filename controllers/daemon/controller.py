"""``DaemonSetsController`` (upstream's pkg/controller/daemon): one pod per eligible node.

Handlers only compute keys, touch expectations and enqueue: a DaemonSet on any change; its
owner on a pod or revision event (orphans: every DaemonSet of the namespace selecting them);
every DaemonSet that should (or should no longer) run on a node when the node is added or
its labels, taints or conditions change. ``sync`` (upstream's ``syncDaemonSet``) claims the
pods and revisions, finds the current revision, and, once its expectations say the cache has
caught up with its own writes, runs ``manage``, the update strategy and the history cleanup,
then writes status."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from controllers.daemon.backoff import FailedPodsBackoff
from controllers.daemon.context import (
    API_VERSION,
    BURST_REPLICAS,
    KIND,
    DaemonContext,
    pods_by_node,
)
from controllers.daemon.history import cleanup_history, construct_history
from controllers.daemon.manage import manage
from controllers.daemon.predicates import DaemonPlacement
from controllers.daemon.rolling import rolling_update
from controllers.daemon.status import calculate_counts, store_status
from controllers.daemon.util import REVISION_HASH_LABEL, ROLLING_UPDATE, strategy_type
from controllers.history import History
from controllers.podcontrol.control import PodControl
from controllers.podcontrol.controllerref import objects_selecting, resolve_controller_ref
from controllers.podcontrol.expectations import ControllerExpectations
from controllers.podcontrol.ownerrefs import (
    add_controller_uid_index,
    get_controller_of,
    new_controller_ref,
    objects_for_owner,
)
from controllers.podcontrol.pods import is_pod_ready
from controllers.podcontrol.refmanager import ControllerRefManager, recheck_owner
from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import NAMESPACE_INDEX, DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import CONTROLLERREVISIONS, DAEMONSETS, NODES, PODS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("daemonset")

BACKOFF_GC_INTERVAL = 60.0


class DaemonSetsController:
    name = "daemonset"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        burst_replicas: int = BURST_REPLICAS,
    ) -> None:
        self.client, self.recorder = client, recorder
        self.clock: Clock = clock or RealClock()
        self.expectations = ControllerExpectations(self.clock)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.ds_informer = factory.informer(DAEMONSETS)
        self.pod_informer = factory.informer(PODS)
        self.node_informer = factory.informer(NODES)
        self.history_informer = factory.informer(CONTROLLERREVISIONS)
        add_controller_uid_index(self.pod_informer)
        self.ds_informer.add_event_handler(
            EventHandlerFuncs(add=self._enqueue, update=self._update_ds, delete=self._delete_ds)
        )
        self.pod_informer.add_event_handler(
            EventHandlerFuncs(add=self._add_pod, update=self._update_pod, delete=self._delete_pod)
        )
        self.history_informer.add_event_handler(
            EventHandlerFuncs(add=self._add_history, update=self._update_history, delete=self._delete_history)
        )
        self.node_informer.add_event_handler(EventHandlerFuncs(add=self._add_node, update=self._update_node))
        self.context = DaemonContext(
            client,
            recorder,
            PodControl(client, recorder),
            self.expectations,
            FailedPodsBackoff(self.clock),
            self.clock,
            burst_replicas,
            lambda ds: new_controller_ref(ds, API_VERSION, KIND),
            self.queue.add_after,
            History(client, self.history_informer.indexer),
        )

    async def run(self, workers: int) -> None:
        synced = [
            i.has_synced
            for i in (self.ds_informer, self.pod_informer, self.node_informer, self.history_informer)
        ]
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._gc_backoff())
            await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    async def _gc_backoff(self) -> None:
        while True:
            await self.clock.sleep(BACKOFF_GC_INTERVAL)
            self.context.backoff.gc(self.clock.now())

    # -- event handlers ------------------------------------------------------------------------

    def _enqueue(self, ds: Object) -> None:
        self.queue.add(meta_namespace_key(ds))

    def _update_ds(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("uid") != cur["metadata"].get("uid"):
            self._delete_ds(DeletedFinalStateUnknown(meta_namespace_key(old), old))
        self._enqueue(cur)

    def _delete_ds(self, obj: Object | DeletedFinalStateUnknown) -> None:
        self._enqueue(final_state(obj))

    def _resolve(self, namespace: str, ref: Any) -> Object | None:
        return resolve_controller_ref(self.ds_informer.indexer, KIND, namespace, ref)

    def _selecting(self, obj: Object) -> list[Object]:
        """The namespace's DaemonSets whose (non-empty) selector matches ``obj``'s labels."""
        return objects_selecting(self.ds_informer.indexer, obj)

    def _add_pod(self, pod: Object) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            self._delete_pod(pod)  # a restarted controller sees a pod pending deletion as added
            return
        ref = get_controller_of(pod)
        if ref is not None:
            ds = self._resolve(pod["metadata"]["namespace"], ref)
            if ds is not None:
                self.expectations.creation_observed(meta_namespace_key(ds))
                self._enqueue(ds)
            return
        for ds in self._selecting(pod):
            self._enqueue(ds)

    def _update_pod(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("resourceVersion") == cur["metadata"].get("resourceVersion"):
            return
        if cur["metadata"].get("deletionTimestamp"):
            self._delete_pod(cur)
            return
        old_ref, cur_ref = get_controller_of(old), get_controller_of(cur)
        namespace = cur["metadata"]["namespace"]
        if old_ref != cur_ref and (old_ds := self._resolve(namespace, old_ref)) is not None:
            self._enqueue(old_ds)
        if cur_ref is not None:
            ds = self._resolve(namespace, cur_ref)
            if ds is None:
                return
            self._enqueue(ds)
            min_ready = int(ds["spec"].get("minReadySeconds") or 0)
            if min_ready > 0 and not is_pod_ready(old) and is_pod_ready(cur):
                self.queue.add_after(meta_namespace_key(ds), float(min_ready))
            return
        if old["metadata"].get("labels") != cur["metadata"].get("labels") or old_ref != cur_ref:
            for ds in self._selecting(cur):
                self._enqueue(ds)

    def _delete_pod(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = final_state(obj)
        ds = self._resolve(pod["metadata"].get("namespace", ""), get_controller_of(pod))
        if ds is None:
            return
        self.expectations.deletion_observed(meta_namespace_key(ds))
        self._enqueue(ds)

    def _add_history(self, revision: Object) -> None:
        ds = self._resolve(revision["metadata"].get("namespace", ""), get_controller_of(revision))
        if ds is not None:
            self._enqueue(ds)
        elif get_controller_of(revision) is None:
            for candidate in self._selecting(revision):
                self._enqueue(candidate)

    def _update_history(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("resourceVersion") == cur["metadata"].get("resourceVersion"):
            return
        if get_controller_of(old) != get_controller_of(cur):
            self._add_history(old)
        self._add_history(cur)

    def _delete_history(self, obj: Object | DeletedFinalStateUnknown) -> None:
        revision = final_state(obj)
        ds = self._resolve(revision["metadata"].get("namespace", ""), get_controller_of(revision))
        if ds is not None:
            self._enqueue(ds)

    def _add_node(self, node: Object) -> None:
        for ds in self.ds_informer.indexer.list():
            if DaemonPlacement(ds).of(node).should_run:
                self._enqueue(ds)

    def _update_node(self, old: Object, cur: Object) -> None:
        if _same_for_scheduling(old, cur):
            return
        for ds in self.ds_informer.indexer.list():
            placement = DaemonPlacement(ds)
            if placement.of(old) != placement.of(cur):
                self._enqueue(ds)

    # -- sync ------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        ds = self.ds_informer.indexer.get_by_key(key)
        if ds is None:
            self.expectations.delete_expectations(key)
            return
        if ds["spec"].get("selector") == {}:
            message = "This daemon set is selecting all pods. A non-empty selector is required."
            self.recorder.event(ds, "Warning", "SelectingAll", message)
            return
        if ds["metadata"].get("deletionTimestamp"):
            return  # its revisions may be gone already: no status can be trusted
        nodes = self.node_informer.indexer.list()
        pods = await self._claim_pods(ds)
        revisions = self.history_informer.indexer.by_index(NAMESPACE_INDEX, ds["metadata"]["namespace"])
        current, old = await construct_history(self.context, ds, revisions, pods)
        hash_ = (current["metadata"].get("labels") or {}).get(REVISION_HASH_LABEL, "")
        placement = DaemonPlacement(ds)
        if not self.expectations.satisfied_expectations(key):
            await self._update_status(ds, nodes, pods, placement, hash_, False)
            return
        error: Exception | None = None
        try:
            await self._update_daemon_set(ds, nodes, pods, placement, hash_, old)
        except Exception as err:
            error = err
        try:
            await self._update_status(ds, nodes, pods, placement, hash_, True)
        except Exception as status_error:
            if error is None:
                raise
            log.error("failed to update status of daemonset %s: %s", key, status_error)
        if error is not None:
            raise error

    async def _claim_pods(self, ds: Object) -> list[Object]:
        selector = label_selector_as_selector(ds["spec"].get("selector"))
        manager = ControllerRefManager(
            self.client, ds, API_VERSION, KIND, selector, PODS, recheck_owner(self.client, DAEMONSETS, ds)
        )
        return await manager.claim(objects_for_owner(self.pod_informer, ds, include_orphans=True))

    async def _update_daemon_set(
        self,
        ds: Object,
        nodes: list[Object],
        pods: list[Object],
        placement: DaemonPlacement,
        hash_: str,
        old: list[Object],
    ) -> None:
        await manage(self.context, ds, nodes, pods_by_node(pods, True), placement, hash_)
        if (
            self.expectations.satisfied_expectations(meta_namespace_key(ds))
            and strategy_type(ds) == ROLLING_UPDATE
        ):
            await rolling_update(self.context, ds, nodes, pods_by_node(pods, False), placement, hash_)
        await cleanup_history(self.context, ds, old, pods_by_node(pods, True))

    async def _update_status(
        self,
        ds: Object,
        nodes: list[Object],
        pods: list[Object],
        placement: DaemonPlacement,
        hash_: str,
        observed: bool,
    ) -> None:
        counts = calculate_counts(ds, nodes, pods_by_node(pods, False), placement, hash_, self.clock.now())
        await store_status(self.client, ds, counts, observed)
        min_ready = int(ds["spec"].get("minReadySeconds") or 0)
        if min_ready > 0 and counts["numberReady"] != counts["numberAvailable"]:
            self.queue.add_after(meta_namespace_key(ds), float(min_ready))


def _true_conditions(node: Object) -> set[str]:
    return {
        c.get("type", "")
        for c in (node.get("status") or {}).get("conditions") or []
        if c.get("status") == "True"
    }


def _same_for_scheduling(old: Object, cur: Object) -> bool:
    """Nothing a DaemonSet's placement reads changed (upstream's ``shouldIgnoreNodeUpdate``
    narrowed to what ``DaemonPlacement`` reads: labels, taints, conditions that are true)."""
    return (
        old["metadata"].get("labels") == cur["metadata"].get("labels")
        and (old.get("spec") or {}).get("taints") == (cur.get("spec") or {}).get("taints")
        and _true_conditions(old) == _true_conditions(cur)
    )

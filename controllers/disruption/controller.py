"""``DisruptionController`` (upstream's pkg/controller/disruption).

For each PodDisruptionBudget, ``sync`` counts the pods it selects: how many it expects
(``expectedPods``: the pods themselves for an integer ``minAvailable``, else the scale of their
controllers, ``finders``), how many must stay healthy (``desiredHealthy``), how many are
(``currentHealthy``: Ready, not being deleted, not recently evicted) and so how many may be
disrupted (``disruptionsAllowed``), with the ``DisruptionAllowed`` condition. Whatever fails,
the budget is written with no disruption allowed (``SyncFailed``): the eviction handler must
never approve an unsafe eviction because this controller broke.

Pods evicted through the API are in ``status.disruptedPods``; an entry older than two minutes
(on this controller's clock) whose pod still is not being deleted is dropped, with a
``NotDeleted`` event; the budget is synced again when the next entry expires. A second queue
resets, after the same two minutes, a ``DisruptionTarget`` condition left on a pod that was
never deleted (an eviction refused after the condition was set, or a dry run elsewhere).
"""

from __future__ import annotations

import asyncio
import copy
import logging

from controllers.disruption import budget as budgets
from controllers.disruption.finders import ControllerFinders, NoControllers, expected_scale
from controllers.disruption.stale import STALE_POD_DISRUPTION_TIMEOUT, StalePodDisruptions
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import SelectorError, label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import NAMESPACE_INDEX, DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import (
    DEPLOYMENTS,
    PODDISRUPTIONBUDGETS,
    PODS,
    REPLICASETS,
    resource_type,
    resource_type_for_kind,
)
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("disruption")

STATEFULSETS = resource_type("apps/v1", "statefulsets")
UNMANAGED_PODS = (  # upstream's text, one sentence per line
    "Pods selected by this PodDisruptionBudget (selector: {selector}) were found to be unmanaged. "
    "As a result, the status of the PDB cannot be calculated correctly, which may result in undefined "
    "behavior. To account for these pods please set "
    '".spec.minAvailable" field of the PDB to an integer value.'
)


class DisruptionController:
    name = "disruption"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        stale_pod_disruption_timeout: float = STALE_POD_DISRUPTION_TIMEOUT,
    ) -> None:
        self.client = client
        self.recorder = recorder
        self.clock: Clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.pdb_informer = factory.informer(PODDISRUPTIONBUDGETS)
        self.pod_informer = factory.informer(PODS)
        rc = resource_type_for_kind("v1", "ReplicationController")
        self.owner_informers = [factory.informer(rt) for rt in (REPLICASETS, DEPLOYMENTS, STATEFULSETS)]
        rc_informer = factory.informer(rc) if rc is not None else None
        rs, deployments, sts = (i.indexer for i in self.owner_informers)
        rcs = rc_informer.indexer if rc_informer is not None else None
        self.finders = ControllerFinders(rs, deployments, sts, rcs).finders()
        if rc_informer is not None:
            self.owner_informers.append(rc_informer)
        self.stale = StalePodDisruptions(
            client, self.pod_informer.indexer, self.clock, stale_pod_disruption_timeout
        )
        self.pdb_informer.add_event_handler(
            EventHandlerFuncs(
                add=self._enqueue, update=lambda _old, cur: self._enqueue(cur), delete=self._delete_pdb
            )
        )
        self.pod_informer.add_event_handler(
            EventHandlerFuncs(
                add=self._pod_changed,
                update=lambda _old, cur: self._pod_changed(cur),
                delete=self._delete_pod,
            )
        )

    async def run(self, workers: int) -> None:
        synced = [self.pdb_informer.has_synced, self.pod_informer.has_synced]
        synced += [i.has_synced for i in self.owner_informers]
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(
                run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)
            )
            tasks.create_task(
                run_workers(
                    "stale-pod-disruption",
                    self.stale.queue,
                    self.stale.sync,
                    workers,
                    synced,
                    clock=self.clock,
                )
            )

    # -- event handlers ------------------------------------------------------------------------

    def _enqueue(self, pdb: Object) -> None:
        self.queue.add(meta_namespace_key(pdb))

    def _delete_pdb(self, obj: Object | DeletedFinalStateUnknown) -> None:
        self._enqueue(final_state(obj))

    def _pod_changed(self, pod: Object) -> None:
        pdb = self.pdb_for_pod(pod)
        if pdb is not None:
            self._enqueue(pdb)
        self.stale.observe(pod)

    def _delete_pod(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pdb = self.pdb_for_pod(final_state(obj))
        if pdb is not None:
            self._enqueue(pdb)

    def pdb_for_pod(self, pod: Object) -> Object | None:
        """The first budget covering the pod (upstream's ``getPdbForPod``); a Warning
        ``MultiplePodDisruptionBudgets`` on the pod when there are more."""
        labels = pod["metadata"].get("labels") or {}
        if not labels:
            return None
        namespace = pod["metadata"].get("namespace", "")
        found = []
        for pdb in self.pdb_informer.indexer.by_index(NAMESPACE_INDEX, namespace):
            try:
                selector = label_selector_as_selector((pdb.get("spec") or {}).get("selector"))
            except SelectorError:
                continue
            if not selector.empty and selector.matches(labels):
                found.append(pdb)
        if len(found) > 1:
            chosen = found[0]["metadata"]["name"]
            message = (
                f'Pod "{namespace}"/"{pod["metadata"]["name"]}" matches multiple PodDisruptionBudgets.  '
                f'Chose "{chosen}" arbitrarily.'
            )
            self.recorder.event(pod, "Warning", "MultiplePodDisruptionBudgets", message)
        return found[0] if found else None

    # -- sync ------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        cached = self.pdb_informer.indexer.get_by_key(key)
        if cached is None:
            return
        pdb = copy.deepcopy(cached)
        try:
            await self.try_sync(pdb)
        except ApiError as err:
            if err.code == 409:
                raise  # requeued; the fail-safe would only conflict too
            await self.fail_safe(pdb, err)
        except (NoControllers, ValueError, SelectorError) as err:
            await self.fail_safe(pdb, err)

    async def try_sync(self, pdb: Object) -> None:
        try:
            pods = self.pods_for(pdb)
        except SelectorError as err:
            self.recorder.event(pdb, "Warning", "NoPods", f"Failed to get pods: {err}")
            raise
        if not pods:
            self.recorder.event(pdb, "Normal", "NoPods", "No matching pods found")
        try:
            expected, desired, unmanaged = self.expected_pod_count(pdb, pods)
        except (NoControllers, ValueError) as err:
            if isinstance(err, NoControllers):
                self.recorder.event(pdb, "Warning", "NoControllers", str(err))
            why = f"Failed to calculate the number of expected pods: {err}"
            self.recorder.event(pdb, "Warning", "CalculateExpectedPodCountFailed", why)
            raise
        if unmanaged:
            log.debug("unmanaged pods of %s: %s", meta_namespace_key(pdb), unmanaged)
            selector = (pdb.get("spec") or {}).get("selector")
            self.recorder.event(pdb, "Warning", "UnmanagedPods", UNMANAGED_PODS.format(selector=selector))
        now = self.clock.now()
        disrupted, recheck, expired = budgets.disrupted_pod_map(pods, pdb, now)
        for pod in expired:
            meta = pdb["metadata"]  # upstream names the budget "<namespace>/<namespace>"
            message = (
                f"Pod was expected by PDB {meta['namespace']}/{meta['namespace']} to be deleted but it wasn't"
            )
            self.recorder.event(pod, "Warning", "NotDeleted", message)
        healthy = budgets.count_healthy_pods(pods, disrupted, now)
        status = budgets.desired_status(pdb, healthy, desired, expected, disrupted, now)
        if status is not None:
            await self.write_status(pdb, status)
        if recheck is not None:
            self.queue.add_after(meta_namespace_key(pdb), max(recheck - now, 0.0))

    def pods_for(self, pdb: Object) -> list[Object]:
        selector = label_selector_as_selector((pdb.get("spec") or {}).get("selector"))
        namespace = pdb["metadata"].get("namespace", "")
        pods = self.pod_informer.indexer.by_index(NAMESPACE_INDEX, namespace)
        return [p for p in pods if selector.matches(p["metadata"].get("labels") or {})]

    def expected_pod_count(self, pdb: Object, pods: list[Object]) -> tuple[int, int, list[str]]:
        """(expectedPods, desiredHealthy, unmanaged pod names), as ``getExpectedPodCount``."""
        spec = pdb.get("spec") or {}
        max_unavailable, min_available = spec.get("maxUnavailable"), spec.get("minAvailable")
        if max_unavailable is not None:
            expected, unmanaged = expected_scale(self.finders, pods)
            return expected, max(expected - budgets.scaled_value(max_unavailable, expected), 0), unmanaged
        if min_available is None:
            return 0, 0, []
        if not budgets.is_percent(min_available):
            return len(pods), int(min_available), []
        expected, unmanaged = expected_scale(self.finders, pods)
        return expected, budgets.scaled_value(min_available, expected), unmanaged

    async def fail_safe(self, pdb: Object, err: Exception) -> None:
        log.warning("failed to sync PDB %s: %s", meta_namespace_key(pdb), err)
        await self.write_status(pdb, budgets.fail_safe_status(pdb, str(err), self.clock.now()))

    async def write_status(self, pdb: Object, status: Object) -> None:
        """One PUT of the status; a failure is retried by the queue, never here."""
        updated = copy.deepcopy(pdb)
        updated["status"] = status
        await self.client.resource(PODDISRUPTIONBUDGETS, pdb["metadata"]["namespace"]).update_status(updated)

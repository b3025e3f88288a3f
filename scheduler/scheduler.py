"""``Scheduler``: the scheduling loop (upstream ``schedule_one.go``), one pod at a time.

    pop -> snapshot -> PreFilter/Filter over nodes -> (none fit) PostFilter, FailedScheduling
        -> PreScore/Score/normalize/weights -> select host -> assume in cache -> Reserve/Permit
        -> binding cycle in the background: PreBind, Bind (POST pods/binding), PostBind

A pod that fits nowhere gets a ``FailedScheduling`` Warning event and the condition
``PodScheduled=False`` (reason ``Unschedulable``) whose message says why, node by node
(``0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint ...``), and
waits in the queue until a cluster event could make it fit. A bound pod gets ``Scheduled``.
Beyond upstream: the last cycle's verdict of every node and every score is kept per pod
(``explain``) and served at ``/debug/pods/{namespace}/{name}``.

The informers feed the queue and the cache through ``eventhandlers``; ``explanation`` keeps
each pod's last cycle.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import wait_for_cache_sync
from minikube_py.client.interfaces import STRATEGIC_MERGE_PATCH, Client
from minikube_py.client.resourcetypes import NAMESPACES, NODES, PODS
from minikube_py.clock import Clock, RealClock
from minikube_py.events import Recorder
from minikube_py.metrics import REGISTRY
from scheduler.backend.cache import Cache, Snapshot
from scheduler.backend.queue import SchedulingQueue
from scheduler.eventhandlers import ClusterEventHandlers
from scheduler.explanation import Explanation
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.feasible import (
    SchedulingError,
    find_nodes_that_fit_pod,
    select_host,
)
from scheduler.framework.profile import Profile
from scheduler.framework.runtime import Framework
from scheduler.framework.status import Status
from scheduler.framework.types import ClusterEvent, QueuedPodInfo
from scheduler.plugins.defaultpreemption.nominator import Nominator
from scheduler.volumelisters import VolumeListers

__all__ = ["EXPLANATIONS_KEPT", "NO_NODES_AVAILABLE", "Explanation", "Scheduler"]

log = logging.getLogger("scheduler")
EXPLANATIONS_KEPT = 10_000
NO_NODES_AVAILABLE = "no nodes available to schedule pods"  # upstream's ErrNoNodesAvailable


class Scheduler:
    """Schedules the pods whose ``spec.schedulerName`` is one of ``frameworks``' profiles."""

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        frameworks: Mapping[str, Framework],
        profiles: Mapping[str, Profile],
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        percentage_of_nodes_to_score: int | None = None,
        snapshot: Snapshot | None = None,
    ) -> None:
        """``snapshot`` is the one the frameworks' handle lists nodes from (filled each cycle)."""
        self.client = client
        self.clock: Clock = clock or RealClock()
        self.frameworks = dict(frameworks)
        self.profiles = dict(profiles)
        self.recorder = recorder
        self.percentage = percentage_of_nodes_to_score
        first = next(iter(self.frameworks.values()))
        events: dict[str, list[ClusterEvent]] = {}
        for fw in self.frameworks.values():
            events.update(fw.events_to_register())
        self.cache = Cache(clock=self.clock)
        self.snapshot = snapshot if snapshot is not None else Snapshot()
        self.queue = SchedulingQueue(
            first.queue_sort_less(),
            clock=self.clock,
            pre_enqueue=self._pre_enqueue,
            events_of=lambda plugin: events.get(plugin, []),
        )
        self.next_start_node_index = 0
        # pods preemption made room for: counted on their node for pods of lower or equal priority
        self.nominator = Nominator()
        for fw in self.frameworks.values():
            fw.handle.nominator = self.nominator
        self.explanations: OrderedDict[str, Explanation] = OrderedDict()
        self.rng = random.Random()
        self._binding: set[asyncio.Task[None]] = set()
        self.pods = factory.informer(PODS, field_selector="status.phase!=Succeeded,status.phase!=Failed")
        self.nodes = factory.informer(NODES)
        # namespaceSelector terms of pod (anti-)affinity match namespace labels
        self.namespaces = factory.informer(NAMESPACES)
        # VolumeBinding reads claims, volumes and classes; their changes retry waiting pods
        self.volume_listers = VolumeListers(factory, self.queue.move_all_to_active_or_backoff)
        for fw in self.frameworks.values():
            fw.handle.namespace_labels = self._namespace_labels
            self.volume_listers.install(fw.handle)
        self.handlers = ClusterEventHandlers(
            self.cache, self.queue, self.nominator, self._responsible, self._forget
        )
        self.handlers.register(self.pods, self.nodes)
        self._attempts = REGISTRY.counter(
            "scheduler_schedule_attempts_total",
            "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not "
            "be scheduled, while 'error' means an internal scheduler problem.",
        )
        pending = REGISTRY.gauge("scheduler_pending_pods", "Number of pending pods, by the queue type.")
        pending.set_func(lambda: len(self.queue.pending_pods()[0]), queue="all")

    def _namespace_labels(self, namespace: str) -> Mapping[str, str]:
        found = self.namespaces.indexer.get_by_key(namespace)
        labels: Mapping[str, str] = ((found or {}).get("metadata") or {}).get("labels") or {}
        return labels

    def _responsible(self, pod: Object) -> bool:
        return ((pod.get("spec") or {}).get("schedulerName") or "default-scheduler") in self.frameworks

    def _forget(self, key: str) -> None:
        self.explanations.pop(key, None)

    def _pre_enqueue(self, pod: Object) -> Status:
        fw = self.frameworks.get((pod.get("spec") or {}).get("schedulerName") or "default-scheduler")
        return fw.run_pre_enqueue(pod) if fw is not None else Status()

    # -- the loop --------------------------------------------------------------------------

    async def run(self) -> None:
        """Schedule until cancelled (the informers must be running)."""
        await wait_for_cache_sync(
            self.pods.has_synced,
            self.nodes.has_synced,
            self.namespaces.has_synced,
            self.volume_listers.has_synced,
            clock=self.clock,
        )
        log.info("caches are synced; scheduling")
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self.queue.run())
            tasks.create_task(self.cache.run())
            try:
                while (qpi := await self.queue.pop()) is not None:
                    await self.schedule_one(qpi)
            finally:
                self.queue.close()
                self.cache.close()
                for task in self._binding:
                    task.cancel()
                if self._binding:
                    await asyncio.wait(set(self._binding))

    async def schedule_one(self, qpi: QueuedPodInfo) -> None:
        """One scheduling cycle for ``qpi``; the binding cycle continues in the background."""
        pod = qpi.pod
        fw = self.frameworks.get((pod.get("spec") or {}).get("schedulerName") or "default-scheduler")
        if fw is None or self._skip(pod):
            self.queue.done(qpi.key)
            return
        cycle = self.queue.scheduling_cycle()
        state = CycleState()
        explanation = Explanation(cycle)
        self._remember(qpi.key, explanation)
        try:
            host = await self._schedule(fw, state, qpi, explanation)
        except Exception as exc:  # a plugin bug must not stop the scheduler
            log.exception("error scheduling %s", qpi.key)
            self._attempts.inc(result="error", profile=fw.profile_name)
            await self._fail(qpi, cycle, Status.as_error(exc), f"running the scheduling cycle: {exc}")
            return
        if host is None:
            self._attempts.inc(result="unschedulable", profile=fw.profile_name)
            status = Status.unschedulable(explanation.message)
            await self._fail(qpi, cycle, status, explanation.message, explanation.nominated or None)
            return
        # the cache's copy: the informer's pod with the node set (plugins never mutate pods)
        assumed = {**pod, "spec": {**pod["spec"], "nodeName": host}}
        self.cache.assume_pod(assumed)
        self.nominator.delete_pod(pod)
        status = fw.run_reserve(state, assumed, host)
        if status.is_success():
            status, _timeout = fw.run_permit(state, assumed, host)
        if not status.is_success():
            fw.run_unreserve(state, assumed, host)
            self.cache.forget_pod(assumed)
            self._attempts.inc(result="unschedulable", profile=fw.profile_name)
            await self._fail(qpi, cycle, status, status.message())
            return
        self.queue.done(qpi.key)
        task = asyncio.ensure_future(self._bind(fw, state, qpi, assumed, host, cycle))
        self._binding.add(task)
        task.add_done_callback(self._binding.discard)

    def _skip(self, pod: Object) -> bool:
        """A pod being deleted, or already assumed (its binding is in flight), is skipped."""
        return bool(pod["metadata"].get("deletionTimestamp")) or self.cache.is_assumed(pod)

    async def _schedule(
        self, fw: Framework, state: CycleState, qpi: QueuedPodInfo, explanation: Explanation
    ) -> str | None:
        """The node for ``qpi``'s pod, or None with ``explanation.message`` saying why not;
        every plugin that rejected a node is recorded on ``qpi`` (their events requeue it)."""
        pod = qpi.pod
        self.cache.update_snapshot(self.snapshot)
        nodes = self.snapshot.list()
        if not nodes:
            explanation.message = NO_NODES_AVAILABLE
            return None
        # nominated pods of at least this pod's priority hold their room (upstream addNominatedPods)
        nominated = self.nominator.pods_to_count(pod)
        fit = find_nodes_that_fit_pod(
            fw, state, pod, nodes, self.next_start_node_index, self._percentage(fw), nominated
        )
        self.next_start_node_index = fit.next_start_index
        explanation.statuses = fit.diagnosis.statuses
        explanation.feasible = fit.feasible
        if not fit.feasible:
            qpi.unschedulable_plugins |= fit.diagnosis.unschedulable_plugins
            qpi.pending_plugins |= fit.diagnosis.pending_plugins
            post_message = ""
            if fit.diagnosis.statuses and not fit.diagnosis.pre_filter_message:
                result, post_status = await fw.run_post_filter(state, pod, fit.diagnosis.statuses)
                post_message = post_status.message()
                if result is not None and result.nominated_node_name:
                    explanation.nominated = result.nominated_node_name
            explanation.message = fit.diagnosis.message(len(nodes), post_message)
            return None
        feasible = fit.feasible
        if len(feasible) == 1:
            explanation.selected = feasible[0].name
            return explanation.selected
        fw.run_pre_score(state, pod, feasible)
        columns, status = fw.run_score_plugins_by_plugin(state, pod, feasible)
        if not status.is_success():
            raise SchedulingError(status)
        names = [node.name for node in feasible]
        explanation.scored, explanation.scores = names, columns
        totals = [sum(per_node) for per_node in zip(*columns.values(), strict=True)] or [0] * len(names)
        explanation.selected = select_host(list(zip(names, totals, strict=True)), self.rng)
        return explanation.selected

    def _percentage(self, fw: Framework) -> int | None:
        profile = self.profiles.get(fw.profile_name)
        if profile is not None and profile.percentage_of_nodes_to_score is not None:
            return profile.percentage_of_nodes_to_score
        return self.percentage

    async def _bind(
        self, fw: Framework, state: CycleState, qpi: QueuedPodInfo, assumed: Object, host: str, cycle: int
    ) -> None:
        """The binding cycle; whatever goes wrong, the assumed pod is forgotten and retried."""
        try:
            await self._binding_cycle(fw, state, qpi, assumed, host, cycle)
        except Exception as exc:
            log.exception("error binding %s to %s", qpi.key, host)
            fw.run_unreserve(state, assumed, host)
            self.cache.forget_pod(assumed)
            await self._fail(qpi, cycle, Status.as_error(exc), f"binding rejected: {exc}")

    async def _binding_cycle(
        self, fw: Framework, state: CycleState, qpi: QueuedPodInfo, assumed: Object, host: str, cycle: int
    ) -> None:
        status = await fw.run_pre_bind(state, assumed, host)
        if status.is_success():
            status = await fw.run_bind(state, assumed, host)
        if not status.is_success():
            fw.run_unreserve(state, assumed, host)
            self.cache.forget_pod(assumed)
            if _already_bound(status):
                log.info("%s is already bound; forgetting it", qpi.key)
                return
            self._attempts.inc(result="error", profile=fw.profile_name)
            await self._fail(qpi, cycle, status, f"binding rejected: {status.message()}")
            return
        self.cache.finish_binding(assumed)
        self._attempts.inc(result="scheduled", profile=fw.profile_name)
        meta = assumed["metadata"]
        self.recorder.event(
            assumed,
            "Normal",
            "Scheduled",
            f"Successfully assigned {meta['namespace']}/{meta['name']} to {host}",
        )
        fw.run_post_bind(state, assumed, host)

    async def _fail(
        self, qpi: QueuedPodInfo, cycle: int, status: Status, message: str, nominated: str | None = None
    ) -> None:
        """Record why, requeue, and set ``PodScheduled=False`` (upstream handleSchedulingFailure);
        ``nominated``: the node preemption made room on, written to ``status.nominatedNodeName``
        (None keeps the pod's nomination as it is)."""
        if status.plugin:
            qpi.unschedulable_plugins.add(status.plugin)
        self.queue.add_unschedulable_if_not_present(qpi, cycle)
        self.queue.done(qpi.key)
        pod = qpi.pod
        current_nomination = (pod.get("status") or {}).get("nominatedNodeName") or ""
        self.nominator.nominate(pod, current_nomination if nominated is None else nominated)
        nominate = nominated is not None and nominated != current_nomination
        self.recorder.event(pod, "Warning", "FailedScheduling", message)
        reason = "Unschedulable" if status.is_rejected() else "SchedulerError"
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "reason": reason,
            "message": message,
            "lastProbeTime": None,
            "lastTransitionTime": now_rfc3339(),
        }
        current = next(
            (c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "PodScheduled"),
            None,
        )
        if current and (current.get("reason"), current.get("message")) == (reason, message) and not nominate:
            return
        patch: dict[str, Any] = {"status": {"conditions": [condition]}}
        if nominate:
            patch["status"]["nominatedNodeName"] = nominated
        try:
            await self.client.resource(PODS, pod["metadata"]["namespace"]).patch(
                pod["metadata"]["name"], patch, patch_type=STRATEGIC_MERGE_PATCH, subresource="status"
            )
        except ApiError as err:
            if err.code != 404:
                log.warning("cannot update the PodScheduled condition of %s: %s", qpi.key, err)

    def _remember(self, key: str, explanation: Explanation) -> None:
        self.explanations[key] = explanation
        self.explanations.move_to_end(key)
        while len(self.explanations) > EXPLANATIONS_KEPT:
            self.explanations.popitem(last=False)

    def explain(self, namespace: str, name: str) -> dict[str, Any] | None:
        """The last cycle of ``namespace/name`` (None when it was never tried or is gone)."""
        found = self.explanations.get(f"{namespace}/{name}")
        return found.as_dict() if found is not None else None


def _already_bound(status: Status) -> bool:
    error = status.error
    return isinstance(error, ApiError) and error.code == 409

"""``JobController`` (upstream's pkg/controller/job): informers, event handlers and ``sync``.

Handlers only touch expectations and enqueue; pod events for one Job within a second are
batched into one sync (upstream's ``syncJobBatchPeriod``), except a pod's first appearance.
Pods whose Job is gone but which still hold the tracking finalizer are queued as
``orphan-pod:<namespace>/<name>`` and have the finalizer removed (upstream's orphan queue).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from controllers.job.backoff import BackoffStore
from controllers.job.conditions import is_finished
from controllers.job.context import FinalizerExpectations, JobContext, JobSyncState
from controllers.job.jobpods import (
    REMOVE_FINALIZER_PATCH,
    count_ready,
    has_tracking_finalizer,
    is_active,
    is_terminating,
)
from controllers.job.sync import sync_job
from controllers.podcontrol.control import PodControl
from controllers.podcontrol.controllerref import objects_selecting, resolve_controller_ref
from controllers.podcontrol.expectations import ControllerExpectations
from controllers.podcontrol.ownerrefs import (
    add_controller_uid_index,
    get_controller_of,
    new_controller_ref,
    objects_for_owner,
)
from controllers.podcontrol.refmanager import ControllerRefManager, recheck_owner
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import STRATEGIC_MERGE_PATCH, Client
from minikube_py.client.resourcetypes import JOBS, PODS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("job")

API_VERSION = "batch/v1"
KIND = "Job"
ORPHAN_PREFIX = "orphan-pod:"
SYNC_JOB_BATCH_PERIOD = 1.0


class JobController:
    name = "job"

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
        self.expectations = ControllerExpectations(self.clock)
        self.finalizers = FinalizerExpectations()
        self.backoff = BackoffStore()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.job_informer = factory.informer(JOBS)
        self.pod_informer = factory.informer(PODS)
        add_controller_uid_index(self.pod_informer)
        self.job_informer.add_event_handler(
            EventHandlerFuncs(add=self._enqueue, update=self._update_job, delete=self._delete_job)
        )
        self.pod_informer.add_event_handler(
            EventHandlerFuncs(add=self._add_pod, update=self._update_pod, delete=self._delete_pod)
        )
        self.context = JobContext(
            client,
            recorder,
            self.clock,
            PodControl(client, recorder),
            self.expectations,
            self.finalizers,
            self.backoff,
            self.controller_ref,
            self.queue.add_after,
        )

    async def run(self, workers: int) -> None:
        synced = [self.job_informer.has_synced, self.pod_informer.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    def controller_ref(self, job: Object) -> dict[str, Any]:
        return new_controller_ref(job, API_VERSION, KIND)

    # -- event handlers ------------------------------------------------------------------------

    def _enqueue(self, job: Object) -> None:
        self.queue.add(meta_namespace_key(job))

    def _enqueue_batched(self, job: Object) -> None:
        self.queue.add_after(meta_namespace_key(job), SYNC_JOB_BATCH_PERIOD)

    def _update_job(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("uid") != cur["metadata"].get("uid"):
            self._delete_job(DeletedFinalStateUnknown(meta_namespace_key(old), old))
        key = meta_namespace_key(cur)
        self.queue.add(key)
        deadline = (cur.get("spec") or {}).get("activeDeadlineSeconds")
        old_deadline = (old.get("spec") or {}).get("activeDeadlineSeconds")
        if deadline is not None and deadline != old_deadline and not is_finished(cur):
            self.queue.add_after(key, float(deadline))

    def _delete_job(self, obj: Object | DeletedFinalStateUnknown) -> None:
        job = final_state(obj)
        key = meta_namespace_key(job)
        self.expectations.delete_expectations(key)
        self.finalizers.delete(key)
        self.backoff.delete(key)
        self.queue.add(key)
        for pod in self.pod_informer.indexer.by_index("controller-uid", str(job["metadata"].get("uid", ""))):
            if has_tracking_finalizer(pod):
                self.queue.add(ORPHAN_PREFIX + meta_namespace_key(pod))

    def _resolve(self, namespace: str, ref: Any) -> Object | None:
        return resolve_controller_ref(self.job_informer.indexer, KIND, namespace, ref)

    def _pod_jobs(self, pod: Object) -> list[Object]:
        return objects_selecting(self.job_informer.indexer, pod)

    def _orphan(self, pod: Object) -> None:
        if has_tracking_finalizer(pod):
            self.queue.add(ORPHAN_PREFIX + meta_namespace_key(pod))

    def _add_pod(self, pod: Object) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            self._delete_pod(pod)
            return
        ref = get_controller_of(pod)
        if ref is not None:
            job = self._resolve(pod["metadata"]["namespace"], ref)
            if job is None:
                if ref.get("kind") == KIND:
                    self._orphan(pod)
                return
            key = meta_namespace_key(job)
            self.expectations.creation_observed(key)
            self.queue.add(key)
            return
        self._orphan(pod)
        for job in self._pod_jobs(pod):
            self._enqueue_batched(job)

    def _update_pod(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("resourceVersion") == cur["metadata"].get("resourceVersion"):
            return
        namespace = cur["metadata"]["namespace"]
        old_ref, cur_ref = get_controller_of(old), get_controller_of(cur)
        if not has_tracking_finalizer(cur):
            for ref in {id(r): r for r in (old_ref, cur_ref) if r is not None}.values():
                job = self._resolve(namespace, ref)
                if job is not None:
                    self.finalizers.removal_observed(meta_namespace_key(job), cur["metadata"]["uid"])
        if cur["metadata"].get("deletionTimestamp"):
            self._delete_pod(cur, final=False)
            return
        if old_ref != cur_ref and old_ref is not None:
            old_job = self._resolve(namespace, old_ref)
            if old_job is not None:
                self._enqueue_batched(old_job)
        if cur_ref is not None:
            job = self._resolve(namespace, cur_ref)
            if job is None:
                if cur_ref.get("kind") == KIND:
                    self._orphan(cur)
                return
            finished = (cur.get("status") or {}).get("phase") in ("Succeeded", "Failed")
            self.queue.add(meta_namespace_key(job)) if finished else self._enqueue_batched(job)
            return
        self._orphan(cur)
        if old["metadata"].get("labels") != cur["metadata"].get("labels") or old_ref != cur_ref:
            for job in self._pod_jobs(cur):
                self._enqueue_batched(job)

    def _delete_pod(self, obj: Object | DeletedFinalStateUnknown, final: bool = True) -> None:
        pod = final_state(obj)
        ref = get_controller_of(pod)
        job = self._resolve(pod["metadata"].get("namespace", ""), ref)
        if job is None:
            if ref is None or ref.get("kind") == KIND:
                self._orphan(pod) if not final else None
            return
        key = meta_namespace_key(job)
        self.expectations.deletion_observed(key)
        if final:
            self.finalizers.removal_observed(key, pod["metadata"].get("uid", ""))
        self.queue.add(key)

    # -- sync ------------------------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        if key.startswith(ORPHAN_PREFIX):
            await self._sync_orphan_pod(key[len(ORPHAN_PREFIX) :])
            return
        cached = self.job_informer.indexer.get_by_key(key)
        if cached is None:
            self.expectations.delete_expectations(key)
            self.finalizers.delete(key)
            self.backoff.delete(key)
            return
        if is_finished(cached) or (cached.get("spec") or {}).get("managedBy") not in (
            None,
            "kubernetes.io/job-controller",
        ):
            return
        satisfied = self.expectations.satisfied_expectations(key) and not self.finalizers.expected(key)
        job = copy.deepcopy(cached)
        pods = await self._claim_pods(job)
        uncounted = (job.get("status") or {}).get("uncountedTerminatedPods") or {}
        active = [p for p in pods if is_active(p)]
        state = JobSyncState(
            key,
            job,
            pods,
            active,
            ready=count_ready(active),
            terminating=sum(1 for p in pods if is_terminating(p)),
            expected_removed=self.finalizers.expected(key),
            uncounted_succeeded=set(uncounted.get("succeeded") or []),
            uncounted_failed=set(uncounted.get("failed") or []),
        )
        await sync_job(self.context, state, satisfied)

    async def _claim_pods(self, job: Object) -> list[Object]:
        selector = label_selector_as_selector(job["spec"].get("selector"))
        pods = objects_for_owner(self.pod_informer, job, include_orphans=True)
        # finished pods without our finalizer stay ours but are never adopted (upstream)
        manager = ControllerRefManager(
            self.client, job, API_VERSION, KIND, selector, PODS, recheck_owner(self.client, JOBS, job)
        )
        return await manager.claim(pods)

    async def _sync_orphan_pod(self, pod_key: str) -> None:
        """Remove the tracking finalizer of a pod whose Job is gone (or which has none)."""
        pod = self.pod_informer.indexer.get_by_key(pod_key)
        if pod is None or not has_tracking_finalizer(pod):
            return
        ref = get_controller_of(pod)
        if ref is not None and self._resolve(pod["metadata"]["namespace"], ref) is not None:
            return  # its Job counts it
        try:
            await self.client.resource(PODS, pod["metadata"]["namespace"]).patch(
                pod["metadata"]["name"], REMOVE_FINALIZER_PATCH, patch_type=STRATEGIC_MERGE_PATCH
            )
        except ApiError as err:
            if err.code != 404:
                raise

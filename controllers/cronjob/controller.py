"""``CronJobController`` (upstream's pkg/controller/cronjob ``ControllerV2``).

Handlers only enqueue: a CronJob when it changes (when its schedule or time zone changed, at
its next activation), the owning CronJob of a Job that is added, changes or goes. ``sync`` reads
the CronJob and the Jobs that name it as their controller, deletes finished Jobs beyond the
history limits, reconciles the status and starts the Job that is due (``reconcile.py``), writes
the status once, and requeues the key just after the next activation on the controller's clock:
that requeue, not a timer per CronJob, is what makes a schedule fire.
"""

from __future__ import annotations

import copy
import logging
from datetime import tzinfo
from typing import Any

from controllers.cronjob.jobs import KIND
from controllers.cronjob.reconcile import SyncContext, SyncState, cleanup_finished_jobs, sync_cron_job
from controllers.cronjob.times import next_schedule_delay, parse_schedule, utc
from controllers.podcontrol.controllerref import resolve_controller_ref
from controllers.podcontrol.ownerrefs import get_controller_of
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import NAMESPACE_INDEX, DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import CRONJOBS, JOBS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.cron import CronParseError
from minikube_py.cron.zones import local_zone
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("cronjob")


class CronJobController:
    name = "cronjob"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        time_zone: tzinfo | None = None,
    ) -> None:
        self.client = client
        self.recorder = recorder
        self.clock: Clock = clock or RealClock()
        self.time_zone = time_zone or local_zone()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.cronjobs = factory.informer(CRONJOBS)
        self.jobs = factory.informer(JOBS)
        self.cronjobs.add_event_handler(
            EventHandlerFuncs(add=self._enqueue, update=self._update_cronjob, delete=self._delete_cronjob)
        )
        self.jobs.add_event_handler(
            EventHandlerFuncs(add=self._add_job, update=self._update_job, delete=self._delete_job)
        )
        self.context = SyncContext(client, recorder, self.clock, self.time_zone, CRONJOBS, JOBS)

    async def run(self, workers: int) -> None:
        synced = [self.cronjobs.has_synced, self.jobs.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, clock=self.clock)

    # -- event handlers ------------------------------------------------------------------------

    def _enqueue(self, cronjob: Object) -> None:
        self.queue.add(meta_namespace_key(cronjob))

    def _delete_cronjob(self, obj: Object | DeletedFinalStateUnknown) -> None:
        self._enqueue(final_state(obj))

    def _update_cronjob(self, old: Object, cur: Object) -> None:
        """A new schedule or zone: sync at its next activation (sooner than a requeue already
        waiting, if need be); any other change: sync now."""
        old_spec, cur_spec = old.get("spec") or {}, cur.get("spec") or {}
        same_time = (old_spec.get("schedule"), old_spec.get("timeZone")) == (
            cur_spec.get("schedule"),
            cur_spec.get("timeZone"),
        )
        if same_time:
            self._enqueue(cur)
            return
        try:
            schedule = parse_schedule(cur, self.time_zone)
        except CronParseError:
            message = f"unparseable schedule for cronjob: {cur_spec.get('schedule')}"
            self.recorder.event(cur, "Warning", "UnParseableCronJobSchedule", message)
            return
        delay = next_schedule_delay(cur, utc(self.clock.now()), schedule)
        if delay is not None:
            self.queue.add_after(meta_namespace_key(cur), delay)

    def _resolve_controller_ref(self, namespace: str, ref: Any) -> Object | None:
        return resolve_controller_ref(self.cronjobs.indexer, KIND, namespace, ref)

    def _enqueue_owner(self, job: Object, ref: Any) -> None:
        if ref is None:
            return
        cronjob = self._resolve_controller_ref(job["metadata"].get("namespace", ""), ref)
        if cronjob is not None:
            self._enqueue(cronjob)

    def _add_job(self, job: Object) -> None:
        self._enqueue_owner(job, get_controller_of(job))

    def _update_job(self, old: Object, cur: Object) -> None:
        if old["metadata"].get("resourceVersion") == cur["metadata"].get("resourceVersion"):
            return  # a resync, not a change
        old_ref, cur_ref = get_controller_of(old), get_controller_of(cur)
        if old_ref != cur_ref:
            self._enqueue_owner(old, old_ref)
        self._enqueue_owner(cur, cur_ref)

    def _delete_job(self, obj: Object | DeletedFinalStateUnknown) -> None:
        job = final_state(obj)
        self._enqueue_owner(job, get_controller_of(job))

    # -- sync ----------------------------------------------------------------------------------

    def jobs_to_be_reconciled(self, cronjob: Object) -> list[Object]:
        """Every Job in the namespace whose controller reference names this CronJob (labels
        do not matter: the template's may have changed since)."""
        meta = cronjob["metadata"]
        candidates = self.jobs.indexer.by_index(NAMESPACE_INDEX, meta.get("namespace", ""))
        return [
            job
            for job in candidates
            if (ref := get_controller_of(job)) is not None and ref.get("name") == meta["name"]
        ]

    async def sync(self, key: str) -> None:
        cronjob = self.cronjobs.indexer.get_by_key(key)
        if cronjob is None:
            return  # deleted: its Jobs go with it (garbage collector)
        owned = self.jobs_to_be_reconciled(cronjob)
        state = SyncState(copy.deepcopy(cronjob))
        await cleanup_finished_jobs(self.context, state, owned)
        failure: Exception | None = None
        requeue_after: float | None = None
        try:
            requeue_after = await sync_cron_job(self.context, state, owned)
        except Exception as exc:  # the status is written first, then the key retried
            log.info("error reconciling cronjob %s: %s", key, exc)
            failure = exc
        if state.update_status:
            namespace = state.cronjob["metadata"].get("namespace")
            await self.client.resource(CRONJOBS, namespace).update_status(state.cronjob)
        if requeue_after is not None:
            self.queue.add_after(key, requeue_after)
            return
        if failure is not None:
            raise failure

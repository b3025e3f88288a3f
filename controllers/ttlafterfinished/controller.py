"""``TTLAfterFinishedController``: deletes a finished Job ``ttlSecondsAfterFinished`` after its
Complete or Failed condition (upstream's ttlafterfinished controller).

A Job not yet expired is requeued for when it will be. Before deleting, the Job is read again
from the apiserver (the TTL may have been changed since the cache saw it); the delete carries
a uid precondition and ``propagationPolicy: Foreground``, as upstream's, so its pods go first.
"""

from __future__ import annotations

import logging

from controllers.job.conditions import finish_time, is_finished
from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import meta_namespace_key, split_meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import JOBS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("ttlafterfinished")


def needs_cleanup(job: Object) -> bool:
    return (job.get("spec") or {}).get("ttlSecondsAfterFinished") is not None and is_finished(job)


def expires_in(job: Object, now: float) -> float | None:
    """Seconds until ``job`` expires (<= 0: expired), or None when it has no TTL or is running."""
    if not needs_cleanup(job) or job["metadata"].get("deletionTimestamp"):
        return None
    finished = parse_rfc3339(finish_time(job))
    if finished is None:
        return None
    return finished + int(job["spec"]["ttlSecondsAfterFinished"]) - now


class TTLAfterFinishedController:
    name = "ttlafterfinished"

    def __init__(self, client: Client, factory: SharedInformerFactory, *, clock: Clock | None = None) -> None:
        self.client = client
        self.clock: Clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.job_informer = factory.informer(JOBS)
        self.job_informer.add_event_handler(EventHandlerFuncs(add=self._enqueue, update=self._update))

    async def run(self, workers: int) -> None:
        await run_workers(
            self.name, self.queue, self.sync, workers, [self.job_informer.has_synced], clock=self.clock
        )

    def _enqueue(self, job: Object) -> None:
        if job["metadata"].get("deletionTimestamp") is None and needs_cleanup(job):
            self.queue.add(meta_namespace_key(job))

    def _update(self, old: Object, cur: Object) -> None:
        self._enqueue(cur)

    async def sync(self, key: str) -> None:
        cached = self.job_informer.indexer.get_by_key(key)
        if cached is None:
            return
        remaining = expires_in(cached, self.clock.now())
        if remaining is None:
            return
        if remaining > 0:
            self.queue.add_after(key, remaining)
            return
        namespace, name = split_meta_namespace_key(key)
        handle = self.client.resource(JOBS, namespace)
        try:
            fresh = await handle.get(name)
        except ApiError as err:
            if err.code == 404:
                return
            raise
        remaining = expires_in(fresh, self.clock.now())
        if remaining is None:
            return
        if remaining > 0:
            self.queue.add_after(key, remaining)
            return
        log.info("cleaning up job %s: ttlSecondsAfterFinished expired", key)
        try:
            await handle.delete(
                name, propagation_policy="Foreground", preconditions={"uid": fresh["metadata"]["uid"]}
            )
        except ApiError as err:
            if err.code not in (404, 409):
                raise

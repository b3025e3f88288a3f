"""The disruption controller's second queue (upstream's ``syncStalePodDisruption``): a pod that
carries ``DisruptionTarget=True`` but, two minutes after the condition was set, is neither
being deleted nor finished, was not disrupted after all; its condition is reset to False.
Conditions the kubelet set (``TerminationByKubelet``) are never stale."""

from __future__ import annotations

import copy

from minikube_py.api.timestamps import format_rfc3339, parse_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PODS
from minikube_py.clock import Clock
from minikube_py.workqueue import RateLimitingQueue

STALE_POD_DISRUPTION_TIMEOUT = 120.0
DISRUPTION_TARGET = "DisruptionTarget"


def disruption_target(pod: Object) -> Object | None:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == DISRUPTION_TARGET), None)


class StalePodDisruptions:
    def __init__(self, client: Client, pods: Indexer, clock: Clock, timeout: float) -> None:
        self.client = client
        self.pods = pods
        self.clock = clock
        self.timeout = timeout
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=clock, name="stale-pod-disruption")

    def clean_after(self, pod: Object) -> float | None:
        """Seconds until the pod's condition is stale (0: now); None when it never will be."""
        if pod["metadata"].get("deletionTimestamp"):
            return None
        condition = disruption_target(pod)
        if (
            condition is None
            or condition.get("status") != "True"
            or condition.get("reason") == "TerminationByKubelet"
        ):
            return None
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            return None
        since = parse_rfc3339(condition.get("lastTransitionTime")) or 0.0
        return max(self.timeout - (self.clock.now() - since), 0.0)

    def observe(self, pod: Object) -> None:
        wait = self.clean_after(pod)
        if wait is not None:
            self.queue.add_after(meta_namespace_key(pod), wait)

    async def sync(self, key: str) -> None:
        cached = self.pods.get_by_key(key)
        if cached is None:
            return
        wait = self.clean_after(cached)
        if wait is None:
            return
        if wait > 0:
            self.queue.add_after(key, wait)
            return
        pod = copy.deepcopy(cached)  # written at the cached resourceVersion: a change conflicts
        condition = disruption_target(pod)
        assert condition is not None
        condition.update(status="False", lastTransitionTime=format_rfc3339(self.clock.now()))
        await self.client.resource(PODS, pod["metadata"]["namespace"]).update_status(pod)

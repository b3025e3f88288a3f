"""The namespace controller (upstream's ``NamespaceController``): a namespace with a
``deletionTimestamp`` is queued (5 s after the event, so every apiserver has seen the deletion
and last-moment creations are visible) and handed to the ``NamespacedResourcesDeleter``.
While content remains it is looked at again after half the deleter's estimate plus one second;
other failures are retried with the queue's backoff."""

from __future__ import annotations

import logging

from controllers.namespace.deletion import NamespacedResourcesDeleter, ResourcesRemainingError
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import NAMESPACES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("namespace")

NAMESPACE_DELETION_GRACE_PERIOD = 5.0  # seconds


class NamespaceController:
    """``name`` = "namespace". Informers: namespaces."""

    name = "namespace"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._clock = clock or RealClock()
        self._recorder = recorder
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self._clock, name="namespace")
        self.deleter = NamespacedResourcesDeleter(client, self._clock)
        self.namespaces = factory.informer(NAMESPACES)
        self.namespaces.add_event_handler(
            EventHandlerFuncs(
                add=self.enqueue_namespace, update=lambda _old, new: self.enqueue_namespace(new)
            )
        )

    def enqueue_namespace(self, namespace: Object) -> None:
        if not (namespace.get("metadata") or {}).get("deletionTimestamp"):
            return
        self.queue.add_after(meta_namespace_key(namespace), NAMESPACE_DELETION_GRACE_PERIOD)

    async def run(self, workers: int) -> None:
        await run_workers(
            self.name, self.queue, self.sync, workers, [self.namespaces.has_synced], self._clock
        )

    async def sync(self, key: str) -> None:
        """``syncNamespaceFromKey``: delete the content of a terminating namespace."""
        if self.namespaces.indexer.get_by_key(key) is None:
            log.info("namespace has been deleted %s", key)
            return
        try:
            await self.deleter.delete(key)
        except ResourcesRemainingError as remaining:
            delay = remaining.estimate // 2 + 1
            log.info("content remaining in namespace %s, waiting %d seconds", key, delay)
            self.queue.add_after(key, float(delay))

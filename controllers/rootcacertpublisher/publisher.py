"""The root CA certificate publisher (upstream's ``rootcacertpublisher.Publisher``): every
active namespace has a ConfigMap ``kube-root-ca.crt`` whose ``data["ca.crt"]`` is the CA bundle
(PEM) that verifies the apiserver, annotated with upstream's ``kubernetes.io/description``.
Pods read it through the projected ``kube-api-access-*`` volume the ServiceAccount admission
plugin adds.

A namespace is synced when it appears or changes (while ``Active``) and when its
``kube-root-ca.crt`` is updated or deleted; the ConfigMap informer lists and watches only
that name (field selector ``metadata.name=kube-root-ca.crt``). A missing ConfigMap is
created; one whose data differs from the bundle (or that lost the annotation) is rewritten,
keeping its other labels and annotations. Namespaces that are not ``Active`` (terminating)
are left alone, and a create refused because the namespace is gone or started terminating
meanwhile is not an error. Any other failure, AlreadyExists and Conflict included (the cache
lagged), fails the sync, which is retried with backoff once the informer has caught up.
"""

from __future__ import annotations

import copy
import logging

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import CONFIGMAPS, NAMESPACES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("root_ca_cert_publisher")

ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
CA_KEY = "ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
    "such as the internal service IP or kubernetes.default.svc. "
    "No other usage is guaranteed across distributions of Kubernetes clusters."
)
NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"


class RootCACertPublisher:
    """``name`` = "root_ca_cert_publisher" (upstream's queue name). Informers: namespaces,
    configmaps named ``kube-root-ca.crt``. Keys: namespace names. ``root_ca`` is the PEM bundle
    published verbatim."""

    name = "root_ca_cert_publisher"

    def __init__(
        self, client: Client, factory: SharedInformerFactory, root_ca: bytes, *, clock: Clock | None = None
    ) -> None:
        self._client = client
        self._clock = clock or RealClock()
        self.data = {CA_KEY: root_ca.decode()}
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self._clock, name=self.name)
        self.namespaces = factory.informer(NAMESPACES)
        self.configmaps = factory.informer(CONFIGMAPS, field_selector=f"metadata.name={ROOT_CA_CONFIGMAP}")
        self.namespaces.add_event_handler(
            EventHandlerFuncs(
                add=self._namespace_added, update=lambda _old, new: self._namespace_updated(new)
            )
        )
        self.configmaps.add_event_handler(
            EventHandlerFuncs(
                update=lambda _old, new: self._configmap_changed(new), delete=self._configmap_changed
            )
        )

    def _namespace_added(self, namespace: Object) -> None:
        self.queue.add(namespace["metadata"]["name"])

    def _namespace_updated(self, namespace: Object) -> None:
        if _active(namespace):
            self.queue.add(namespace["metadata"]["name"])

    def _configmap_changed(self, obj: Object | DeletedFinalStateUnknown) -> None:
        configmap = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        meta = configmap.get("metadata") or {}
        if meta.get("name") == ROOT_CA_CONFIGMAP and meta.get("namespace"):
            self.queue.add(meta["namespace"])

    async def run(self, workers: int) -> None:
        synced = [self.namespaces.has_synced, self.configmaps.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, self._clock)

    async def sync(self, key: str) -> None:
        """``syncNamespace``: create or rewrite the ``kube-root-ca.crt`` of an active namespace."""
        namespace = self.namespaces.indexer.get_by_key(key)
        if namespace is None or not _active(namespace):
            return  # gone or terminating: creating anything would be refused (and pointless)
        current = self.configmaps.indexer.get_by_key(f"{key}/{ROOT_CA_CONFIGMAP}")
        if current is None:
            await self._create(key)
            return
        annotations = (current.get("metadata") or {}).get("annotations") or {}
        if current.get("data") == self.data and annotations.get(DESCRIPTION_ANNOTATION):
            return
        configmap = copy.deepcopy(current)  # the cache's copy is shared
        configmap["data"] = dict(self.data)
        configmap["metadata"].setdefault("annotations", {})[DESCRIPTION_ANNOTATION] = DESCRIPTION
        await self._client.resource(CONFIGMAPS, key).update(configmap)
        log.info("rewrote %s/%s", key, ROOT_CA_CONFIGMAP)

    async def _create(self, namespace: str) -> None:
        configmap = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": ROOT_CA_CONFIGMAP,
                "namespace": namespace,
                "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION},
            },
            "data": dict(self.data),
        }
        try:
            await self._client.resource(CONFIGMAPS, namespace).create(configmap)
        except ApiError as exc:
            if exc.code == 404 or any(cause.reason == NAMESPACE_TERMINATING_CAUSE for cause in exc.causes):
                return  # the namespace is gone or terminating: don't retry
            raise
        log.info("created %s/%s", namespace, ROOT_CA_CONFIGMAP)


def _active(namespace: Object) -> bool:
    return bool((namespace.get("status") or {}).get("phase", "Active") == "Active")

"""``PVCProtectionController`` (upstream's ``pvcprotection``): a PersistentVolumeClaim keeps
``kubernetes.io/pvc-protection`` while a pod uses it, so ``kubectl delete pvc`` of a claim in
use waits (the claim stays ``Terminating``) until no scheduled, non-terminated pod names it;
then the finalizer goes and the claim with it. Claims without the finalizer (stored before
the admission plugin added it) get it. "Not used" is checked against the informer first and
confirmed with a live LIST, as upstream does, since a pod just created may not be cached."""

from __future__ import annotations

import copy
from collections.abc import Iterable

from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import NAMESPACE_INDEX, DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PODS
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.volumes import PVC_PROTECTION_FINALIZER
from minikube_py.workqueue import RateLimitingQueue


def pod_claim_names(pod: Object) -> list[str]:
    """The claims a pod's volumes name (generic ephemeral volumes: ``<pod>-<volume>``)."""
    names = []
    for volume in (pod.get("spec") or {}).get("volumes") or []:
        if volume.get("persistentVolumeClaim"):
            names.append(str(volume["persistentVolumeClaim"].get("claimName", "")))
        elif volume.get("ephemeral"):
            names.append(f"{pod['metadata']['name']}-{volume['name']}")
    return names


def pod_uses_claim(pod: Object, claim_name: str) -> bool:
    """A scheduled pod that has not terminated (the kubelet refuses to start a pod whose claim
    is being deleted, so unscheduled pods do not count)."""
    if not (pod.get("spec") or {}).get("nodeName"):
        return False
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    return claim_name in pod_claim_names(pod)


def set_finalizer(obj: Object, finalizer: str, present: bool) -> Object | None:
    """A copy of ``obj`` with ``finalizer`` added or removed; None when already so."""
    finalizers = list(obj["metadata"].get("finalizers") or [])
    if (finalizer in finalizers) == present:
        return None
    updated = copy.deepcopy(obj)
    updated["metadata"]["finalizers"] = (
        [*finalizers, finalizer] if present else [f for f in finalizers if f != finalizer]
    )
    return updated


class PVCProtectionController:
    name = "pvc-protection"

    def __init__(self, client: Client, factory: SharedInformerFactory, *, clock: Clock | None = None) -> None:
        self.client = client
        self.clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.claims = factory.informer(PERSISTENTVOLUMECLAIMS)
        self.pods = factory.informer(PODS)
        self.claims.add_event_handler(EventHandlerFuncs(add=self._claim, update=lambda _o, n: self._claim(n)))
        self.pods.add_event_handler(
            EventHandlerFuncs(add=self._pod, update=lambda _o, n: self._pod(n), delete=self._pod)
        )

    def _claim(self, claim: Object) -> None:
        self.queue.add(meta_namespace_key(claim))

    def _pod(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = final_state(obj)
        namespace = pod["metadata"].get("namespace", "")
        for name in pod_claim_names(pod):
            self.queue.add(f"{namespace}/{name}")

    async def run(self, workers: int) -> None:
        synced = [self.claims.has_synced, self.pods.has_synced]
        await run_workers(self.name, self.queue, self.sync, workers, synced, self.clock)

    async def sync(self, key: str) -> None:
        claim = self.claims.indexer.get_by_key(key)
        if claim is None:
            return
        namespace = claim["metadata"]["namespace"]
        if not claim["metadata"].get("deletionTimestamp"):
            updated = set_finalizer(claim, PVC_PROTECTION_FINALIZER, True)
        elif PVC_PROTECTION_FINALIZER in (
            claim["metadata"].get("finalizers") or []
        ) and not await self._in_use(claim):
            updated = set_finalizer(claim, PVC_PROTECTION_FINALIZER, False)
        else:
            return
        if updated is not None:
            written = await self.client.resource(PERSISTENTVOLUMECLAIMS, namespace).update(updated)
            self.claims.indexer.update(written)

    async def _in_use(self, claim: Object) -> bool:
        name, namespace = claim["metadata"]["name"], claim["metadata"]["namespace"]
        if self._uses(self.pods.indexer.by_index(NAMESPACE_INDEX, namespace), name):
            return True
        listed = await self.client.resource(PODS, namespace).list()
        return self._uses(listed.get("items") or [], name)

    @staticmethod
    def _uses(pods: Iterable[Object], name: str) -> bool:
        return any(pod_uses_claim(pod, name) for pod in pods)

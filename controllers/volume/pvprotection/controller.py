"""``PVProtectionController`` (upstream's ``pvprotection``): a PersistentVolume keeps
``kubernetes.io/pv-protection`` while it is ``Bound``; a deleted volume waits, ``Terminating``,
until its claim lets it go (the claim is deleted and the volume Released, or it was never
bound). Volumes without the finalizer get it."""

from __future__ import annotations

from controllers.volume.pvcprotection.controller import set_finalizer
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PERSISTENTVOLUMES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.volumes import PV_PROTECTION_FINALIZER
from minikube_py.workqueue import RateLimitingQueue


def volume_in_use(volume: Object) -> bool:
    """Upstream's ``isBeingUsed``: the volume is Bound (to a claim that may still be used)."""
    return (volume.get("status") or {}).get("phase") == "Bound"


class PVProtectionController:
    name = "pv-protection"

    def __init__(self, client: Client, factory: SharedInformerFactory, *, clock: Clock | None = None) -> None:
        self.client = client
        self.clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.volumes = factory.informer(PERSISTENTVOLUMES)
        self.volumes.add_event_handler(
            EventHandlerFuncs(add=self._volume, update=lambda _o, n: self._volume(n))
        )

    def _volume(self, volume: Object) -> None:
        self.queue.add(volume["metadata"]["name"])

    async def run(self, workers: int) -> None:
        await run_workers(self.name, self.queue, self.sync, workers, [self.volumes.has_synced], self.clock)

    async def sync(self, key: str) -> None:
        volume = self.volumes.indexer.get_by_key(key)
        if volume is None:
            return
        if not volume["metadata"].get("deletionTimestamp"):
            updated = set_finalizer(volume, PV_PROTECTION_FINALIZER, True)
        elif not volume_in_use(volume):
            updated = set_finalizer(volume, PV_PROTECTION_FINALIZER, False)
        else:
            return
        if updated is not None:
            written = await self.client.resource(PERSISTENTVOLUMES).update(updated)
            self.volumes.indexer.update(written)

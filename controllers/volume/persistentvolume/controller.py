"""``PersistentVolumeController`` (upstream's ``persistentvolume-binder-controller``): binds
PersistentVolumeClaims to PersistentVolumes and keeps both phases.

Two queues, as upstream: claim keys (``namespace/name``) synced by ``claimsync.sync_claim``
and volume names synced by ``volumesync.sync_volume``. A claim change enqueues the claim and
the volume it names; a volume change enqueues the volume and its ``claimRef``; a new or
changed StorageClass enqueues the claims of that class (a claim that asked for a class that
did not exist is retried when it appears); and every ``resync_period`` (upstream's 15 s)
everything is synced again."""

from __future__ import annotations

import asyncio
import logging

from controllers.volume.persistentvolume.binder import Binder
from controllers.volume.persistentvolume.claimsync import ClaimSyncContext, sync_claim
from controllers.volume.persistentvolume.volumesync import VolumeSyncContext, sync_volume
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown, final_state, meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES, STORAGECLASSES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.volumes import claim_class
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("persistentvolume")
RESYNC_PERIOD = 15.0


class PersistentVolumeController:
    name = "persistentvolume-binder"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        resync_period: float = RESYNC_PERIOD,
    ) -> None:
        self.clock = clock or RealClock()
        self.resync_period = resync_period
        self.claim_queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name="claims")
        self.volume_queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name="volumes")
        self.volumes = factory.informer(PERSISTENTVOLUMES)
        self.claims = factory.informer(PERSISTENTVOLUMECLAIMS)
        self.classes = factory.informer(STORAGECLASSES)
        self.binder = Binder(client, recorder, self.volumes.indexer, self.claims.indexer)
        self.binder.claim_written = self._claim_changed
        self.claim_context = ClaimSyncContext(
            self.volumes.indexer, self.classes.indexer, self.binder, recorder
        )
        self.volume_context = VolumeSyncContext(self.claims.indexer, self.binder, self.claim_queue.add)
        self.volumes.add_event_handler(
            EventHandlerFuncs(
                add=self._volume_changed,
                update=lambda _o, n: self._volume_changed(n),
                delete=self._volume_deleted,
            )
        )
        self.claims.add_event_handler(
            EventHandlerFuncs(
                add=self._claim_changed,
                update=lambda _o, n: self._claim_changed(n),
                delete=self._claim_deleted,
            )
        )
        self.classes.add_event_handler(
            EventHandlerFuncs(add=self._class_changed, update=lambda _o, n: self._class_changed(n))
        )

    # -- handlers: keys only -----------------------------------------------------------------

    def _volume_changed(self, volume: Object) -> None:
        self.volume_queue.add(volume["metadata"]["name"])
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        if ref.get("name"):
            self.claim_queue.add(f"{ref.get('namespace', '')}/{ref['name']}")

    def _volume_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        ref = (final_state(obj).get("spec") or {}).get("claimRef") or {}
        if ref.get("name"):  # its claim is Lost now
            self.claim_queue.add(f"{ref.get('namespace', '')}/{ref['name']}")

    def _claim_changed(self, claim: Object) -> None:
        self.claim_queue.add(meta_namespace_key(claim))
        if volume_name := (claim.get("spec") or {}).get("volumeName"):
            self.volume_queue.add(volume_name)

    def _claim_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        if volume_name := (final_state(obj).get("spec") or {}).get("volumeName"):
            self.volume_queue.add(volume_name)  # Released now

    def _class_changed(self, storage_class: Object) -> None:
        name = storage_class["metadata"]["name"]
        for claim in self.claims.indexer.list():
            if claim_class(claim) == name and not (claim.get("spec") or {}).get("volumeName"):
                self.claim_queue.add(meta_namespace_key(claim))

    # -- running ------------------------------------------------------------------------------

    async def run(self, workers: int) -> None:
        synced = [self.volumes.has_synced, self.claims.has_synced, self.classes.has_synced]
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(
                run_workers(
                    "persistentvolume-claims", self.claim_queue, self.sync_claim, workers, synced, self.clock
                )
            )
            tasks.create_task(
                run_workers(
                    "persistentvolume-volumes",
                    self.volume_queue,
                    self.sync_volume,
                    workers,
                    synced,
                    self.clock,
                )
            )
            tasks.create_task(self._resync())

    async def _resync(self) -> None:
        while True:
            await self.clock.sleep(self.resync_period)
            self.resync()

    def resync(self) -> None:
        """Enqueue every claim and volume (upstream's periodic ``resync``)."""
        for claim in self.claims.indexer.list():
            self.claim_queue.add(meta_namespace_key(claim))
        for volume in self.volumes.indexer.list():
            self.volume_queue.add(volume["metadata"]["name"])

    async def sync_claim(self, key: str) -> None:
        claim = self.claims.indexer.get_by_key(key)
        if claim is None:
            return
        await sync_claim(self.claim_context, claim)

    async def sync_volume(self, key: str) -> None:
        volume = self.volumes.indexer.get_by_key(key)
        if volume is None:
            return
        await sync_volume(self.volume_context, volume)

"""``LocalPathProvisioner``: the external provisioner ``minikube-py.io/local-path`` (kind's
and k3s' rancher local-path-provisioner, in the controller-manager).

- At start it creates the default StorageClass ``standard`` when there is none of that name
  (kind ships it as an addon applied once; here the controller that serves the class makes
  sure it exists, so every cluster has a default class and a deleted one comes back at the
  next start).
- A claim the binder handed to us (``volume.kubernetes.io/storage-provisioner``) gets a
  PersistentVolume ``pvc-<uid>``, pre-bound to it (``claimRef`` with the uid), a
  ``hostPath`` directory ``<dir>/<pv>_<namespace>_<claim>`` where ``<dir>`` is what the
  selected node reports in its ``minikube-py.io/local-path-dir`` annotation, and node
  affinity to that node. Without ``volume.kubernetes.io/selected-node`` (an ``Immediate``
  class) it fails as rancher's does: a local volume needs a node.
- A volume of ours that is ``Released`` with reclaim policy ``Delete`` has its directory
  removed, then the PersistentVolume is deleted. The directory is created by the node agent
  when a pod first mounts it (``DirectoryOrCreate``); the removal happens here because every
  node of one machine shares its filesystem (see nodeagent/README.md).

Events are the external-provisioner library's: ``Provisioning``, ``ProvisioningSucceeded``,
``ProvisioningFailed`` on claims, ``VolumeFailedDelete`` on volumes."""

from __future__ import annotations

import logging
import os
import shutil

from controllers.volume.localpath.volume import (
    DEFAULT_CLASS_NAME,
    PROVISIONER_NAME,
    default_storage_class,
    provisioned_volume,
    volume_name,
)
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import meta_namespace_key
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import NODES, PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES, STORAGECLASSES
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.volumes import (
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    LOCAL_PATH_DIR_ANNOTATION,
    annotations_of,
    claim_class,
    volume_host_path,
)
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("localpath")
NO_NODE = "configuration error, no node was specified"


class LocalPathProvisioner:
    name = "local-path-provisioner"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
    ) -> None:
        self.client, self.recorder = client, recorder
        self.clock = clock or RealClock()
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(clock=self.clock, name=self.name)
        self.claims = factory.informer(PERSISTENTVOLUMECLAIMS)
        self.volumes = factory.informer(PERSISTENTVOLUMES)
        self.classes = factory.informer(STORAGECLASSES)
        self.nodes = factory.informer(NODES)
        self.claims.add_event_handler(EventHandlerFuncs(add=self._claim, update=lambda _o, n: self._claim(n)))
        self.volumes.add_event_handler(
            EventHandlerFuncs(add=self._volume, update=lambda _o, n: self._volume(n))
        )

    def _claim(self, claim: Object) -> None:
        if annotations_of(claim).get(ANN_STORAGE_PROVISIONER) == PROVISIONER_NAME:
            self.queue.add("claim/" + meta_namespace_key(claim))

    def _volume(self, volume: Object) -> None:
        if annotations_of(volume).get(ANN_DYNAMICALLY_PROVISIONED) == PROVISIONER_NAME:
            self.queue.add("volume/" + volume["metadata"]["name"])

    async def run(self, workers: int) -> None:
        await self.ensure_default_storage_class()
        synced = [
            self.claims.has_synced,
            self.volumes.has_synced,
            self.classes.has_synced,
            self.nodes.has_synced,
        ]
        await run_workers(self.name, self.queue, self.sync, workers, synced, self.clock)

    async def ensure_default_storage_class(self) -> None:
        classes = self.client.resource(STORAGECLASSES)
        while True:
            try:
                await classes.get(DEFAULT_CLASS_NAME)
                return
            except ApiError as err:
                if err.code != 404:
                    log.warning("local-path: cannot read storage class %s: %s", DEFAULT_CLASS_NAME, err)
                    await self.clock.sleep(1.0)
                    continue
            try:
                await classes.create(default_storage_class())
                log.info("local-path: created default storage class %s", DEFAULT_CLASS_NAME)
                return
            except ApiError as err:
                if err.code == 409:
                    return
                log.warning("local-path: cannot create storage class %s: %s", DEFAULT_CLASS_NAME, err)
                await self.clock.sleep(1.0)

    async def sync(self, key: str) -> None:
        kind, _, name = key.partition("/")
        if kind == "claim":
            await self.sync_claim(name)
        else:
            await self.sync_volume(name)

    async def sync_claim(self, key: str) -> None:
        """``provisionClaimOperation``: a PersistentVolume for a claim of ours not bound yet."""
        claim = self.claims.indexer.get_by_key(key)
        if (
            claim is None
            or (claim.get("spec") or {}).get("volumeName")
            or claim["metadata"].get("deletionTimestamp")
        ):
            return
        if annotations_of(claim).get(ANN_STORAGE_PROVISIONER) != PROVISIONER_NAME:
            return
        storage_class = self.classes.indexer.get_by_key(claim_class(claim))
        if storage_class is None or storage_class.get("provisioner") != PROVISIONER_NAME:
            return
        if self.volumes.indexer.get_by_key(volume_name(claim)) is not None:
            return  # provisioned already: the binder binds it
        node_name = annotations_of(claim).get(ANN_SELECTED_NODE, "")
        if not node_name:
            if storage_class.get("volumeBindingMode") != "WaitForFirstConsumer":
                self.recorder.event(claim, "Warning", "ProvisioningFailed", NO_NODE)
            return
        node = self.nodes.indexer.get_by_key(node_name)
        root = annotations_of(node).get(LOCAL_PATH_DIR_ANNOTATION, "") if node is not None else ""
        if not root:
            why = (
                f'node "{node_name}" not found'
                if node is None
                else f'node "{node_name}" reports no {LOCAL_PATH_DIR_ANNOTATION}'
            )
            self.recorder.event(claim, "Warning", "ProvisioningFailed", f"failed to provision volume: {why}")
            raise RuntimeError(why)  # retried with backoff: the node may register or report it
        self.recorder.event(
            claim, "Normal", "Provisioning", f'External provisioner is provisioning volume for claim "{key}"'
        )
        volume = provisioned_volume(claim, storage_class, node_name, root)
        try:
            created = await self.client.resource(PERSISTENTVOLUMES).create(volume)
        except ApiError as err:
            if err.code == 409:
                return
            self.recorder.event(claim, "Warning", "ProvisioningFailed", f"failed to provision volume: {err}")
            raise
        self.volumes.indexer.add(created)
        message = f"Successfully provisioned volume {created['metadata']['name']}"
        self.recorder.event(claim, "Normal", "ProvisioningSucceeded", message)

    async def sync_volume(self, name: str) -> None:
        """``deleteVolumeOperation``: a Released ``Delete`` volume of ours goes, directory first."""
        volume = self.volumes.indexer.get_by_key(name)
        if volume is None or volume["metadata"].get("deletionTimestamp"):
            return
        if annotations_of(volume).get(ANN_DYNAMICALLY_PROVISIONED) != PROVISIONER_NAME:
            return
        spec, phase = volume.get("spec") or {}, (volume.get("status") or {}).get("phase")
        if phase != "Released" or spec.get("persistentVolumeReclaimPolicy") != "Delete":
            return
        path = volume_host_path(volume)
        if path and os.path.basename(path).startswith(f"{name}_"):  # never anything but ours
            try:
                shutil.rmtree(path)
            except FileNotFoundError:
                pass
            except OSError as err:
                self.recorder.event(
                    volume, "Warning", "VolumeFailedDelete", f"failed to delete {path}: {err}"
                )
                raise
        try:
            await self.client.resource(PERSISTENTVOLUMES).delete(name)
        except ApiError as err:
            if err.code != 404:
                raise
        log.info("local-path: deleted volume %s and %s", name, path)

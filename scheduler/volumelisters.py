"""The scheduler's PersistentVolumeClaim, PersistentVolume and StorageClass informers: the
listers the VolumeBinding plugin reads through its ``Handle``, and the cluster events their
changes are (a claim bound, a volume provisioned, a class created retry the pods waiting for
them, upstream's ``addAllEventHandlers`` for storage kinds)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs, SharedInformer
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES, STORAGECLASSES
from scheduler.framework.interface import Handle
from scheduler.framework.types import ActionType, ClusterEvent
from scheduler.plugins.events import PV, PVC, STORAGE_CLASS

OnEvent = Callable[[ClusterEvent, Object | None, Object | None], None]


class VolumeListers:
    def __init__(self, factory: SharedInformerFactory, on_event: OnEvent) -> None:
        self.claims = factory.informer(PERSISTENTVOLUMECLAIMS)
        self.volumes = factory.informer(PERSISTENTVOLUMES)
        self.classes = factory.informer(STORAGECLASSES)
        for informer, kind in ((self.claims, PVC), (self.volumes, PV), (self.classes, STORAGE_CLASS)):
            self._register(informer, kind, on_event)

    @staticmethod
    def _register(informer: SharedInformer, kind: str, on_event: OnEvent) -> None:
        add = ClusterEvent(kind, ActionType.ADD, f"{kind}Add")
        update = ClusterEvent(kind, ActionType.UPDATE, f"{kind}Update")
        informer.add_event_handler(
            EventHandlerFuncs(
                add=lambda obj: on_event(add, None, obj),
                update=lambda old, new: on_event(update, old, new),
            )
        )

    def claim(self, namespace: str, name: str) -> Object | None:
        return self.claims.indexer.get_by_key(f"{namespace}/{name}")

    def list_volumes(self) -> Sequence[Object]:
        return self.volumes.indexer.list()

    def storage_class(self, name: str) -> Object | None:
        return self.classes.indexer.get_by_key(name)

    def install(self, handle: Handle) -> None:
        handle.pvc_lister, handle.pv_lister = self.claim, self.list_volumes
        handle.storage_class_lister = self.storage_class

    def has_synced(self) -> bool:
        return self.claims.has_synced() and self.volumes.has_synced() and self.classes.has_synced()

"""StorageObjectInUseProtection: every new PersistentVolumeClaim gets the finalizer
``kubernetes.io/pvc-protection`` and every new PersistentVolume ``kubernetes.io/pv-protection``
(once), so neither disappears while a pod uses the claim or a claim is bound to the volume. The
pvc-protection and pv-protection controllers remove them when that is no longer so."""

from __future__ import annotations

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.interfaces import Plugin
from apiserver.lookup import Lookup

NAME = "StorageObjectInUseProtection"
PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection"
PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection"
_FINALIZERS = {
    "persistentvolumeclaims": PVC_PROTECTION_FINALIZER,
    "persistentvolumes": PV_PROTECTION_FINALIZER,
}


class StorageObjectInUseProtection(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE})

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()

    async def admit(self, attrs: Attributes) -> None:
        finalizer = _FINALIZERS.get(attrs.resource.resource)
        if finalizer is None or not attrs.is_main("", attrs.resource.resource) or attrs.object is None:
            return
        finalizers = attrs.object.setdefault("metadata", {}).setdefault("finalizers", [])
        if finalizer not in finalizers:
            finalizers.append(finalizer)

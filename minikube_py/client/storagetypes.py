"""The storage resource types (PersistentVolumes, PersistentVolumeClaims, StorageClasses) the
volume controllers, the scheduler and the node agents read, by name."""

from __future__ import annotations

from minikube_py.api.scheme import ResourceType
from minikube_py.client.resourcetypes import resource_type


def _core(kind: str, resource: str, namespaced: bool, short: str) -> ResourceType:
    try:
        return resource_type("v1", resource)
    except KeyError:  # not served by this build's scheme: the wire type is all a client needs
        return ResourceType("", "v1", kind, resource, namespaced, (short,))


PERSISTENTVOLUMES = _core("PersistentVolume", "persistentvolumes", False, "pv")
PERSISTENTVOLUMECLAIMS = _core("PersistentVolumeClaim", "persistentvolumeclaims", True, "pvc")
STORAGECLASSES = resource_type("storage.k8s.io/v1", "storageclasses")

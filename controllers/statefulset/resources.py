"""The resource types this controller reads beyond ``minikube_py.client.resourcetypes``'."""

from __future__ import annotations

from minikube_py.api.scheme import ResourceType
from minikube_py.client.resourcetypes import resource_type


def _rt(api_version: str, resource: str, kind: str) -> ResourceType:  # TEMP until i16-apicore
    try:
        return resource_type(api_version, resource)
    except KeyError:
        group, _, version = api_version.rpartition("/")
        return ResourceType(group, version, kind, resource, True)


STATEFULSETS = resource_type("apps/v1", "statefulsets")
CONTROLLERREVISIONS = _rt("apps/v1", "controllerrevisions", "ControllerRevision")
PERSISTENTVOLUMECLAIMS = _rt("v1", "persistentvolumeclaims", "PersistentVolumeClaim")

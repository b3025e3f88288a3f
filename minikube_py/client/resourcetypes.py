"""The built-in resource types clients use most, by name (``client.resource(PODS, "default")``)."""

from __future__ import annotations

from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.scheme import ResourceType

_SCHEME = builtin_scheme()


def resource_type(api_version: str, resource: str) -> ResourceType:
    """The built-in type ``resource`` in ``api_version`` (``"apps/v1"``, ``"v1"``); KeyError if none."""
    group, _, version = api_version.rpartition("/")
    found = _SCHEME.by_resource(group, version, resource)
    if found is None:
        raise KeyError(f"no built-in resource {resource} in {api_version}")
    return found


def resource_type_for_kind(api_version: str, kind: str) -> ResourceType | None:
    """The built-in type serving ``kind`` in ``api_version`` (owner references name kinds)."""
    return _SCHEME.by_kind(api_version, kind)


PODS = resource_type("v1", "pods")
NODES = resource_type("v1", "nodes")
NAMESPACES = resource_type("v1", "namespaces")
SERVICEACCOUNTS = resource_type("v1", "serviceaccounts")
SECRETS = resource_type("v1", "secrets")
CONFIGMAPS = resource_type("v1", "configmaps")
SERVICES = resource_type("v1", "services")
EVENTS = resource_type("v1", "events")
REPLICASETS = resource_type("apps/v1", "replicasets")
DEPLOYMENTS = resource_type("apps/v1", "deployments")
LEASES = resource_type("coordination.k8s.io/v1", "leases")
ENDPOINTS = resource_type("v1", "endpoints")
ENDPOINTSLICES = resource_type("discovery.k8s.io/v1", "endpointslices")
PERSISTENTVOLUMES = resource_type("v1", "persistentvolumes")
PERSISTENTVOLUMECLAIMS = resource_type("v1", "persistentvolumeclaims")
REPLICATIONCONTROLLERS = resource_type("v1", "replicationcontrollers")
CONTROLLERREVISIONS = resource_type("apps/v1", "controllerrevisions")
STATEFULSETS = resource_type("apps/v1", "statefulsets")
DAEMONSETS = resource_type("apps/v1", "daemonsets")
STORAGECLASSES = resource_type("storage.k8s.io/v1", "storageclasses")
CSIDRIVERS = resource_type("storage.k8s.io/v1", "csidrivers")
CSINODES = resource_type("storage.k8s.io/v1", "csinodes")
VOLUMEATTACHMENTS = resource_type("storage.k8s.io/v1", "volumeattachments")

"""EndpointSlice vocabulary both slice controllers use: the well-known labels, the key that
groups slices by their ports, an endpoint's identity within a slice, the owner reference to
the Service and a new slice's skeleton (``generateName: <service>-``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.cache.store import IndexFunc

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror"
HEADLESS_LABEL = "service.kubernetes.io/headless"
SLICE_API_VERSION = "discovery.k8s.io/v1"
#: the index of a slice informer: ``<namespace>/<service name>`` of the managing controller's slices
SERVICE_INDEX = "endpointslice-service"


def ports_key(ports: Iterable[dict[str, Any]] | None) -> str:
    """Slices carry one port set each; endpoints with equal port sets share slices."""
    return json.dumps(sorted(json.dumps(p, sort_keys=True) for p in ports or []))


def endpoint_key(endpoint: dict[str, Any]) -> str:
    """An endpoint's identity: what backs it (the pod) or, without a reference, its addresses."""
    ref = endpoint.get("targetRef") or {}
    return json.dumps([ref.get("uid") or ref.get("name") or "", sorted(endpoint.get("addresses") or [])])


def owner_reference(service: Object) -> dict[str, Any]:
    meta = service["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "name": meta["name"],
        "uid": meta.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def owned_by(slice_: Object, service: Object) -> bool:
    uid = service["metadata"].get("uid")
    return any(ref.get("uid") == uid for ref in slice_["metadata"].get("ownerReferences") or [])


def new_slice(service: Object, labels: dict[str, str], address_type: str, ports: list[Any]) -> Object:
    meta = service["metadata"]
    return {
        "apiVersion": SLICE_API_VERSION,
        "kind": "EndpointSlice",
        "metadata": {
            "generateName": f"{meta['name']}-",
            "namespace": meta.get("namespace", ""),
            "labels": dict(labels),
            "ownerReferences": [owner_reference(service)],
        },
        "addressType": address_type,
        "endpoints": [],
        "ports": ports,
    }


def managed_slice_index(managed_by: str) -> IndexFunc:
    """An index function filing the slices ``managed_by`` writes under their Service's key."""

    def index(slice_: Object) -> list[str]:
        labels = slice_["metadata"].get("labels") or {}
        if labels.get(MANAGED_BY_LABEL) != managed_by or SERVICE_NAME_LABEL not in labels:
            return []
        return [f"{slice_['metadata'].get('namespace', '')}/{labels[SERVICE_NAME_LABEL]}"]

    return index


def service_key_of(slice_: Object) -> str | None:
    labels = slice_["metadata"].get("labels") or {}
    name = labels.get(SERVICE_NAME_LABEL)
    return f"{slice_['metadata'].get('namespace', '')}/{name}" if name else None

"""The slices an Endpoints object mirrors to (upstream's mirroring reconciler): each subset's
addresses (``ready: true``) and not-ready addresses (``ready: false``) become endpoints of the
slices for the subset's ports and the address's type (IPv4, IPv6; anything else is skipped),
at most ``MAX_ENDPOINTS_PER_SUBSET`` per subset. Existing mirrored slices of a (type, ports)
group are rewritten in place, in order; extra desired ones are created, left-over ones deleted."""

from __future__ import annotations

import copy
import ipaddress
from typing import Any

from controllers.endpointutil.slices import (
    MANAGED_BY_LABEL,
    SERVICE_NAME_LABEL,
    SLICE_API_VERSION,
    ports_key,
)
from minikube_py.api.unstructured import Object

CONTROLLER_NAME = "endpointslicemirroring-controller.k8s.io"
#: upstream's ``--mirroring-max-endpoints-per-subset`` default
MAX_ENDPOINTS_PER_SUBSET = 1000
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"

Group = tuple[str, str]  # (address type, ports key)


def _address_type(ip: str) -> str | None:
    try:
        return "IPv6" if ipaddress.ip_address(ip).version == 6 else "IPv4"
    except ValueError:
        return None


def _endpoint(address: dict[str, Any], ready: bool) -> dict[str, Any]:
    endpoint: dict[str, Any] = {"addresses": [address["ip"]], "conditions": {"ready": ready}}
    for field in ("hostname", "nodeName", "targetRef"):
        if address.get(field):
            endpoint[field] = copy.deepcopy(address[field])
    return endpoint


def _ports(subset: dict[str, Any]) -> list[dict[str, Any]]:
    ports = []
    for port in subset.get("ports") or []:
        mirrored = {
            "name": port.get("name") or "",
            "port": port.get("port"),
            "protocol": port.get("protocol") or "TCP",
        }
        if port.get("appProtocol"):
            mirrored["appProtocol"] = port["appProtocol"]
        ports.append(mirrored)
    return ports


def desired_groups(endpoints: Object) -> dict[Group, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """(ports, endpoints) per (address type, ports key)."""
    groups: dict[Group, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    for subset in endpoints.get("subsets") or []:
        ports = _ports(subset)
        addresses = [(a, True) for a in subset.get("addresses") or []]
        addresses += [(a, False) for a in subset.get("notReadyAddresses") or []]
        for address, ready in addresses[:MAX_ENDPOINTS_PER_SUBSET]:
            address_type = _address_type(str(address.get("ip", "")))
            if address_type is None:
                continue
            group = groups.setdefault((address_type, ports_key(ports)), (ports, []))
            group[1].append(_endpoint(address, ready))
    return groups


def mirrored_metadata(endpoints: Object) -> tuple[dict[str, str], dict[str, str]]:
    """Labels and annotations a mirrored slice carries: the Endpoints' own, less what belongs
    to slices or to kubectl, plus the service name and this manager."""
    meta = endpoints["metadata"]
    labels = {
        k: v for k, v in (meta.get("labels") or {}).items() if k not in (MANAGED_BY_LABEL, SERVICE_NAME_LABEL)
    }
    labels[SERVICE_NAME_LABEL] = meta["name"]
    labels[MANAGED_BY_LABEL] = CONTROLLER_NAME
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items() if k not in (LAST_APPLIED, TRIGGER_TIME)
    }
    return labels, annotations


def owner_reference(endpoints: Object) -> dict[str, Any]:
    meta = endpoints["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "name": meta["name"],
        "uid": meta.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def plan_mirror(endpoints: Object, existing: list[Object]) -> tuple[list[Object], list[Object], list[Object]]:
    """(creates, updates, deletes) that make ``existing`` mirror ``endpoints``."""
    labels, annotations = mirrored_metadata(endpoints)
    owner = [owner_reference(endpoints)]
    by_group: dict[Group, list[Object]] = {}
    for slice_ in sorted(existing, key=lambda s: str(s["metadata"].get("name"))):
        group = (str(slice_.get("addressType")), ports_key(slice_.get("ports")))
        by_group.setdefault(group, []).append(slice_)
    creates: list[Object] = []
    updates: list[Object] = []
    deletes: list[Object] = []
    for group, (ports, wanted) in desired_groups(endpoints).items():
        current = by_group.pop(group, [])
        chunks = [
            wanted[i : i + MAX_ENDPOINTS_PER_SUBSET] for i in range(0, len(wanted), MAX_ENDPOINTS_PER_SUBSET)
        ]
        for index, chunk in enumerate(chunks):
            if index < len(current):
                slice_ = current[index]
                meta = slice_["metadata"]
                same = (
                    slice_.get("endpoints") == chunk
                    and (meta.get("labels") or {}) == labels
                    and (meta.get("annotations") or {}) == annotations
                    and meta.get("ownerReferences") == owner
                )
                if not same:
                    updated = copy.deepcopy(slice_)
                    updated["endpoints"] = chunk
                    updated["metadata"].update(
                        labels=dict(labels), annotations=dict(annotations), ownerReferences=owner
                    )
                    updates.append(updated)
                continue
            creates.append(
                {
                    "apiVersion": SLICE_API_VERSION,
                    "kind": "EndpointSlice",
                    "metadata": {
                        "generateName": f"{endpoints['metadata']['name']}-",
                        "namespace": endpoints["metadata"].get("namespace", ""),
                        "labels": dict(labels),
                        "annotations": dict(annotations),
                        "ownerReferences": copy.deepcopy(owner),
                    },
                    "addressType": group[0],
                    "endpoints": chunk,
                    "ports": copy.deepcopy(ports),
                }
            )
        deletes.extend(current[len(chunks) :])
    for leftover in by_group.values():
        deletes.extend(leftover)
    return creates, updates, deletes

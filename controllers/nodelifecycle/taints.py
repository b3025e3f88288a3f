"""Taints the node lifecycle controller owns, toleration matching, and the one helper that
writes a node's taints (upstream's ``SwapNodeControllerTaint`` + ``v1helper`` toleration rules).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.timestamps import format_rfc3339 as format_time
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import MERGE_PATCH, Client
from minikube_py.client.resourcetypes import NODES

log = logging.getLogger("nodelifecycle")

Taint = dict[str, Any]
Toleration = dict[str, Any]

NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "NoExecute"
TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
NOT_READY_NO_EXECUTE: Taint = {"key": TAINT_NOT_READY, "effect": NO_EXECUTE}
UNREACHABLE_NO_EXECUTE: Taint = {"key": TAINT_UNREACHABLE, "effect": NO_EXECUTE}

# node condition type -> condition status -> the NoSchedule taint it implies
CONDITION_TAINTS: dict[str, dict[str, str]] = {
    "Ready": {"False": TAINT_NOT_READY, "Unknown": TAINT_UNREACHABLE},
    "MemoryPressure": {"True": "node.kubernetes.io/memory-pressure"},
    "DiskPressure": {"True": "node.kubernetes.io/disk-pressure"},
    "NetworkUnavailable": {"True": "node.kubernetes.io/network-unavailable"},
    "PIDPressure": {"True": "node.kubernetes.io/pid-pressure"},
}
CONDITION_TAINT_KEYS = frozenset(key for by_status in CONDITION_TAINTS.values() for key in by_status.values())
CONFLICT_RETRIES = 5


def taints_of(node: Object) -> list[Taint]:
    return list((node.get("spec") or {}).get("taints") or [])


def matches(a: Taint, b: Taint) -> bool:
    """Same key and effect (upstream ``MatchTaint``): one taint slot on the node."""
    return a.get("key") == b.get("key") and a.get("effect") == b.get("effect")


def taint_exists(taints: list[Taint], wanted: Taint) -> bool:
    return any(matches(t, wanted) for t in taints)


def no_execute_taints(node: Object) -> list[Taint]:
    return [t for t in taints_of(node) if t.get("effect") == NO_EXECUTE]


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """Upstream ``Toleration.ToleratesTaint``: empty effect and key match any; operator
    ``Exists`` ignores the value, ``Equal`` (or empty) compares it."""
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if toleration.get("key") and toleration["key"] != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def matching_tolerations(taints: list[Taint], tolerations: list[Toleration]) -> list[Toleration] | None:
    """The first toleration matching each taint, in taint order; None if one is untolerated."""
    used: list[Toleration] = []
    for taint in taints:
        found = next((t for t in tolerations if tolerates(t, taint)), None)
        if found is None:
            return None
        used.append(found)
    return used


async def swap_node_controller_taint(
    client: Client, node_name: str, to_add: list[Taint], to_remove: list[Taint], now: float
) -> bool:
    """Add ``to_add`` (stamped ``timeAdded``; a taint already in that slot stays as it is)
    and remove ``to_remove`` in one merge patch, with the resourceVersion as precondition,
    retried on conflict. False (and a log line) when it could not be written."""
    nodes = client.resource(NODES)
    for attempt in range(CONFLICT_RETRIES):
        try:
            node = await nodes.get(node_name)
            old = taints_of(node)
            new = [t for t in old if not any(matches(t, r) for r in to_remove)]
            for taint in to_add:
                if not taint_exists(new, taint):
                    new.append({**copy.deepcopy(taint), "timeAdded": format_time(now)})
            if new == old:
                return True
            body = {
                "metadata": {"resourceVersion": node["metadata"]["resourceVersion"]},
                "spec": {"taints": new or None},
            }
            await nodes.patch(node_name, body, patch_type=MERGE_PATCH)
            return True
        except ApiError as exc:
            if exc.code == 409 and attempt < CONFLICT_RETRIES - 1:
                continue
            log.error("failed to swap taints of node %s: %s", node_name, exc)
            return False
    return False

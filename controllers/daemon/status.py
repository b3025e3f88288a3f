"""DaemonSet status (upstream's ``updateDaemonSetStatus`` and ``storeDaemonSetStatus``).

Per node the DaemonSet wants: desired; with a pod, current; the oldest pod ready, ready; ready
for ``minReadySeconds``, available; made from the current revision, updated. A node it does
not want but that holds a pod is misscheduled. ``observedGeneration`` moves only when the
sync acted on this generation (its expectations were satisfied)."""

from __future__ import annotations

import copy
from typing import Any

from controllers.daemon.context import PodsByNode, creation_order_key
from controllers.daemon.predicates import DaemonPlacement
from controllers.daemon.util import is_pod_updated, template_generation
from controllers.podcontrol.pods import is_pod_available, is_pod_ready
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import DAEMONSETS

STATUS_UPDATE_RETRIES = 1
COUNTS = (
    "desiredNumberScheduled",
    "currentNumberScheduled",
    "numberMisscheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberAvailable",
    "numberUnavailable",
)


def calculate_counts(
    ds: Object, nodes: list[Object], by_node: PodsByNode, placement: DaemonPlacement, hash_: str, now: float
) -> dict[str, int]:
    counts = dict.fromkeys(COUNTS, 0)
    min_ready = int(ds["spec"].get("minReadySeconds") or 0)
    generation = template_generation(ds)
    for node in nodes:
        pods = by_node.get(node["metadata"]["name"]) or []
        if not placement.of(node).should_run:
            counts["numberMisscheduled"] += bool(pods)
            continue
        counts["desiredNumberScheduled"] += 1
        if not pods:
            continue
        counts["currentNumberScheduled"] += 1
        pod = min(pods, key=creation_order_key)
        if is_pod_ready(pod):
            counts["numberReady"] += 1
            counts["numberAvailable"] += is_pod_available(pod, min_ready, now)
        counts["updatedNumberScheduled"] += is_pod_updated(pod, hash_, generation)
    counts["numberUnavailable"] = counts["desiredNumberScheduled"] - counts["numberAvailable"]
    return counts


def _unchanged(ds: Object, counts: dict[str, int]) -> bool:
    status = ds.get("status") or {}
    same = all(int(status.get(k) or 0) == v for k, v in counts.items())
    return same and int(status.get("observedGeneration") or 0) >= int(ds["metadata"].get("generation") or 0)


async def store_status(
    client: Client, ds: Object, counts: dict[str, int], update_observed_generation: bool
) -> Object:
    """Write the counts (and ``observedGeneration`` when asked) unless nothing changed; on a
    failure re-read the DaemonSet and try once more, then raise."""
    if _unchanged(ds, counts):
        return ds
    handle = client.resource(DAEMONSETS, ds["metadata"]["namespace"])
    current = ds
    for attempt in range(STATUS_UPDATE_RETRIES + 1):
        updated = copy.deepcopy(current)
        status: dict[str, Any] = updated.setdefault("status", {})
        if update_observed_generation:
            status["observedGeneration"] = ds["metadata"].get("generation", 0)
        status.update(counts)
        try:
            return await handle.update_status(updated)
        except ApiError:
            if attempt >= STATUS_UPDATE_RETRIES:
                raise
            current = await handle.get(ds["metadata"]["name"])
    raise AssertionError("unreachable")

"""StatefulSet status: the counts of its pods, rollout completion, and the ``/status`` write
(upstream's ``computeReplicaStatus``, ``completeRollingUpdate``, ``inconsistentStatus`` and
the status updater, which retries a conflict on a fresh read)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from controllers.statefulset import identity as ident
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import STATEFULSETS

if TYPE_CHECKING:
    from controllers.statefulset.revisiondata import Revisions

STATUS_UPDATE_RETRIES = 10
COUNTS = ("replicas", "readyReplicas", "availableReplicas", "currentReplicas", "updatedReplicas")
_COMPARED = (*COUNTS, "observedGeneration", "currentRevision", "updateRevision")


def replica_counts(
    pods: Sequence[Object], min_ready: int, now: float, revisions: Revisions
) -> dict[str, int]:
    counts = dict.fromkeys(COUNTS, 0)
    current, update = revisions.current["metadata"]["name"], revisions.update["metadata"]["name"]
    for pod in pods:
        created = ident.is_created(pod)
        counts["replicas"] += created
        if ident.is_running_and_ready(pod):
            counts["readyReplicas"] += 1
            counts["availableReplicas"] += ident.is_running_and_available(pod, min_ready, now)
        if created and not ident.is_terminating(pod):
            revision = ident.pod_revision(pod)
            counts["currentReplicas"] += revision == current
            counts["updatedReplicas"] += revision == update
    return counts


def complete_rolling_update(sts: Object, status: dict[str, Any]) -> None:
    """Every member updated and ready: the update revision becomes the current one."""
    strategy = (sts["spec"].get("updateStrategy") or {}).get("type", "RollingUpdate")
    if (
        strategy == "RollingUpdate"
        and status.get("updatedReplicas") == status.get("replicas")
        and status.get("readyReplicas") == status.get("replicas")
    ):
        status["currentReplicas"] = status.get("updatedReplicas", 0)
        status["currentRevision"] = status.get("updateRevision")


def inconsistent(sts: Object, status: dict[str, Any]) -> bool:
    old = sts.get("status") or {}
    if any((old.get(k) or 0) != (status.get(k) or 0) for k in _COMPARED):
        return True
    return int(old.get("collisionCount") or 0) != int(status.get("collisionCount") or 0)


def _merged(sts: Object, status: dict[str, Any]) -> dict[str, Any]:
    """The new status over the old one (conditions and unknown fields kept), zero counts
    dropped as Go's ``omitempty`` does (``replicas`` and ``collisionCount`` always written)."""
    merged = {**copy.deepcopy(sts.get("status") or {}), **status}
    kept = ("replicas", "collisionCount")  # collisionCount is a pointer upstream: 0 is written
    return {k: v for k, v in merged.items() if k in kept or v not in (0, None, "")}


async def update_status(client: Client, sts: Object, status: dict[str, Any]) -> Object:
    """Write ``status`` if it differs from the set's; the set as stored afterwards."""
    complete_rolling_update(sts, status)
    if not inconsistent(sts, status):
        return sts
    sets = client.resource(STATEFULSETS, sts["metadata"].get("namespace"))
    current = copy.deepcopy(sts)
    for attempt in range(STATUS_UPDATE_RETRIES):
        current["status"] = _merged(current, status)
        try:
            return await sets.update_status(current)
        except ApiError as err:
            if err.code != 409 or attempt == STATUS_UPDATE_RETRIES - 1:
                raise
            current = await sets.get(sts["metadata"]["name"])
    raise AssertionError("unreachable")

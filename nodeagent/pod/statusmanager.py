"""Writes pod statuses to the apiserver, only when they change (upstream ``status_manager``).

``set_pod_status(pod, status)`` patches ``pods/<name>/status`` when ``status`` differs from the
last status written for that pod uid (or, after a restart of the agent, from the status the
pod already has). The patch names the pod's uid, so a pod deleted and recreated under the same
name is never given the old one's status. A failed write is retried by the next sync: the
cache only remembers what was written.

``delete_pod(pod)`` is the final step of a graceful deletion: once the agent has stopped
everything, it deletes the pod with grace period 0 and the uid as precondition.
"""

from __future__ import annotations

import logging
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.client.interfaces import STRATEGIC_MERGE_PATCH, Client
from minikube_py.client.resourcetypes import PODS

Object = dict[str, Any]
log = logging.getLogger("nodeagent.status")


class StatusManager:
    def __init__(self, client: Client) -> None:
        self.client = client
        self._written: dict[str, Object] = {}  # pod uid -> the status last written

    async def set_pod_status(self, pod: Object, status: Object) -> bool:
        """Write ``status`` when it changed; True when a write happened and succeeded."""
        meta = pod["metadata"]
        uid = meta["uid"]
        last: Object = self._written.get(uid) or pod.get("status") or {}
        if _same(last, status):
            self._written[uid] = status
            return False
        patch = {"metadata": {"uid": uid}, "status": status}
        try:
            await self.client.resource(PODS, meta["namespace"]).patch(
                meta["name"], patch, patch_type=STRATEGIC_MERGE_PATCH, subresource="status"
            )
        except ApiError as err:
            log.warning("cannot update the status of %s/%s: %s", meta["namespace"], meta["name"], err)
            return False
        self._written[uid] = status
        return True

    async def delete_pod(self, pod: Object) -> None:
        """Delete ``pod`` for good (grace 0, same uid); gone already is fine."""
        meta = pod["metadata"]
        try:
            await self.client.resource(PODS, meta["namespace"]).delete(
                meta["name"], grace_period_seconds=0, preconditions={"uid": meta["uid"]}
            )
        except ApiError as err:
            if err.code not in (404, 409):
                raise

    def forget(self, uid: str) -> None:
        self._written.pop(uid, None)


def _same(old: Object, new: Object) -> bool:
    """Equal for every field ``new`` sets (the apiserver may add fields we do not write)."""
    return all(old.get(key) == value for key, value in new.items())

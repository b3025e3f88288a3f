"""Writes pod statuses to the apiserver, only when they change (upstream ``status_manager``).

``set_pod_status(pod, status)`` patches ``pods/<name>/status`` when ``status`` differs from the
last status written for that pod uid (or, after a restart of the agent, from the status the
pod already has). The patch names the pod's uid, so a pod deleted and recreated under the same
name is never given the old one's status. A failed write is retried by the next sync: the
cache only remembers what was written.

A static pod has no API object of its own: its status goes to its mirror pod (found through
``use_mirror_pods``), under the mirror's name and uid (upstream translates the static pod's uid
to the mirror's). Until it has a mirror nothing is written; a recreated mirror (a new uid) is
written to again.

``delete_pod(pod)`` is the final step of a graceful deletion: once the agent has stopped
everything, it deletes the pod with grace period 0 and the uid as precondition.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import STRATEGIC_MERGE_PATCH, Client
from minikube_py.client.resourcetypes import PODS
from nodeagent.pod.mirror import is_static_pod

log = logging.getLogger("nodeagent.status")


class StatusManager:
    def __init__(self, client: Client) -> None:
        self.client = client
        self._written: dict[str, tuple[str, Object]] = {}  # pod uid -> (uid written to, the status)
        self._mirror_of: Callable[[Object], Object | None] = lambda _pod: None

    def use_mirror_pods(self, mirror_of: Callable[[Object], Object | None]) -> None:
        """Write static pods' statuses to ``mirror_of(pod)`` (None: it has no mirror yet)."""
        self._mirror_of = mirror_of

    async def set_pod_status(self, pod: Object, status: Object) -> bool:
        """Write ``status`` when it changed; True when a write happened and succeeded."""
        uid = pod["metadata"]["uid"]
        target = self._mirror_of(pod) if is_static_pod(pod) else pod
        if target is None:
            return False
        meta = target["metadata"]
        written = self._written.get(uid)
        last: Object = written[1] if written and written[0] == meta["uid"] else target.get("status") or {}
        if _same(last, status):
            self._written[uid] = (meta["uid"], status)
            return False
        patch = {"metadata": {"uid": meta["uid"]}, "status": status}
        try:
            await self.client.resource(PODS, meta["namespace"]).patch(
                meta["name"], patch, patch_type=STRATEGIC_MERGE_PATCH, subresource="status"
            )
        except ApiError as err:
            log.warning("cannot update the status of %s/%s: %s", meta["namespace"], meta["name"], err)
            return False
        self._written[uid] = (meta["uid"], status)
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

    def last_status(self, pod: Object) -> Object | None:
        """The status last written for ``pod`` (upstream generates the next one from it: the
        informer's copy may not show that write yet)."""
        written = self._written.get(pod["metadata"]["uid"])
        return written[1] if written is not None else None

    def forget(self, uid: str) -> None:
        self._written.pop(uid, None)


def _same(old: Object, new: Object) -> bool:
    """Equal for every field ``new`` sets (the apiserver may add fields we do not write)."""
    return all(old.get(key) == value for key, value in new.items())

"""The pods a node evicted, as its pod manager sees them (upstream passes the eviction's
status to ``podWorkers.UpdatePod`` with ``SyncPodKill``).

``EvictedPods`` remembers each evicted pod's message until the pod is forgotten. While it does,
every version of the pod handed to the workers carries phase ``Failed`` (so its worker
terminates it, within ``EVICTION_GRACE`` seconds), and every status written for it is
``evicted_status``: phase Failed, reason ``Evicted``, the message, and a ``DisruptionTarget``
condition. The pod then stays in the API, Failed, as upstream's evicted pods do.
"""

from __future__ import annotations

import copy

from minikube_py.api.timestamps import format_rfc3339
from minikube_py.api.unstructured import Object
from minikube_py.clock import Clock

REASON = "Evicted"
EVICTION_GRACE = 1.0  # upstream's immediateEvictionGracePeriodSeconds (hard thresholds)


class EvictedPods:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._messages: dict[str, str] = {}  # pod uid -> eviction message

    def add(self, pod: Object, message: str) -> Object:
        """Remember ``pod`` as evicted; returns the version its worker must get."""
        self._messages[pod["metadata"]["uid"]] = message
        return self.apply(pod)

    def apply(self, pod: Object) -> Object:
        """``pod`` itself, or a Failed copy when it was evicted."""
        message = self._messages.get(pod["metadata"]["uid"])
        if message is None or (pod.get("status") or {}).get("phase") == "Failed":
            return pod
        failed = copy.copy(pod)
        failed["status"] = evicted_status(pod.get("status") or {}, message, format_rfc3339(self.clock.now()))
        return failed

    def status(self, pod: Object, status: Object) -> Object:
        """The status to write for ``pod``: ``status``, or its evicted form."""
        message = self._messages.get(pod["metadata"]["uid"])
        if message is None:
            return status
        return evicted_status(status, message, format_rfc3339(self.clock.now()), pod.get("status"))

    def grace(self, pod: Object, default: float) -> float:
        return EVICTION_GRACE if pod["metadata"]["uid"] in self._messages else default

    def forget(self, uid: str) -> None:
        self._messages.pop(uid, None)


def evicted_status(status: Object, message: str, now: str, previous: Object | None = None) -> Object:
    """``status`` of a pod evicted with ``message`` (see the module docstring); the condition
    keeps its ``lastTransitionTime`` from ``previous`` (the pod's current status)."""
    before = (previous or status).get("conditions") or []
    old = next((c for c in before if c.get("type") == "DisruptionTarget"), None)
    target = {
        "type": "DisruptionTarget",
        "status": "True",
        "lastTransitionTime": (old or {}).get("lastTransitionTime") or now,
        "reason": "TerminationByKubelet",
        "message": message,
    }
    others = [c for c in status.get("conditions") or [] if c.get("type") != "DisruptionTarget"]
    failed = {"phase": "Failed", "reason": REASON, "message": message, "conditions": [target, *others]}
    return {**status, **failed}

"""PrioritySort (QueueSort): higher ``spec.priority`` first, then the earlier queued."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.extensionpoints import EnqueueExtensions, QueueSortPlugin
from scheduler.framework.interface import Handle
from scheduler.framework.types import ClusterEvent, QueuedPodInfo


def pod_priority(pod: Object) -> int:
    """``spec.priority``; 0 when unset (the admission plugin normally fills it)."""
    return int((pod.get("spec") or {}).get("priority") or 0)


class PrioritySort(QueueSortPlugin, EnqueueExtensions):
    """Orders the active queue. Registers no events: it rejects nothing."""

    name = "PrioritySort"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        pass

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = pod_priority(a.pod), pod_priority(b.pod)
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)

    def events_to_register(self) -> list[ClusterEvent]:
        return []

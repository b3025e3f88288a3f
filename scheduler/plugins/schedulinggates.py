"""SchedulingGates (PreEnqueue): a pod with ``spec.schedulingGates`` waits outside the active
queue until every gate is removed (an update of the pod itself)."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.extensionpoints import EnqueueExtensions, PreEnqueuePlugin
from scheduler.framework.interface import Handle
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ActionType, ClusterEvent
from scheduler.plugins.events import POD


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    """Events: an update of the pod (its gates removed)."""

    name = "SchedulingGates"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        pass

    def pre_enqueue(self, pod: Object) -> Status:
        gates = (pod.get("spec") or {}).get("schedulingGates") or []
        if not gates:
            return SUCCESS
        names = " ".join(str(g.get("name", "")) for g in gates)
        return Status.unresolvable(f"waiting for scheduling gates: [{names}]")

    def events_to_register(self) -> list[ClusterEvent]:
        return [ClusterEvent(POD, ActionType.UPDATE, "PodSchedulingGatesEliminated")]

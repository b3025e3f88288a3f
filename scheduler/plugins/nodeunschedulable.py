"""NodeUnschedulable (Filter): nodes with ``spec.unschedulable`` (cordoned) take only pods
tolerating the ``node.kubernetes.io/unschedulable:NoSchedule`` taint."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import EnqueueExtensions, FilterPlugin
from scheduler.framework.interface import Handle
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo
from scheduler.plugins.events import NODE
from scheduler.plugins.helper.taints import pod_tolerations, tolerated

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


class NodeUnschedulable(FilterPlugin, EnqueueExtensions):
    """Events: a node added, or its taints/unschedulable flag changed (uncordon)."""

    name = "NodeUnschedulable"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        pass

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        if not node_info.unschedulable:
            if node_info.node is None:
                return Status.unresolvable(ERR_REASON_UNKNOWN_CONDITION)
            return SUCCESS
        if tolerated(UNSCHEDULABLE_TAINT, pod_tolerations(pod)):
            return SUCCESS
        return Status.unresolvable(ERR_REASON_UNSCHEDULABLE)

    def events_to_register(self) -> list[ClusterEvent]:
        return [ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT, "NodeAddOrTaintChange")]

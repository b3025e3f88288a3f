"""NodeName (Filter): a pod with ``spec.nodeName`` fits only the node of that name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from scheduler.framework.interface import Handle, PreFilterResult
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo
from scheduler.plugins.events import NODE

ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Object, node_info: NodeInfo) -> bool:
    wanted = (pod.get("spec") or {}).get("nodeName") or ""
    return not wanted or wanted == node_info.name


class NodeName(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Events: a node added or updated (the named node may appear)."""

    name = "NodeName"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        pass

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not (pod.get("spec") or {}).get("nodeName"):
            return None, Status.skip()
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        return SUCCESS if fits(pod, node_info) else Status.unresolvable(ERR_REASON)

    def events_to_register(self) -> list[ClusterEvent]:
        return [ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE, "NodeAddOrUpdate")]

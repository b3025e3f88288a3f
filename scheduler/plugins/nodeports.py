"""NodePorts: Filter rejects nodes where a host port the pod asks for (hostIP, protocol,
hostPort) is taken; ``0.0.0.0`` conflicts with every IP."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from scheduler.framework.interface import Handle, PreFilterResult
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo, host_ports
from scheduler.plugins.events import NODE, POD

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
_PRE_FILTER_KEY = "PreFilterNodePorts"
_ANY_IP = "0.0.0.0"

HostPort = tuple[str, str, int]


def fits_ports(wanted: list[HostPort], used: set[HostPort]) -> bool:
    if not used:
        return True
    for ip, protocol, port in wanted:
        if (ip, protocol, port) in used or (_ANY_IP, protocol, port) in used:
            return False
        if ip == _ANY_IP and any(u[1] == protocol and u[2] == port for u in used):
            return False
    return True


class NodePorts(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Events: an assigned pod deleted (its ports freed), a node added or updated."""

    name = "NodePorts"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        pass

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        wanted = host_ports(pod)
        if not wanted:
            return None, Status.skip()
        state.write(_PRE_FILTER_KEY, wanted)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        wanted: list[HostPort] | None = state.get(_PRE_FILTER_KEY)
        if wanted is None:
            wanted = host_ports(pod)
        return SUCCESS if fits_ports(wanted, node_info.used_ports) else Status.unschedulable(ERR_REASON)

    def events_to_register(self) -> list[ClusterEvent]:
        return [
            ClusterEvent(POD, ActionType.DELETE, "AssignedPodDelete"),
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE, "NodeAddOrUpdate"),
        ]

"""The cluster events plugins register interest in (upstream ``framework.ClusterEvent``s).

``Pod`` events are about assigned pods (the ones already on nodes)."""

from __future__ import annotations

from scheduler.framework.types import ActionType, ClusterEvent

NODE, POD = "Node", "Pod"
PVC, PV, STORAGE_CLASS = "PersistentVolumeClaim", "PersistentVolume", "StorageClass"

NODE_ADD = ClusterEvent(NODE, ActionType.ADD, "NodeAdd")
NODE_DELETE = ClusterEvent(NODE, ActionType.DELETE, "NodeDelete")
NODE_LABEL_CHANGE = ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL, "NodeLabelChange")
NODE_TAINT_CHANGE = ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT, "NodeTaintChange")
NODE_ALLOCATABLE_CHANGE = ClusterEvent(NODE, ActionType.UPDATE_NODE_ALLOCATABLE, "NodeAllocatableChange")
NODE_UPDATE = ClusterEvent(NODE, ActionType.UPDATE, "NodeUpdate")

ASSIGNED_POD_ADD = ClusterEvent(POD, ActionType.ADD, "AssignedPodAdd")
ASSIGNED_POD_DELETE = ClusterEvent(POD, ActionType.DELETE, "AssignedPodDelete")
ASSIGNED_POD_LABEL_CHANGE = ClusterEvent(POD, ActionType.UPDATE_POD_LABEL, "AssignedPodLabelChange")
ASSIGNED_POD_SCALE_DOWN = ClusterEvent(POD, ActionType.UPDATE_POD_SCALE_DOWN, "AssignedPodScaleDown")
POD_UPDATE = ClusterEvent(POD, ActionType.UPDATE, "PodUpdate")
ASSIGNED_POD_CHANGE = ClusterEvent(
    POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE, "AssignedPodChange"
)

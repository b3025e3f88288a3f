"""``ClusterEventHandlers``: what the pod and node informers do (upstream ``eventhandlers.go``):
keys and moves only. Unscheduled pods of this scheduler's profiles go to the queue (and the
nominator); assigned pods and nodes go to the cache, and their changes move the pods waiting
for such an event back to the active or backoff queue."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.cache.informer import EventHandlerFuncs, SharedInformer
from minikube_py.cache.store import DeletedFinalStateUnknown
from scheduler.backend.cache import Cache
from scheduler.backend.queue import SchedulingQueue
from scheduler.framework.types import ActionType, ClusterEvent, pod_key
from scheduler.plugins.defaultpreemption.nominator import Nominator

NODE_ADD = ClusterEvent("Node", ActionType.ADD, "NodeAdd")
ASSIGNED_POD_DELETE = ClusterEvent("Pod", ActionType.DELETE, "AssignedPodDelete")
ASSIGNED_POD_ADD = ClusterEvent("Pod", ActionType.ADD, "AssignedPodAdd")


class ClusterEventHandlers:
    """``responsible(pod)``: the pod names one of this scheduler's profiles; ``forget(key)``
    drops what the scheduler remembers of a pod that is gone."""

    def __init__(
        self,
        cache: Cache,
        queue: SchedulingQueue,
        nominator: Nominator,
        responsible: Callable[[Object], bool],
        forget: Callable[[str], None],
    ) -> None:
        self.cache = cache
        self.queue = queue
        self.nominator = nominator
        self.responsible = responsible
        self.forget = forget

    def register(self, pods: SharedInformer, nodes: SharedInformer) -> None:
        pods.add_event_handler(
            EventHandlerFuncs(add=self.pod_added, update=self.pod_updated, delete=self.pod_deleted)
        )
        nodes.add_event_handler(
            EventHandlerFuncs(add=self.node_added, update=self.node_updated, delete=self.node_deleted)
        )

    def pod_added(self, pod: Object) -> None:
        if (pod.get("spec") or {}).get("nodeName"):
            self.cache.add_pod(pod)
            self.queue.assigned_pod_added(pod)
        elif self.responsible(pod) and not pod["metadata"].get("deletionTimestamp"):
            self.queue.add(pod)
            self.nominator.add_pod(pod)

    def pod_updated(self, old: Object, new: Object) -> None:
        old_node, new_node = (old.get("spec") or {}).get("nodeName"), (new.get("spec") or {}).get("nodeName")
        if new_node:
            if old_node:
                self.cache.update_pod(old, new)
                self.queue.assigned_pod_updated(old, new)
            else:
                self.queue.delete(old)
                self.nominator.delete_pod(old)
                self.cache.add_pod(new)
                self.queue.assigned_pod_added(new)
        elif self.responsible(new):
            if new["metadata"].get("deletionTimestamp"):
                self.queue.delete(new)
                self.nominator.delete_pod(new)
            else:
                self.queue.update(old, new)
                self.nominator.update_pod(old, new)

    def pod_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if (pod.get("spec") or {}).get("nodeName"):
            self.cache.remove_pod(pod)
            self.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None)
        else:
            self.queue.delete(pod)
            self.nominator.delete_pod(pod)
        self.forget(pod_key(pod))

    def node_added(self, node: Object) -> None:
        self.cache.add_node(node)
        self.queue.move_all_to_active_or_backoff(NODE_ADD, None, node)

    def node_updated(self, old: Object, new: Object) -> None:
        self.cache.update_node(old, new)
        action = node_update_action(old, new)
        if action:
            self.queue.move_all_to_active_or_backoff(ClusterEvent("Node", action, "NodeUpdate"), old, new)

    def node_deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        node = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        self.cache.remove_node(node)


def node_update_action(old: Object, new: Object) -> ActionType:
    """Which kinds of node change happened (upstream ``nodeSchedulingPropertiesChange``)."""
    action = ActionType(0)
    old_status, new_status = old.get("status") or {}, new.get("status") or {}
    if old_status.get("allocatable") != new_status.get("allocatable"):
        action |= ActionType.UPDATE_NODE_ALLOCATABLE
    if (old.get("metadata") or {}).get("labels") != (new.get("metadata") or {}).get("labels"):
        action |= ActionType.UPDATE_NODE_LABEL
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    if old_spec.get("taints") != new_spec.get("taints") or old_spec.get("unschedulable") != new_spec.get(
        "unschedulable"
    ):
        action |= ActionType.UPDATE_NODE_TAINT
    if _ready(old_status) != _ready(new_status):
        action |= ActionType.UPDATE_NODE_CONDITION
    return action


def _ready(status: Object) -> Any:
    return [(c.get("type"), c.get("status")) for c in status.get("conditions") or []]

"""DefaultBinder (Bind): binds the pod through the ``pods/binding`` subresource."""

from __future__ import annotations

from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.client.resourcetypes import PODS
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import BindPlugin, EnqueueExtensions
from scheduler.framework.interface import Handle
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ClusterEvent


def binding(pod: Object, node_name: str) -> Object:
    meta = pod.get("metadata") or {}
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {
            "name": meta.get("name", ""),
            "namespace": meta.get("namespace", ""),
            "uid": meta.get("uid", ""),
        },
        "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
    }


class DefaultBinder(BindPlugin, EnqueueExtensions):
    """Registers no events: it rejects nothing."""

    name = "DefaultBinder"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.handle = handle

    async def bind(self, state: CycleState, pod: Object, node_name: str) -> Status:
        meta = pod.get("metadata") or {}
        pods = self.handle.client.resource(PODS, meta.get("namespace", ""))
        try:
            await pods.create_subresource(meta.get("name", ""), "binding", binding(pod, node_name))
        except Exception as exc:  # any API failure: the framework forgets the assumed pod
            return Status.as_error(exc)
        return SUCCESS

    def events_to_register(self) -> list[ClusterEvent]:
        return []

"""Nodes: cluster-scoped; the kubelet registers them with their status (kept on create, owned by
``/status`` afterwards); ``kubectl get nodes`` shows readiness, roles and versions."""

from __future__ import annotations

from typing import Any

from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.models import core_node
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Status", "string", "", "The status of the node", 0),
    ("Roles", "string", "", "The roles of the node", 0),
    AGE_COLUMN,
    ("Version", "string", "", "Kubelet Version reported by the node.", 0),
    ("Internal-IP", "string", "", "List of addresses reachable to the node.", 1),
    ("External-IP", "string", "", "List of addresses reachable to the node.", 1),
    ("OS-Image", "string", "", "OS Image reported by the node from /etc/os-release.", 1),
    ("Kernel-Version", "string", "", "Kernel Version reported by the node from 'uname -r'.", 1),
    ("Container-Runtime", "string", "", "ContainerRuntime Version reported by the node.", 1),
]
ROLE_PREFIX = "node-role.kubernetes.io/"
ROLE_LABEL = "kubernetes.io/role"


def node_status(node: Object) -> str:
    """``Ready``/``NotReady`` from the Ready condition (``Unknown`` without one), plus
    ``,SchedulingDisabled`` for a cordoned node."""
    status = ["Unknown"]
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            status = ["Ready" if condition.get("status") == "True" else "NotReady"]
    if (node.get("spec") or {}).get("unschedulable"):
        status.append("SchedulingDisabled")
    return ",".join(status)


def node_roles(node: Object) -> str:
    """Sorted roles from ``node-role.kubernetes.io/<role>`` keys and ``kubernetes.io/role=<role>``."""
    roles = set()
    for key, value in ((node.get("metadata") or {}).get("labels") or {}).items():
        if key.startswith(ROLE_PREFIX) and key[len(ROLE_PREFIX) :]:
            roles.add(key[len(ROLE_PREFIX) :])
        elif key == ROLE_LABEL and value:
            roles.add(str(value))
    return ",".join(sorted(roles)) or "<none>"


def node_address(node: Object, kind: str) -> str:
    """The first address of ``kind`` (``InternalIP``, ``ExternalIP``), or ``<none>``."""
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == kind:
            return str(address.get("address", ""))
    return "<none>"


class NodeStrategy(Strategy):
    kinds = (core_node.Node,)
    status_field = "status"
    columns = COLUMNS

    def prepare_for_create(self, obj: Object) -> None:
        """Upstream keeps the status a node registers with; allocatable defaults to capacity."""
        status = obj.get("status")
        if isinstance(status, dict) and status.get("capacity") and not status.get("allocatable"):
            status["allocatable"] = dict(status["capacity"])

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        """Only ``metadata.name`` and ``spec.unschedulable``, as upstream."""
        unschedulable = bool((obj.get("spec") or {}).get("unschedulable"))
        return {
            "metadata.name": (obj.get("metadata") or {}).get("name", ""),
            "spec.unschedulable": "true" if unschedulable else "false",
        }

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, info = obj["metadata"], (obj.get("status") or {}).get("nodeInfo") or {}
        return [
            meta["name"],
            node_status(obj),
            node_roles(obj),
            age(meta.get("creationTimestamp"), now),
            info.get("kubeletVersion", ""),
            node_address(obj, "InternalIP"),
            node_address(obj, "ExternalIP"),
            info.get("osImage") or "<unknown>",
            info.get("kernelVersion") or "<unknown>",
            info.get("containerRuntimeVersion") or "<unknown>",
        ]

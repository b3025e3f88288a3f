"""What the DaemonSet sync helpers use, built once by the controller, and the pods of one
DaemonSet by the node they target (upstream's ``getNodesToDaemonPods``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from controllers.daemon.backoff import FailedPodsBackoff
from controllers.daemon.util import NoTargetNode, target_node_name
from controllers.history import History
from controllers.podcontrol.control import PodControl
from controllers.podcontrol.expectations import ControllerExpectations
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.events import Recorder

API_VERSION = "apps/v1"
KIND = "DaemonSet"
#: upstream's ``BurstReplicas``: at most this many creates (and deletes) per sync
BURST_REPLICAS = 250

PodsByNode = dict[str, list[Object]]


@dataclass
class DaemonContext:
    client: Client
    recorder: Recorder
    pod_control: PodControl
    expectations: ControllerExpectations
    backoff: FailedPodsBackoff
    clock: Clock
    burst_replicas: int
    controller_ref: Callable[[Object], dict[str, Any]]
    #: requeue a DaemonSet key after a delay (backoff of failed pods, minReadySeconds)
    enqueue_after: Callable[[str, float], None]
    history: History


def pods_by_node(pods: Iterable[Object], include_deleted_terminal: bool) -> PodsByNode:
    """Claimed pods by target node; a terminal pod held by a finalizer while being deleted is
    left out unless asked for (it no longer occupies the node)."""
    by_node: PodsByNode = {}
    for pod in pods:
        phase = (pod.get("status") or {}).get("phase")
        if (
            not include_deleted_terminal
            and phase in ("Succeeded", "Failed")
            and pod["metadata"].get("deletionTimestamp")
        ):
            continue
        try:
            node = target_node_name(pod)
        except NoTargetNode:
            continue
        by_node.setdefault(node, []).append(pod)
    return by_node


def creation_order_key(pod: Object) -> tuple[bool, str, str]:
    """Upstream's ``podByCreationTimestampAndPhase``: scheduled pods first, then oldest, then name."""
    meta = pod["metadata"]
    scheduled = bool((pod.get("spec") or {}).get("nodeName"))
    return (not scheduled, str(meta.get("creationTimestamp") or ""), str(meta.get("name") or ""))

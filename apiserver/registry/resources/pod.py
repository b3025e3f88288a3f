"""Pods: defaulted on create and update, ``Pending`` with a QoS class when created, graceful
deletion for scheduled pods, and upstream's ``kubectl get pods`` row (see ``podprint``)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.ephemeralvalidation import (
    validate_ephemeral_containers,
    validate_main_update,
    validate_pod_create,
)
from apiserver.registry.resources.podprint import pod_cells
from apiserver.registry.resources.podtemplatespec import default_pod_only, default_pod_spec
from apiserver.registry.resources.podvalidation import to_causes, validate_pod
from apiserver.registry.resources.qos import pod_qos_class
from apiserver.registry.strategy import NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import core_pod
from minikube_py.api.unstructured import Object

COLUMNS: list[Column] = [
    NAME_COLUMN,
    ("Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0),
    ("Status", "string", "", "The aggregate status of the containers in this pod.", 0),
    (
        "Restarts",
        "string",
        "",
        "The number of times the containers in this pod have been restarted and when the last "
        "container in this pod has restarted.",
        0,
    ),
    AGE_COLUMN,
    ("IP", "string", "", "podIP address allocated to the pod. Routable at least within the cluster.", 1),
    ("Node", "string", "", "NodeName indicates in which node this pod is scheduled.", 1),
    ("Nominated Node", "string", "", "nominatedNodeName is set when this pod preempts other pods.", 1),
    ("Readiness Gates", "string", "", "If specified, all readiness gates will be evaluated.", 1),
]
SCHEDULING_GATED = {
    "type": "PodScheduled",
    "status": "False",
    "reason": "SchedulingGated",
    "message": "Scheduling is blocked due to non-empty scheduling gates",
}
TERMINAL_PHASES = ("Succeeded", "Failed")
DEFAULT_GRACE_SECONDS = 30


def default_pod(pod: Object) -> None:
    """Upstream's ``SetDefaults_PodSpec`` and ``SetDefaults_Pod``."""
    spec = pod.setdefault("spec", {})
    default_pod_spec(spec)
    default_pod_only(spec)


class PodStrategy(Strategy):
    kinds = (core_pod.Pod,)
    indexed_fields = ("spec.nodeName",)  # each node agent lists fieldSelector=spec.nodeName
    status_field = "status"
    return_deleted_object = True
    columns = COLUMNS

    def prepare_for_create(self, obj: Object) -> None:
        """The status is reset to ``Pending`` with the pod's QoS class (and the
        ``SchedulingGated`` condition while ``spec.schedulingGates`` is not empty)."""
        super().prepare_for_create(obj)
        spec = obj["spec"]
        status: Object = {"phase": "Pending", "qosClass": pod_qos_class(spec)}
        if spec.get("schedulingGates"):
            status["conditions"] = [dict(SCHEDULING_GATED)]
        obj["status"] = status

    def default(self, obj: Object) -> None:
        default_pod(obj)

    def validate(self, obj: Object) -> list[Cause]:
        """A new pod (ephemeral containers come only through ``pods/ephemeralcontainers``)."""
        return self.validate_spec(obj) + to_causes(validate_pod_create(obj))

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return self.validate_spec(new) + to_causes(validate_main_update(new, old))

    def validate_spec(self, obj: Object) -> list[Cause]:
        """The pod's spec, its ephemeral containers included."""
        spec = obj.get("spec") or {}
        return to_causes(validate_pod(obj) + validate_ephemeral_containers(spec))

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        """Upstream's ``ToSelectableFields`` plus the labels its field conversion accepts.

        ``status.podIPs`` is accepted upstream but never filled in, so it always reads empty.
        """
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        ips = status.get("podIPs") or []
        pod_ip = (ips[0].get("ip") if ips else None) or status.get("podIP") or ""
        return {
            **super().selectable_fields(obj),
            "spec.nodeName": spec.get("nodeName") or "",
            "spec.restartPolicy": spec.get("restartPolicy") or "",
            "spec.schedulerName": spec.get("schedulerName") or "",
            "spec.serviceAccountName": spec.get("serviceAccountName") or "",
            "spec.hostNetwork": "true" if spec.get("hostNetwork") else "false",
            "status.phase": status.get("phase") or "",
            "status.podIP": str(pod_ip),
            "status.podIPs": "",
            "status.nominatedNodeName": status.get("nominatedNodeName") or "",
        }

    def graceful_delete_seconds(self, obj: Object) -> int:
        """0 for an unscheduled or finished pod, else its termination grace period (default 30;
        a negative one counts as 1)."""
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if not spec.get("nodeName") or status.get("phase") in TERMINAL_PHASES:
            return 0
        grace = spec.get("terminationGracePeriodSeconds")
        seconds = DEFAULT_GRACE_SECONDS if grace is None else int(grace)
        return 1 if seconds < 0 else seconds

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        return pod_cells(obj, now)

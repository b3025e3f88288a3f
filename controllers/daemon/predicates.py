"""Which nodes run a DaemonSet's pod (upstream's ``NodeShouldRunDaemonPod``): the pod the
DaemonSet would put on the node (its template with the implicit tolerations and that
``nodeName``) must fit the node's name, the template's required node affinity (with
``nodeSelector``) and the node's NoSchedule/NoExecute taints.

``should_run``: a new pod belongs there. ``should_continue_running``: a pod already there may
stay (the node fits but for NoSchedule taints the pod does not tolerate: a taint added after
the pod was placed only evicts through NoExecute)."""

from __future__ import annotations

import copy
from typing import NamedTuple

from controllers.daemon.util import add_daemon_tolerations
from minikube_py.api.unstructured import Object
from minikube_py.scheduling.nodeaffinity import RequiredNodeAffinity
from minikube_py.scheduling.taints import (
    DO_NOT_SCHEDULE_EFFECTS,
    NO_EXECUTE,
    find_untolerated_taint,
    node_taints,
    pod_tolerations,
)


class Placement(NamedTuple):
    should_run: bool
    should_continue_running: bool


NOWHERE = Placement(False, False)


def new_pod(ds: Object, node_name: str) -> Object:
    """The pod ``ds`` would run on ``node_name`` (upstream's ``NewPod``), for predicates only."""
    template = ds["spec"].get("template") or {}
    spec = copy.deepcopy(template.get("spec") or {})
    spec["nodeName"] = node_name
    add_daemon_tolerations(spec)
    meta = dict(template.get("metadata") or {})
    meta["namespace"] = ds["metadata"].get("namespace")
    return {"metadata": meta, "spec": spec}


class DaemonPlacement:
    """``node_should_run_daemon_pod`` for one DaemonSet, with its pod and affinity built once
    (a sync asks for every node)."""

    def __init__(self, ds: Object) -> None:
        template_spec = (ds["spec"].get("template") or {}).get("spec") or {}
        self._template_node = str(template_spec.get("nodeName") or "")
        pod = new_pod(ds, "")
        self._tolerations = pod_tolerations(pod)
        self._affinity = RequiredNodeAffinity.of(pod)

    def of(self, node: Object) -> Placement:
        name = str(node["metadata"].get("name", ""))
        if self._template_node and self._template_node != name:
            return NOWHERE
        if not self._affinity.matches(node):
            return NOWHERE
        taints = node_taints(node)
        if find_untolerated_taint(taints, self._tolerations, DO_NOT_SCHEDULE_EFFECTS) is None:
            return Placement(True, True)
        evicting = find_untolerated_taint(taints, self._tolerations, frozenset({NO_EXECUTE}))
        return Placement(False, evicting is None)


def node_should_run_daemon_pod(node: Object, ds: Object) -> Placement:
    return DaemonPlacement(ds).of(node)

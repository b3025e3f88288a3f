"""DaemonSet pod helpers (upstream's pkg/controller/daemon/util): the implicit tolerations,
the pod template with the generation and revision labels, the per-node affinity, the node a pod
targets, and the rolling-update budgets."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from minikube_py.api.unstructured import Object

#: the label naming the ControllerRevision a pod was made from (``apps.DefaultDaemonSetUniqueLabelKey``)
REVISION_HASH_LABEL = "controller-revision-hash"
#: the label holding the template generation a pod was made from
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
#: the DaemonSet annotation the apiserver keeps the template generation in
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
NODE_NAME_FIELD = "metadata.name"

ROLLING_UPDATE, ON_DELETE = "RollingUpdate", "OnDelete"

_NO_EXECUTE, _NO_SCHEDULE = "NoExecute", "NoSchedule"
#: upstream's ``AddOrUpdateDaemonPodTolerations``: a daemon pod stays on a node that is not
#: ready or unreachable, and lands on one under pressure or cordoned
DAEMON_TOLERATIONS: tuple[tuple[str, str], ...] = (
    ("node.kubernetes.io/not-ready", _NO_EXECUTE),
    ("node.kubernetes.io/unreachable", _NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", _NO_SCHEDULE),
    ("node.kubernetes.io/memory-pressure", _NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", _NO_SCHEDULE),
    ("node.kubernetes.io/unschedulable", _NO_SCHEDULE),
)
HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", _NO_SCHEDULE)


def _same_toleration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Upstream ``Toleration.MatchToleration``: same key, operator, value and effect."""
    return all((a.get(f) or "") == (b.get(f) or "") for f in ("key", "operator", "value", "effect"))


def add_or_update_toleration(spec: dict[str, Any], toleration: dict[str, Any]) -> None:
    tolerations: list[dict[str, Any]] = spec.setdefault("tolerations", [])
    for i, existing in enumerate(tolerations):
        if _same_toleration(existing, toleration):
            tolerations[i] = toleration
            return
    tolerations.append(toleration)


def add_daemon_tolerations(spec: dict[str, Any]) -> None:
    """Add the implicit DaemonSet tolerations to a pod spec (in place)."""
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(HOST_NETWORK_TOLERATION)
    for key, effect in wanted:
        add_or_update_toleration(spec, {"key": key, "operator": "Exists", "effect": effect})


def template_generation(ds: Object) -> int | None:
    """The DaemonSet's template generation annotation (None when absent or not a number)."""
    value = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
    try:
        return int(value) if value else None
    except ValueError:
        return None


def create_pod_template(template: Mapping[str, Any], generation: int | None, hash_: str) -> dict[str, Any]:
    """The template daemon pods are made from: the implicit tolerations, and the
    ``pod-template-generation`` and ``controller-revision-hash`` labels."""
    new = copy.deepcopy(dict(template))
    meta = new.setdefault("metadata", {})
    spec = new.setdefault("spec", {})
    add_daemon_tolerations(spec)
    labels = meta.get("labels") or {}
    meta["labels"] = labels
    if generation is not None:
        labels[TEMPLATE_GENERATION_LABEL] = str(generation)
    if hash_:
        labels[REVISION_HASH_LABEL] = hash_
    return new


def replace_node_name_affinity(affinity: Mapping[str, Any] | None, node_name: str) -> dict[str, Any]:
    """Upstream's ``ReplaceDaemonSetPodNodeNameNodeAffinity``: the required node affinity
    becomes exactly ``metadata.name In [node_name]`` (the controller already checked the
    DaemonSet's own terms against that node), so the scheduler binds the pod there."""
    result = copy.deepcopy(dict(affinity or {}))
    node_affinity = result.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": NODE_NAME_FIELD, "operator": "In", "values": [node_name]}]}
        ]
    }
    return result


class NoTargetNode(ValueError):
    """A daemon pod names no node (neither ``spec.nodeName`` nor a single matchFields name)."""


def target_node_name(pod: Object) -> str:
    """Upstream's ``GetTargetNodeName``: ``spec.nodeName``, else the node its required
    affinity names through ``matchFields metadata.name In [node]``."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    name = f"{pod['metadata'].get('namespace')}/{pod['metadata'].get('name')}"
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = required.get("nodeSelectorTerms") or []
    if not terms:
        raise NoTargetNode(
            "no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            f"nodeSelectorTerms found in pod {pod['metadata'].get('name')}"
        )
    for term in terms:
        for expr in term.get("matchFields") or []:
            if expr.get("key") == NODE_NAME_FIELD and expr.get("operator") == "In":
                values = expr.get("values") or []
                if len(values) != 1:
                    raise NoTargetNode(
                        f"the matchFields value of '{NODE_NAME_FIELD}' is not unique for pod {name}"
                    )
                return str(values[0])
    raise NoTargetNode(f"no node name found for pod {name}")


def is_pod_updated(pod: Object, hash_: str, generation: int | None) -> bool:
    """The pod was made from the current template: its revision hash or its template
    generation label says so."""
    labels = pod["metadata"].get("labels") or {}
    generation_matches = generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == str(generation)
    hash_matches = bool(hash_) and labels.get(REVISION_HASH_LABEL) == hash_
    return hash_matches or generation_matches


def strategy_type(ds: Object) -> str:
    return str((ds["spec"].get("updateStrategy") or {}).get("type") or ROLLING_UPDATE)


def _scaled(value: Any, total: int) -> int:
    """An int-or-percent resolved against ``total``, rounded up (``GetScaledValueFromIntOrPercent``)."""
    if isinstance(value, str):
        if value.endswith("%"):
            return math.ceil(int(value[:-1]) * total / 100)
        return int(value)
    return int(value)


def _rolling_value(ds: Object, field: str, total: int) -> int:
    strategy = ds["spec"].get("updateStrategy") or {}
    if strategy_type(ds) != ROLLING_UPDATE:
        return 0
    value = (strategy.get("rollingUpdate") or {}).get(field)
    return 0 if value is None else _scaled(value, total)


def unavailable_count(ds: Object, number_to_schedule: int) -> int:
    return _rolling_value(ds, "maxUnavailable", number_to_schedule)


def surge_count(ds: Object, number_to_schedule: int) -> int:
    return _rolling_value(ds, "maxSurge", number_to_schedule)

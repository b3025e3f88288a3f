"""The VolumeBinding plugin's volume binder (upstream's ``volumebinding/binder.go``, without
its assume cache): which claims of a pod are bound, delayed (``WaitForFirstConsumer``) or
immediate and unbound; whether a node suits them (bound volumes' node affinity, an Available
volume to bind on the node, or a class that can provision there); and the writes of the
binding cycle (a chosen volume's ``claimRef``, a provisioned claim's
``volume.kubernetes.io/selected-node``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.volumes import (
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    claim_class,
    is_delay_binding_mode,
    requested_storage,
    volume_capacity,
    volume_class,
    volume_mode,
)
from scheduler.plugins.helper.nodeselector import NodeSelector

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"


@dataclass
class PodVolumeClaims:
    """The pod's claims by kind (upstream's ``PodVolumeClaims``)."""

    bound: list[tuple[Object, Object]] = field(default_factory=list)  # (claim, its volume)
    delayed: list[Object] = field(default_factory=list)  # unbound, WaitForFirstConsumer
    classes: dict[str, Object] = field(default_factory=dict)


@dataclass
class PodVolumes:
    """What the binding cycle writes for the chosen node (upstream's ``PodVolumes``)."""

    static_bindings: list[tuple[Object, Object]] = field(default_factory=list)  # (volume, claim)
    dynamic_provisions: list[Object] = field(default_factory=list)


def volume_fits_node(volume: Mapping[str, Any], node: Object | None) -> bool:
    """The volume's ``nodeAffinity.required`` admits the node (no affinity: every node)."""
    required = ((volume.get("spec") or {}).get("nodeAffinity") or {}).get("required")
    if not required:
        return True
    meta = (node or {}).get("metadata") or {}
    return NodeSelector.of(required).matches(meta.get("labels") or {}, str(meta.get("name", "")))


def is_delayed(claim: Object, classes: Mapping[str, Object]) -> bool:
    return is_delay_binding_mode(classes.get(claim_class(claim)))


def _matches(volume: Object, claim: Object, node: Object | None) -> bool:
    spec = claim.get("spec") or {}
    if (volume.get("spec") or {}).get("claimRef") or (volume.get("metadata") or {}).get("deletionTimestamp"):
        return False
    if ((volume.get("status") or {}).get("phase") or "Available") != "Available":
        return False
    if volume_class(volume) != claim_class(claim) or volume_mode(volume) != volume_mode(claim):
        return False
    if not set(spec.get("accessModes") or []) <= set((volume.get("spec") or {}).get("accessModes") or []):
        return False
    if spec.get("selector"):
        labels = (volume.get("metadata") or {}).get("labels") or {}
        if not label_selector_as_selector(spec["selector"]).matches(labels):
            return False
    return volume_capacity(volume) >= requested_storage(claim) and volume_fits_node(volume, node)


def find_matching_volume(volumes: Sequence[Object], claim: Object, node: Object | None) -> Object | None:
    """The smallest Available volume that serves ``claim`` on ``node``."""
    fitting = [v for v in volumes if _matches(v, claim, node)]
    return min(fitting, key=volume_capacity) if fitting else None


def can_provision(claim: Object, classes: Mapping[str, Object], node: Object | None) -> str:
    """ "" when the claim's class can provision a volume on ``node``, else the reason."""
    storage_class = classes.get(claim_class(claim))
    if storage_class is None or storage_class.get("provisioner") in (None, "", NOT_SUPPORTED_PROVISIONER):
        return ERR_REASON_BIND_CONFLICT
    topologies = storage_class.get("allowedTopologies") or []
    if topologies:
        labels = ((node or {}).get("metadata") or {}).get("labels") or {}
        allowed = any(
            all(
                labels.get(e.get("key")) in (e.get("values") or [])
                for e in term.get("matchLabelExpressions") or []
            )
            for term in topologies
        )
        if not allowed:
            return ERR_REASON_BIND_CONFLICT
    return ""


def find_pod_volumes(
    claims: PodVolumeClaims, volumes: Sequence[Object], node: Object | None
) -> tuple[PodVolumes, list[str]]:
    """Upstream's ``FindPodVolumes``: what binding the pod on ``node`` needs, and the
    reasons (empty when it fits)."""
    reasons: list[str] = []
    if any(not volume_fits_node(volume, node) for _claim, volume in claims.bound):
        reasons.append(ERR_REASON_NODE_CONFLICT)
    result = PodVolumes()
    chosen: set[str] = set()
    node_name = str(((node or {}).get("metadata") or {}).get("name", ""))
    for claim in claims.delayed:
        selected = ((claim.get("metadata") or {}).get("annotations") or {}).get(ANN_SELECTED_NODE)
        if selected and selected != node_name:
            reasons.append(ERR_REASON_BIND_CONFLICT)  # being provisioned for another node
            break
        free = [v for v in volumes if v["metadata"]["name"] not in chosen]
        volume = find_matching_volume(free, claim, node)
        if volume is not None:
            chosen.add(volume["metadata"]["name"])
            result.static_bindings.append((volume, claim))
        elif why := can_provision(claim, claims.classes, node):
            reasons.append(why)
            break
        else:
            result.dynamic_provisions.append(claim)
    return result, sorted(set(reasons))

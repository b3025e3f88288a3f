"""VolumeBinding (PreFilter/Filter): pods without PersistentVolumeClaims (emptyDir, hostPath,
configMap... volumes) are not its business (Skip). Claims are looked up through the optional
``handle.pvc_lister`` (``(namespace, name) -> claim | None``): a missing claim or one
not yet bound makes the pod unresolvable until a claim or volume event. Dynamic provisioning
and volume node affinity are not modelled; without a lister every claim counts as unbound."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minikube_py.api.unstructured import Object
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from scheduler.framework.interface import Handle, PreFilterResult, PVCLister
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo
from scheduler.plugins.events import NODE, PV, PVC, STORAGE_CLASS

ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
_PRE_FILTER_KEY = "PreFilterVolumeBinding"


def claim_names(pod: Object) -> list[str]:
    meta = pod.get("metadata") or {}
    out = []
    for volume in (pod.get("spec") or {}).get("volumes") or []:
        if volume.get("persistentVolumeClaim"):
            out.append(str(volume["persistentVolumeClaim"].get("claimName", "")))
        elif volume.get("ephemeral"):
            out.append(f"{meta.get('name', '')}-{volume.get('name', '')}")
    return out


def is_bound(claim: Object) -> bool:
    return (
        bool((claim.get("spec") or {}).get("volumeName"))
        or (claim.get("status") or {}).get("phase") == "Bound"
    )


class VolumeBinding(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Events: claims, volumes and storage classes added or updated, a node added or its
    labels changed."""

    name = "VolumeBinding"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.pvc_lister: PVCLister | None = handle.pvc_lister

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        claims = claim_names(pod)
        if not claims:
            return None, Status.skip()
        namespace = str((pod.get("metadata") or {}).get("namespace", ""))
        for name in claims:
            claim = self.pvc_lister(namespace, name) if self.pvc_lister is not None else None
            if claim is None and self.pvc_lister is not None:
                return None, Status.unresolvable(f'persistentvolumeclaim "{name}" not found')
            if claim is None or not is_bound(claim):
                return None, Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        state.write(_PRE_FILTER_KEY, claims)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        return SUCCESS  # bound claims only; their volumes' node affinity is not modelled

    def events_to_register(self) -> list[ClusterEvent]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEvent(PVC, add_update, "PersistentVolumeClaimAddOrUpdate"),
            ClusterEvent(PV, add_update, "PersistentVolumeAddOrUpdate"),
            ClusterEvent(STORAGE_CLASS, add_update, "StorageClassAddOrUpdate"),
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, "NodeAddOrLabelChange"),
        ]

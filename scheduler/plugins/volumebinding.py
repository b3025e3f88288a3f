"""VolumeBinding (PreFilter/Filter/Reserve/PreBind, upstream's ``volumebinding``): pods
without PersistentVolumeClaims are not its business (Skip).

- PreFilter sorts the pod's claims through the handle's listers: a missing or deleting
  claim, or an unbound claim of an ``Immediate`` class (the PV controller binds those on its
  own), makes the pod unresolvable until a claim, volume or class event; bound claims and
  unbound ``WaitForFirstConsumer`` ("delayed") claims go on.
- Filter: a bound claim's volume must admit the node (``nodeAffinity``); a delayed claim needs
  an Available volume that does, or a class that can provision there.
- Reserve records, for the chosen node, the volumes to bind and the claims to provision.
- PreBind writes them (a volume's ``claimRef``; a claim's
  ``volume.kubernetes.io/selected-node``, which starts the provisioner) and waits until every
  claim is bound (at most ``bindTimeoutSeconds``, 600 by default), so the pod reaches its
  node only with its volumes ready.

Without listers (a handle built without a scheduler) every claim counts as unbound. Not
modelled: upstream's assume cache (two pods reserving one Available volume in the same
instant: the second binding fails and that pod is retried) and CSI storage capacity."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES
from minikube_py.clock import Clock
from minikube_py.volumes import ANN_SELECTED_NODE, claim_class
from scheduler.framework.cyclestate import CycleState
from scheduler.framework.extensionpoints import (
    EnqueueExtensions,
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    ReservePlugin,
    UnreservePlugin,
)
from scheduler.framework.interface import Handle, PreFilterResult
from scheduler.framework.status import SUCCESS, Status
from scheduler.framework.types import ActionType, ClusterEvent, NodeInfo
from scheduler.plugins.events import NODE, PV, PVC, STORAGE_CLASS
from scheduler.plugins.volumebinder import PodVolumeClaims, PodVolumes, find_pod_volumes, is_delayed

ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
BIND_TIMEOUT_SECONDS = 600
_STATE_KEY = "PreFilterVolumeBinding"
_RESERVED_KEY = "ReserveVolumeBinding"
_POLL = 0.2


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
    return bool((claim.get("spec") or {}).get("volumeName"))


class VolumeBinding(
    PreFilterPlugin, FilterPlugin, ReservePlugin, UnreservePlugin, PreBindPlugin, EnqueueExtensions
):
    """Events: claims, volumes and storage classes added or updated, a node added or its
    labels changed."""

    name = "VolumeBinding"

    def __init__(self, args: dict[str, Any], handle: Handle) -> None:
        self.handle = handle
        self.bind_timeout = float(args.get("bindTimeoutSeconds", BIND_TIMEOUT_SECONDS))

    def pre_filter(
        self, state: CycleState, pod: Object, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        names = claim_names(pod)
        if not names:
            return None, Status.skip()
        handle = self.handle
        if handle.pvc_lister is None:
            return None, Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        namespace = str((pod.get("metadata") or {}).get("namespace", ""))
        claims = PodVolumeClaims()
        for name in names:
            claim = handle.pvc_lister(namespace, name)
            if claim is None:
                return None, Status.unresolvable(f'persistentvolumeclaim "{name}" not found')
            if (claim.get("metadata") or {}).get("deletionTimestamp"):
                return None, Status.unresolvable(f'persistentvolumeclaim "{name}" is being deleted')
            class_name = claim_class(claim)
            found = (
                handle.storage_class_lister(class_name)
                if handle.storage_class_lister and class_name
                else None
            )
            if found is not None:
                claims.classes[class_name] = found
            if is_bound(claim):
                volume = self._volume(str(claim["spec"]["volumeName"]))
                if volume is None:
                    return None, Status.unresolvable(
                        f'persistentvolume "{claim["spec"]["volumeName"]}" not found'
                    )
                claims.bound.append((claim, volume))
            elif is_delayed(claim, claims.classes):
                claims.delayed.append(claim)
            else:
                return None, Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        state.write(_STATE_KEY, claims)
        return None, SUCCESS

    def _volume(self, name: str) -> Object | None:
        volumes = self.handle.pv_lister() if self.handle.pv_lister is not None else []
        return next((v for v in volumes if v["metadata"]["name"] == name), None)

    def _volumes(self) -> Sequence[Object]:
        return self.handle.pv_lister() if self.handle.pv_lister is not None else []

    def filter(self, state: CycleState, pod: Object, node_info: NodeInfo) -> Status:
        claims = state.get(_STATE_KEY)
        if not isinstance(claims, PodVolumeClaims):
            return SUCCESS
        _volumes, reasons = find_pod_volumes(claims, self._volumes(), node_info.node)
        return Status.unschedulable(*reasons) if reasons else SUCCESS

    def reserve(self, state: CycleState, pod: Object, node_name: str) -> Status:
        claims = state.get(_STATE_KEY)
        if not isinstance(claims, PodVolumeClaims):
            return SUCCESS
        node = self.handle.snapshot.get(node_name)
        volumes, reasons = find_pod_volumes(claims, self._volumes(), node.node if node is not None else None)
        if reasons:
            return Status.unschedulable(*reasons)
        state.write(_RESERVED_KEY, volumes)
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Object, node_name: str) -> None:
        state.write(_RESERVED_KEY, None)

    async def pre_bind(self, state: CycleState, pod: Object, node_name: str) -> Status:
        volumes = state.get(_RESERVED_KEY)
        if not isinstance(volumes, PodVolumes) or not (volumes.static_bindings or volumes.dynamic_provisions):
            return SUCCESS
        try:
            written = await bind_pod_volumes(self.handle.client, volumes, node_name)
        except ApiError as err:
            return Status.as_error(err)
        return await self._wait_bound(volumes, node_name, written)

    async def _wait_bound(self, volumes: PodVolumes, node_name: str, written: dict[str, int]) -> Status:
        """Upstream's ``checkBindings`` loop: done when every claim has its volume."""
        clock: Clock = self.handle.clock
        deadline = clock.monotonic() + self.bind_timeout
        claims = [claim for _v, claim in volumes.static_bindings] + volumes.dynamic_provisions
        while True:
            pending = [c for c in claims if not self._claim_bound(c)]
            if not pending:
                return SUCCESS
            for claim in pending:
                current = self._current(claim)
                if current is None:
                    return Status.as_error(
                        RuntimeError(f'persistentvolumeclaim "{claim["metadata"]["name"]}" not found')
                    )
                meta = current.get("metadata") or {}
                annotations = meta.get("annotations") or {}
                # the informer may not have our own write yet: only a newer claim can reset it
                newer = _revision(meta) >= written.get(str(meta.get("name")), 0)
                if (
                    claim in volumes.dynamic_provisions
                    and newer
                    and annotations.get(ANN_SELECTED_NODE) != node_name
                ):
                    name = claim["metadata"]["name"]
                    return Status.as_error(RuntimeError(f"claim {name} selectedNode annotation reset"))
            if clock.monotonic() >= deadline:
                return Status.as_error(TimeoutError("binding volumes: timed out waiting for the condition"))
            await clock.sleep(_POLL)

    def _current(self, claim: Object) -> Object | None:
        meta = claim["metadata"]
        lister = self.handle.pvc_lister
        return lister(meta["namespace"], meta["name"]) if lister is not None else None

    def _claim_bound(self, claim: Object) -> bool:
        current = self._current(claim)
        return current is not None and is_bound(current)

    def events_to_register(self) -> list[ClusterEvent]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEvent(PVC, add_update, "PersistentVolumeClaimAddOrUpdate"),
            ClusterEvent(PV, add_update, "PersistentVolumeAddOrUpdate"),
            ClusterEvent(STORAGE_CLASS, add_update, "StorageClassAddOrUpdate"),
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, "NodeAddOrLabelChange"),
        ]


def _revision(meta: dict[str, Any]) -> int:
    try:
        return int(meta.get("resourceVersion") or 0)
    except ValueError:
        return 0


async def bind_pod_volumes(client: Client, volumes: PodVolumes, node_name: str) -> dict[str, int]:
    """Upstream's ``BindPodVolumes`` writes: pre-bind each chosen volume to its claim, and
    hand each claim to provision to its provisioner for ``node_name``. Returns the
    resourceVersion of each claim written, by name."""
    written: dict[str, int] = {}
    for volume, claim in volumes.static_bindings:
        meta = claim["metadata"]
        ref = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": meta["namespace"]}
        ref.update(
            name=meta["name"], uid=meta.get("uid", ""), resourceVersion=meta.get("resourceVersion", "")
        )
        patch = {
            "metadata": {"resourceVersion": volume["metadata"].get("resourceVersion")},
            "spec": {"claimRef": ref},
        }
        await client.resource(PERSISTENTVOLUMES).patch(volume["metadata"]["name"], patch)
    for claim in volumes.dynamic_provisions:
        annotations = (claim.get("metadata") or {}).get("annotations") or {}
        if annotations.get(ANN_SELECTED_NODE) == node_name:
            continue
        patch = {"metadata": {"annotations": {**copy.deepcopy(annotations), ANN_SELECTED_NODE: node_name}}}
        claims = client.resource(PERSISTENTVOLUMECLAIMS, claim["metadata"]["namespace"])
        patched = await claims.patch(claim["metadata"]["name"], patch)
        written[claim["metadata"]["name"]] = _revision(patched.get("metadata") or {})
    return written

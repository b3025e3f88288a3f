"""``sync_claim`` (upstream's ``syncClaim``, ``syncUnboundClaim``, ``syncBoundClaim`` and
``provisionClaim``): a claim without ``pv.kubernetes.io/bind-completed`` is bound to the
volume ``find_best_match_for_claim`` picks, waits for its first consumer, or is handed to
its class's (external) provisioner by annotation; a bound claim whose volume is gone or
taken becomes ``Lost``."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from controllers.volume.persistentvolume.binder import Binder
from controllers.volume.persistentvolume.index import check_volume_satisfy_claim, find_best_match_for_claim
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS
from minikube_py.events import Recorder
from minikube_py.volumes import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    NOT_SUPPORTED_PROVISIONER,
    annotations_of,
    claim_class,
    is_delay_binding_mode,
)

WAITING_FOR_FIRST_CONSUMER = "waiting for first consumer to be created before binding"
NO_VOLUMES_NO_CLASS = "no persistent volumes available for this claim and no storage class is set"
CLAIM_LOST_REFERENCE = "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!"
CLAIM_LOST_VOLUME = "Bound claim has lost its PersistentVolume. Data on the volume is lost!"
CLAIM_MISBOUND = "Two claims are bound to the same volume, this one is bound incorrectly"


def external_provisioning_message(provisioner: str) -> str:
    return (
        f"Waiting for a volume to be created either by the external provisioner '{provisioner}' "
        "or manually by the system administrator. If volume creation is delayed, please verify "
        "that the provisioner is running and correctly registered."
    )


@dataclass
class ClaimSyncContext:
    volumes: Indexer
    classes: Indexer
    binder: Binder
    recorder: Recorder


async def sync_claim(ctx: ClaimSyncContext, claim: Object) -> None:
    if annotations_of(claim).get(ANN_BIND_COMPLETED):
        await sync_bound_claim(ctx, claim)
    else:
        await sync_unbound_claim(ctx, claim)


async def sync_unbound_claim(ctx: ClaimSyncContext, claim: Object) -> None:
    volume_name = (claim.get("spec") or {}).get("volumeName") or ""
    if not volume_name:
        await _sync_unbound_unnamed(ctx, claim)
        return
    volume = ctx.volumes.get_by_key(volume_name)
    if volume is None:  # pre-bound to a volume that does not exist (yet)
        await ctx.binder.update_claim_status(claim, "Pending", None)
        return
    ref = (volume.get("spec") or {}).get("claimRef")
    if not ref or _ref_is_claim(ref, claim):
        if why := check_volume_satisfy_claim(volume, claim):
            ctx.recorder.event(
                claim, "Warning", "VolumeMismatch", f'Cannot bind to requested volume "{volume_name}": {why}'
            )
            await ctx.binder.update_claim_status(claim, "Pending", None)
            return
        await ctx.binder.bind(volume, claim)
        return
    ctx.recorder.event(
        claim, "Warning", "FailedBinding", f'volume "{volume_name}" already bound to a different claim.'
    )
    await ctx.binder.update_claim_status(claim, "Pending", None)


def _ref_is_claim(ref: dict[str, str], claim: Object) -> bool:
    meta = claim["metadata"]
    named = ref.get("name") == meta["name"] and ref.get("namespace") == meta.get("namespace")
    return named and (not ref.get("uid") or ref.get("uid") == meta.get("uid"))


async def _sync_unbound_unnamed(ctx: ClaimSyncContext, claim: Object) -> None:
    class_name = claim_class(claim)
    storage_class = ctx.classes.get_by_key(class_name) if class_name else None
    delay = is_delay_binding_mode(storage_class)
    volume = find_best_match_for_claim(ctx.volumes.list(), claim, delay)
    if volume is not None:
        await ctx.binder.bind(volume, claim)
        return
    if delay and ANN_SELECTED_NODE not in annotations_of(claim):
        ctx.recorder.event(claim, "Normal", "WaitForFirstConsumer", WAITING_FOR_FIRST_CONSUMER)
    elif class_name:
        claim = await provision_claim(ctx, claim, class_name, storage_class)
    else:
        ctx.recorder.event(claim, "Normal", "FailedBinding", NO_VOLUMES_NO_CLASS)
    await ctx.binder.update_claim_status(claim, "Pending", None)


async def provision_claim(
    ctx: ClaimSyncContext, claim: Object, class_name: str, storage_class: Object | None
) -> Object:
    """No in-tree volume plugins here: every provisioner is external, told by annotation."""
    if storage_class is None:
        message = f'storageclass.storage.k8s.io "{class_name}" not found'
        ctx.recorder.event(claim, "Warning", "ProvisioningFailed", message)
        return claim
    provisioner = str(storage_class.get("provisioner") or "")
    if provisioner == NOT_SUPPORTED_PROVISIONER:
        return claim  # upstream: such a class is for pre-created (local) volumes only
    if annotations_of(claim).get(ANN_STORAGE_PROVISIONER) != provisioner:
        updated = copy.deepcopy(claim)
        updated["metadata"]["annotations"] = dict(
            updated["metadata"].get("annotations") or {},
            **{ANN_STORAGE_PROVISIONER: provisioner, ANN_BETA_STORAGE_PROVISIONER: provisioner},
        )
        namespace = claim["metadata"]["namespace"]
        claim = await ctx.binder.client.resource(PERSISTENTVOLUMECLAIMS, namespace).update(updated)
        ctx.binder.claims.update(claim)
    ctx.recorder.event(claim, "Normal", "ExternalProvisioning", external_provisioning_message(provisioner))
    return claim


async def sync_bound_claim(ctx: ClaimSyncContext, claim: Object) -> None:
    volume_name = (claim.get("spec") or {}).get("volumeName") or ""
    if not volume_name:
        await _claim_lost(ctx, claim, "ClaimLost", CLAIM_LOST_REFERENCE)
        return
    volume = ctx.volumes.get_by_key(volume_name)
    if volume is None:
        await _claim_lost(ctx, claim, "ClaimLost", CLAIM_LOST_VOLUME)
        return
    ref = (volume.get("spec") or {}).get("claimRef")
    if not ref or ref.get("uid") == claim["metadata"].get("uid"):
        await ctx.binder.bind(volume, claim)  # finish (or repair) the binding
        return
    await _claim_lost(ctx, claim, "ClaimMisbound", CLAIM_MISBOUND)


async def _claim_lost(ctx: ClaimSyncContext, claim: Object, reason: str, message: str) -> None:
    if (claim.get("status") or {}).get("phase") != "Lost":
        ctx.recorder.event(claim, "Warning", reason, message)
    await ctx.binder.update_claim_status(claim, "Lost", None)

"""``sync_volume`` (upstream's ``syncVolume`` and ``reclaimVolume``): a volume without a
claim is ``Available``; one whose claim is gone (or is a new claim of the same name) is
``Released`` and reclaimed by its policy: ``Retain`` keeps it, ``Delete`` leaves it to the
provisioner named by ``pv.kubernetes.io/provisioned-by`` (every provisioner is external
here; a volume nobody provisioned cannot be deleted and ``Failed``), ``Recycle`` has no
recycler and ``Failed``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controllers.volume.persistentvolume.binder import Binder
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer
from minikube_py.volumes import ANN_BOUND_BY_CONTROLLER, ANN_DYNAMICALLY_PROVISIONED, annotations_of

NO_RECYCLER = "No recycler plugin found for the volume!"


@dataclass
class VolumeSyncContext:
    claims: Indexer
    binder: Binder
    enqueue_claim: Callable[[str], None]


async def sync_volume(ctx: VolumeSyncContext, volume: Object) -> None:
    ref = (volume.get("spec") or {}).get("claimRef")
    if not ref:
        await ctx.binder.update_volume_phase(volume, "Available", "")
        return
    if not ref.get("uid"):  # pre-bound by a user to a claim that has not bound yet
        await ctx.binder.update_volume_phase(volume, "Available", "")
        ctx.enqueue_claim(f"{ref.get('namespace')}/{ref.get('name')}")
        return
    claim = ctx.claims.get_by_key(f"{ref.get('namespace')}/{ref.get('name')}")
    if claim is not None and claim["metadata"].get("uid") != ref.get("uid"):
        claim = None  # the claim was deleted and another of the same name created
    if claim is None:
        await release_volume(ctx, volume)
        return
    claimed = (claim.get("spec") or {}).get("volumeName") or ""
    if not claimed:
        ctx.enqueue_claim(f"{ref.get('namespace')}/{ref.get('name')}")  # binding half done
        return
    if claimed == volume["metadata"]["name"]:
        await ctx.binder.update_volume_phase(volume, "Bound", "")
        return
    # the claim is bound to another volume
    if ANN_DYNAMICALLY_PROVISIONED in annotations_of(volume) and _policy(volume) == "Delete":
        await release_volume(ctx, volume)
    elif ANN_BOUND_BY_CONTROLLER in annotations_of(volume):
        await ctx.binder.unbind_volume(volume)


def _policy(volume: Object) -> str:
    return str((volume.get("spec") or {}).get("persistentVolumeReclaimPolicy") or "Retain")


async def release_volume(ctx: VolumeSyncContext, volume: Object) -> None:
    phase = (volume.get("status") or {}).get("phase")
    if phase not in ("Released", "Failed"):
        volume = await ctx.binder.update_volume_phase(volume, "Released", "")
    await reclaim_volume(ctx, volume)


async def reclaim_volume(ctx: VolumeSyncContext, volume: Object) -> None:
    if (volume.get("status") or {}).get("phase") == "Failed":
        return
    policy = _policy(volume)
    if policy == "Recycle":
        await ctx.binder.update_volume_phase(
            volume, "Failed", NO_RECYCLER, ("Warning", "VolumeFailedRecycle")
        )
    elif policy == "Delete" and ANN_DYNAMICALLY_PROVISIONED not in annotations_of(volume):
        name = volume["metadata"]["name"]
        message = f'error getting deleter volume plugin for volume "{name}": no volume plugin matched'
        await ctx.binder.update_volume_phase(volume, "Failed", message, ("Warning", "VolumeFailedDelete"))
    # Retain: kept Released for an administrator; Delete: the external provisioner deletes it

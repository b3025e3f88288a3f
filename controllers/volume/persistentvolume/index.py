"""Which volume a claim binds to (upstream's ``persistentvolume/index.go`` and
``volume.FindMatchingVolume``): a volume pre-bound to the claim wins; otherwise the smallest
Available volume of the claim's class, access modes, volume mode, selector and at least its
requested size. With delayed binding (``WaitForFirstConsumer``) only pre-bound volumes
match: the scheduler picks the others, knowing the node."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from minikube_py.api.labels import label_selector_as_selector
from minikube_py.api.unstructured import Object
from minikube_py.volumes import (
    claim_class,
    claim_ref_matches,
    requested_storage,
    volume_capacity,
    volume_class,
    volume_mode,
)


def access_modes_satisfied(wanted: Iterable[str], volume: Mapping[str, Any]) -> bool:
    have = set((volume.get("spec") or {}).get("accessModes") or [])
    return set(wanted) <= have


def check_volume_satisfy_claim(volume: Mapping[str, Any], claim: Mapping[str, Any]) -> str:
    """Why ``volume`` cannot serve ``claim`` ("" when it can): upstream's
    ``checkVolumeSatisfyClaim`` messages."""
    if volume_capacity(volume) < requested_storage(claim):
        return "requested PV is too small"
    if volume_class(volume) != claim_class(claim):
        return "storageClassName does not match"
    if volume_mode(volume) != volume_mode(claim):
        return "incompatible volumeMode"
    if not access_modes_satisfied((claim.get("spec") or {}).get("accessModes") or [], volume):
        return "incompatible accessMode"
    return ""


def find_best_match_for_claim(
    volumes: Iterable[Object], claim: Mapping[str, Any], delay_binding: bool
) -> Object | None:
    """The volume ``claim`` should bind to, or None."""
    spec = claim.get("spec") or {}
    selector = label_selector_as_selector(spec.get("selector")) if spec.get("selector") else None
    wanted_modes = spec.get("accessModes") or []
    request = requested_storage(claim)
    best: Object | None = None
    for volume in volumes:
        if (volume.get("metadata") or {}).get("deletionTimestamp"):
            continue
        if claim_ref_matches(volume, claim):  # pre-bound: the only candidate that matters
            return volume if not check_volume_satisfy_claim(volume, claim) else None
        if (volume.get("spec") or {}).get("claimRef") or delay_binding:
            continue
        if ((volume.get("status") or {}).get("phase") or "Available") != "Available":
            continue
        if volume_class(volume) != claim_class(claim) or volume_mode(volume) != volume_mode(claim):
            continue
        labels = (volume.get("metadata") or {}).get("labels") or {}
        if selector is not None and not selector.matches(labels):
            continue
        if not access_modes_satisfied(wanted_modes, volume) or volume_capacity(volume) < request:
            continue
        if best is None or volume_capacity(volume) < volume_capacity(best):
            best = volume
    return best

"""The binder's writes (upstream's ``bind``, ``bindVolumeToClaim``, ``bindClaimToVolume``,
``updateClaimStatus``, ``updateVolumePhase``, ``unbindVolume``). Each write goes to the API
with the object's resourceVersion (a stale cache gives a 409 and the key is retried) and the
answer replaces the informer's copy at once, so the next sync of the other object of the pair
does not act on what the watch has not delivered yet (upstream keeps its own caches for the
same reason)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PERSISTENTVOLUMES
from minikube_py.events import Recorder
from minikube_py.volumes import ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, claim_ref_matches


def _annotate(obj: Object, key: str, value: str) -> None:
    obj["metadata"].setdefault("annotations", {})
    obj["metadata"]["annotations"] = dict(obj["metadata"]["annotations"] or {}, **{key: value})


def claim_reference(claim: Object) -> dict[str, Any]:
    meta = claim["metadata"]
    return {
        "kind": "PersistentVolumeClaim",
        "namespace": meta["namespace"],
        "name": meta["name"],
        "uid": meta.get("uid", ""),
        "apiVersion": "v1",
        "resourceVersion": meta.get("resourceVersion", ""),
    }


class Binder:
    """Writes claims and volumes for the sync functions."""

    def __init__(self, client: Client, recorder: Recorder, volumes: Indexer, claims: Indexer) -> None:
        self.client, self.recorder = client, recorder
        self.volumes, self.claims = volumes, claims
        self.claim_written: Callable[[Object], None] = lambda _claim: None

    async def bind(self, volume: Object, claim: Object) -> None:
        """Both halves of a binding, then both statuses (each step a no-op when done)."""
        volume = await self.bind_volume_to_claim(volume, claim)
        volume = await self.update_volume_phase(volume, "Bound", "")
        claim = await self.bind_claim_to_volume(claim, volume)
        await self.update_claim_status(claim, "Bound", volume)

    async def bind_volume_to_claim(self, volume: Object, claim: Object) -> Object:
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        if claim_ref_matches(volume, claim) and ref.get("uid"):
            return volume
        updated = copy.deepcopy(volume)
        updated["spec"]["claimRef"] = claim_reference(claim)
        if not ref:  # the controller chose this volume; a user's pre-binding stays the user's
            _annotate(updated, ANN_BOUND_BY_CONTROLLER, "yes")
        return await self._write_volume(updated)

    async def bind_claim_to_volume(self, claim: Object, volume: Object) -> Object:
        spec, annotations = claim.get("spec") or {}, claim["metadata"].get("annotations") or {}
        name = volume["metadata"]["name"]
        if spec.get("volumeName") == name and annotations.get(ANN_BIND_COMPLETED) == "yes":
            return claim
        updated = copy.deepcopy(claim)
        if spec.get("volumeName") != name:
            updated["spec"]["volumeName"] = name
            _annotate(updated, ANN_BOUND_BY_CONTROLLER, "yes")
        _annotate(updated, ANN_BIND_COMPLETED, "yes")
        return await self._write_claim(updated)

    async def update_claim_status(self, claim: Object, phase: str, volume: Object | None) -> Object:
        status = dict(claim.get("status") or {})
        wanted = dict(status, phase=phase)
        if volume is not None:
            wanted["accessModes"] = list((volume.get("spec") or {}).get("accessModes") or [])
            wanted["capacity"] = dict((volume.get("spec") or {}).get("capacity") or {})
        elif phase != "Bound":
            wanted.pop("accessModes", None)
            wanted.pop("capacity", None)
        if wanted == status:
            return claim
        updated = dict(copy.deepcopy(claim), status=wanted)
        written = await self.client.resource(
            PERSISTENTVOLUMECLAIMS, claim["metadata"]["namespace"]
        ).update_status(updated)
        self.claims.update(written)
        return written

    async def update_volume_phase(
        self, volume: Object, phase: str, message: str, event: tuple[str, str] | None = None
    ) -> Object:
        """``event`` = (type, reason): recorded with ``message`` when the phase changes."""
        status = volume.get("status") or {}
        if status.get("phase") == phase:
            return volume
        updated = copy.deepcopy(volume)
        updated["status"] = {"phase": phase}
        if message:
            updated["status"]["message"] = message
        written = await self.client.resource(PERSISTENTVOLUMES).update_status(updated)
        self.volumes.update(written)
        if event is not None:
            self.recorder.event(written, event[0], event[1], message)
        return written

    async def unbind_volume(self, volume: Object) -> Object:
        """A volume the controller bound to a claim that now has another: free it again."""
        updated = copy.deepcopy(volume)
        annotations = dict(updated["metadata"].get("annotations") or {})
        if annotations.pop(ANN_BOUND_BY_CONTROLLER, None) is not None:
            updated["spec"].pop("claimRef", None)
        else:
            updated["spec"]["claimRef"]["uid"] = ""  # pre-bound by a user: keep the name only
        updated["metadata"]["annotations"] = annotations
        written = await self._write_volume(updated)
        return await self.update_volume_phase(written, "Available", "")

    async def _write_volume(self, volume: Object) -> Object:
        written = await self.client.resource(PERSISTENTVOLUMES).update(volume)
        self.volumes.update(written)
        return written

    async def _write_claim(self, claim: Object) -> Object:
        written = await self.client.resource(PERSISTENTVOLUMECLAIMS, claim["metadata"]["namespace"]).update(
            claim
        )
        self.claims.update(written)
        self.claim_written(written)
        return written

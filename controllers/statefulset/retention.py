"""``persistentVolumeClaimRetentionPolicy`` as owner references on a member's claims
(upstream's ``claimOwnerMatchesSetAndPod``/``updateClaimOwnerRefForSetAndPod``).

The garbage collector does the deleting: a claim owned by the set goes with the set
(``whenDeleted: Delete``), a claim owned by its pod goes with the pod, which is how a claim of
a scaled-down member goes (``whenScaled: Delete``). The references are plain owners (not
controllers), so a claim can carry both and nothing adopts it.

| whenDeleted / whenScaled | member in range | member condemned (scaled down) |
|---|---|---|
| Retain / Retain | neither | neither |
| Delete / Retain | set | set |
| Retain / Delete | neither | pod |
| Delete / Delete | set | pod |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controllers.statefulset.identity import in_ordinal_range
from minikube_py.api.unstructured import Object

RETAIN = "Retain"
DELETE = "Delete"


def retention_policy(sts: Object) -> tuple[str, str]:
    """(whenDeleted, whenScaled); anything but ``Delete`` counts as ``Retain``, as upstream
    treats an unknown policy."""
    policy = sts["spec"].get("persistentVolumeClaimRetentionPolicy") or {}
    when_deleted = DELETE if policy.get("whenDeleted") == DELETE else RETAIN
    when_scaled = DELETE if policy.get("whenScaled") == DELETE else RETAIN
    return when_deleted, when_scaled


def wanted_owners(sts: Object, pod: Object) -> tuple[bool, bool]:
    """(claim should be owned by the set, claim should be owned by the pod)."""
    when_deleted, when_scaled = retention_policy(sts)
    condemned = not in_ordinal_range(pod, sts)
    wants_pod = when_scaled == DELETE and condemned
    wants_set = when_deleted == DELETE and not wants_pod
    return wants_set, wants_pod


def has_owner_ref(claim: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    uid = (owner.get("metadata") or {}).get("uid")
    return any(r.get("uid") == uid for r in (claim.get("metadata") or {}).get("ownerReferences") or [])


def claim_owner_matches(claim: Object, sts: Object, pod: Object) -> bool:
    wants_set, wants_pod = wanted_owners(sts, pod)
    return has_owner_ref(claim, sts) == wants_set and has_owner_ref(claim, pod) == wants_pod


def _owner_ref(owner: Mapping[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    meta = owner["metadata"]
    return {"apiVersion": api_version, "kind": kind, "name": meta["name"], "uid": meta["uid"]}


def update_claim_owner_refs(claim: Object, sts: Object, pod: Object) -> bool:
    """Make ``claim``'s references to ``sts`` and ``pod`` what the policy wants; True if changed.
    A pod not yet created (no uid) cannot be referenced and is left out."""
    wants_set, wants_pod = wanted_owners(sts, pod)
    meta = claim["metadata"]
    refs: list[dict[str, Any]] = list(meta.get("ownerReferences") or [])
    before = list(refs)
    refs = _set_ref(refs, sts, wants_set, "apps/v1", "StatefulSet")
    if pod["metadata"].get("uid"):
        refs = _set_ref(refs, pod, wants_pod, "v1", "Pod")
    if refs == before:
        return False
    meta["ownerReferences"] = refs
    return True


def _set_ref(
    refs: list[dict[str, Any]], owner: Mapping[str, Any], wanted: bool, api_version: str, kind: str
) -> list[dict[str, Any]]:
    uid = owner["metadata"]["uid"]
    present = any(r.get("uid") == uid for r in refs)
    if wanted and not present:
        return [*refs, _owner_ref(owner, api_version, kind)]
    if not wanted and present:
        return [r for r in refs if r.get("uid") != uid]
    return refs


def is_stale_claim(claim: Mapping[str, Any], pod: Object) -> bool:
    """The claim is owned by an earlier pod of the same name: it is about to be collected, so
    the new pod must wait rather than bind to it (upstream's ``PodClaimIsStale``)."""
    meta = pod["metadata"]
    return any(
        ref.get("kind") == "Pod" and ref.get("name") == meta.get("name") and ref.get("uid") != meta.get("uid")
        for ref in (claim.get("metadata") or {}).get("ownerReferences") or []
    )

"""Pod and claim writes for a StatefulSet, with upstream's events (``StatefulPodControl``).

Events (on the set): ``SuccessfulCreate`` "create Pod web-0 in StatefulSet web successful",
``FailedCreate`` "create Pod web-0 in StatefulSet web failed error: ...", the same for
``delete``/``update``, and for claims ``SuccessfulCreate`` "create Claim www-web-0 Pod web-0 in
StatefulSet web success" / ``FailedCreate`` "create Claim www-web-0 for Pod web-0 in
StatefulSet web failed error: ...".
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from controllers.statefulset import identity as ident
from controllers.statefulset.retention import (
    DELETE,
    claim_owner_matches,
    is_stale_claim,
    retention_policy,
    update_claim_owner_refs,
)
from minikube_py.api.errors import ApiError
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import Indexer
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import PERSISTENTVOLUMECLAIMS, PODS
from minikube_py.events import Recorder

MAX_UPDATE_RETRIES = 10


class StatefulPodControl:
    def __init__(self, client: Client, recorder: Recorder, claims: Indexer) -> None:
        self._client = client
        self._recorder = recorder
        self._claims = claims

    # -- events ----------------------------------------------------------------------------------

    def _pod_event(self, verb: str, sts: Object, pod: Object, err: Exception | None) -> None:
        name, set_name = pod["metadata"]["name"], sts["metadata"]["name"]
        if err is None:
            message = f"{verb} Pod {name} in StatefulSet {set_name} successful"
            self._recorder.event(sts, "Normal", f"Successful{verb.title()}", message)
        else:
            message = f"{verb} Pod {name} in StatefulSet {set_name} failed error: {err}"
            self._recorder.event(sts, "Warning", f"Failed{verb.title()}", message)

    def _claim_event(self, verb: str, sts: Object, pod: Object, claim: Object, err: Exception | None) -> None:
        claim_name, pod_name = claim["metadata"]["name"], pod["metadata"]["name"]
        set_name = sts["metadata"]["name"]
        if err is None:
            message = f"{verb} Claim {claim_name} Pod {pod_name} in StatefulSet {set_name} success"
            self._recorder.event(sts, "Normal", f"Successful{verb.title()}", message)
        else:
            message = (
                f"{verb} Claim {claim_name} for Pod {pod_name} in StatefulSet {set_name} failed error: {err}"
            )
            self._recorder.event(sts, "Warning", f"Failed{verb.title()}", message)

    # -- claims ----------------------------------------------------------------------------------

    def _cached_claim(self, claim: Mapping[str, Any]) -> Object | None:
        meta = claim["metadata"]
        return self._claims.get_by_key(f"{meta['namespace']}/{meta['name']}")

    async def create_missing_claims(self, sts: Object, pod: Object) -> None:
        """Create each of the member's claims the cache does not hold; raise the first error."""
        errors: list[Exception] = []
        for _, claim in ident.persistent_volume_claims(sts, ident.ordinal_of(pod)):
            if self._cached_claim(claim) is not None:
                continue
            if retention_policy(sts)[0] == DELETE:
                update_claim_owner_refs(claim, sts, pod)
            try:
                await self._client.resource(PERSISTENTVOLUMECLAIMS, claim["metadata"]["namespace"]).create(
                    claim
                )
            except ApiError as err:
                if err.code == 409 and err.reason == "AlreadyExists":
                    continue  # created by an earlier sync the cache has not caught up with
                failure = ApiError(
                    err.code, err.reason, f"failed to create PVC {claim['metadata']['name']}: {err}"
                )
                errors.append(failure)
                self._claim_event("create", sts, pod, claim, failure)
                continue
            self._claim_event("create", sts, pod, claim, None)
        if errors:
            raise errors[0]

    def claim_is_stale(self, sts: Object, pod: Object) -> bool:
        if retention_policy(sts)[1] != DELETE:
            return False  # claims are meant to be reused
        for _, claim in ident.persistent_volume_claims(sts, ident.ordinal_of(pod)):
            cached = self._cached_claim(claim)
            if cached is not None and is_stale_claim(cached, pod):
                return True
        return False

    def claims_match_retention_policy(self, sts: Object, pod: Object) -> bool:
        """Every existing claim of the member has the owners the policy wants (a missing one
        is someone else's problem: the pod's creation makes it)."""
        for _, claim in ident.persistent_volume_claims(sts, ident.ordinal_of(pod)):
            cached = self._cached_claim(claim)
            if cached is not None and not claim_owner_matches(cached, sts, pod):
                return False
        return True

    async def update_claims_for_retention_policy(self, sts: Object, pod: Object) -> None:
        for _, claim in ident.persistent_volume_claims(sts, ident.ordinal_of(pod)):
            cached = self._cached_claim(claim)
            if cached is None:
                continue
            fresh = copy.deepcopy(cached)
            if not update_claim_owner_refs(fresh, sts, pod):
                continue
            meta = fresh["metadata"]
            try:
                await self._client.resource(PERSISTENTVOLUMECLAIMS, meta["namespace"]).update(fresh)
            except ApiError as err:
                if err.code != 404:
                    message = f"could not update claim {meta['name']} for delete policy ownerRefs: {err}"
                    raise ApiError(err.code, err.reason, message) from err

    # -- pods ------------------------------------------------------------------------------------

    async def create_stateful_pod(self, sts: Object, pod: Object) -> Object | None:
        """The member's claims, then the member; the created pod, or None if it already exists."""
        try:
            await self.create_missing_claims(sts, pod)
        except ApiError as err:
            self._pod_event("create", sts, pod, err)
            raise
        try:
            created = await self._client.resource(PODS, sts["metadata"].get("namespace")).create(pod)
        except ApiError as err:
            if err.code == 409 and err.reason == "AlreadyExists":
                return None
            self._pod_event("create", sts, pod, err)
            raise
        self._pod_event("create", sts, pod, None)
        await self.update_claims_for_retention_policy(sts, created)
        return created

    async def update_stateful_pod(self, sts: Object, pod: Object) -> None:
        """Restore identity labels and claim owners; retry conflicts on a fresh read."""
        pods = self._client.resource(PODS, sts["metadata"].get("namespace"))
        current = copy.deepcopy(pod)
        for _ in range(MAX_UPDATE_RETRIES):
            consistent = True
            if not ident.identity_matches(sts, current):
                ident.update_identity(sts, current)
                consistent = False
            if not ident.storage_matches(sts, current):
                # A pod's volumes cannot change: create what it should have claimed, so the
                # claims exist when the member is recreated.
                await self.create_missing_claims(sts, current)
            if not self.claims_match_retention_policy(sts, current):
                await self.update_claims_for_retention_policy(sts, current)
            if consistent:
                return
            try:
                await pods.update(current)
            except ApiError as err:
                if err.code != 409:
                    self._pod_event("update", sts, pod, err)
                    raise
                try:
                    current = await pods.get(current["metadata"]["name"])
                except ApiError as get_err:
                    self._pod_event("update", sts, pod, get_err)
                    raise
                continue
            self._pod_event("update", sts, pod, None)
            return
        failure = ApiError(409, "Conflict", f"aborting update after {MAX_UPDATE_RETRIES} attempts")
        self._pod_event("update", sts, pod, failure)
        raise failure

    async def delete_stateful_pod(self, sts: Object, pod: Object) -> None:
        try:
            await self._client.resource(PODS, sts["metadata"].get("namespace")).delete(
                pod["metadata"]["name"]
            )
        except ApiError as err:
            self._pod_event("delete", sts, pod, err)
            raise
        self._pod_event("delete", sts, pod, None)

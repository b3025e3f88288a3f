"""Claiming: a controller adopts matching orphans and releases what it owns but no longer
selects (upstream's ``BaseControllerRefManager.ClaimObject``).

Rules for one object and the controller ``owner`` with ``selector``:
- controlled by someone else: ignore;
- controlled by ``owner``: keep if it matches; otherwise release it (PATCH removing the
  reference) unless ``owner`` is being deleted;
- orphan: adopt it (PATCH adding a controller reference with ``blockOwnerDeletion``) when it
  matches, is not being deleted, is in ``owner``'s namespace, ``owner`` is not being deleted,
  and ``can_adopt`` (a fresh read of ``owner``, done once per claim) agrees.

Patches are JSON merge patches carrying the object's full new ``ownerReferences`` list with
``uid`` and ``resourceVersion`` preconditions, so a concurrent change gives a Conflict and the
claim is retried by the next sync. A NotFound (the object is gone) is not an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from controllers.podcontrol.ownerrefs import get_controller_of, new_controller_ref
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import Selector
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.client.interfaces import MERGE_PATCH, Client

CanAdopt = Callable[[], Awaitable[None]]


class ControllerRefManager:
    """Claims objects of ``resource_type`` for ``owner`` (an ``api_version``/``kind`` object)."""

    def __init__(
        self,
        client: Client,
        owner: Object,
        api_version: str,
        kind: str,
        selector: Selector,
        resource_type: ResourceType,
        can_adopt: CanAdopt,
    ) -> None:
        self._client = client
        self._owner = owner
        self._ref = new_controller_ref(owner, api_version, kind)
        self._selector = selector
        self._rt = resource_type
        self._can_adopt = can_adopt
        self._adoption_checked: ApiError | bool | None = False

    async def claim(self, objs: Sequence[Object]) -> list[Object]:
        """The objects ``owner`` controls after adoption and release (adopted ones patched)."""
        claimed: list[Object] = []
        errors: list[Exception] = []
        for obj in objs:
            try:
                result = await self._claim_one(obj)
            except ApiError as err:
                errors.append(err)
                continue
            if result is not None:
                claimed.append(result)
        if errors:
            raise errors[0]
        return claimed

    async def _claim_one(self, obj: Object) -> Object | None:
        uid = self._owner["metadata"]["uid"]
        deleting = bool(self._owner["metadata"].get("deletionTimestamp"))
        matches = self._selector.matches(obj["metadata"].get("labels") or {})
        ref = get_controller_of(obj)
        if ref is not None:
            if ref.get("uid") != uid:
                return None
            if matches:
                return obj
            if not deleting:
                await self._release(obj)
            return None
        if deleting or not matches or obj["metadata"].get("deletionTimestamp"):
            return None
        if obj["metadata"].get("namespace") != self._owner["metadata"].get("namespace"):
            return None
        return await self._adopt(obj)

    async def _check_can_adopt(self) -> None:
        if self._adoption_checked is False:
            try:
                await self._can_adopt()
                self._adoption_checked = None
            except ApiError as err:
                self._adoption_checked = err
        if isinstance(self._adoption_checked, ApiError):
            raise self._adoption_checked

    async def _adopt(self, obj: Object) -> Object | None:
        await self._check_can_adopt()
        refs = [r for r in obj["metadata"].get("ownerReferences") or [] if r.get("uid") != self._ref["uid"]]
        return await self._patch_refs(obj, [*refs, self._ref])

    async def _release(self, obj: Object) -> None:
        refs = [r for r in obj["metadata"].get("ownerReferences") or [] if r.get("uid") != self._ref["uid"]]
        await self._patch_refs(obj, refs)

    async def _patch_refs(self, obj: Object, refs: list[dict[str, Any]]) -> Object | None:
        meta = obj["metadata"]
        body = {
            "metadata": {
                "ownerReferences": refs or None,
                "uid": meta["uid"],
                "resourceVersion": meta.get("resourceVersion"),
            }
        }
        try:
            return await self._client.resource(self._rt, meta.get("namespace")).patch(
                meta["name"], body, patch_type=MERGE_PATCH
            )
        except ApiError as err:
            if err.code == 404:
                return None
            raise


def recheck_owner(client: Client, resource_type: ResourceType, owner: Object) -> CanAdopt:
    """``can_adopt`` for ``owner``: a fresh GET must show the same uid and no deletionTimestamp
    (upstream's ``RecheckDeletionTimestamp``), so a deleted-and-recreated owner adopts nothing."""

    async def check() -> None:
        meta = owner["metadata"]
        fresh = await client.resource(resource_type, meta.get("namespace")).get(meta["name"])
        if fresh["metadata"].get("uid") != meta["uid"]:
            raise ApiError(
                409,
                "Conflict",
                f"original {meta.get('namespace')}/{meta['name']} is gone: got uid "
                f"{fresh['metadata'].get('uid')}, wanted {meta['uid']}",
            )
        if fresh["metadata"].get("deletionTimestamp"):
            raise ApiError(
                409,
                "Conflict",
                f"{meta.get('namespace')}/{meta['name']} has just been deleted at "
                f"{fresh['metadata']['deletionTimestamp']}",
            )

    return check

"""``History``: a parent's ControllerRevisions through the API (upstream's ``realHistory``).

Reads come from the ControllerRevision informer's indexer (shared objects: never mutate what
``list_controller_revisions`` returns); writes go through the client. Every method raises
``ApiError`` for what the server refuses, except the cases its docstring names.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from controllers.history.revisions import controller_revision_name, hash_controller_revision
from controllers.podcontrol.ownerrefs import new_controller_ref
from minikube_py.api.errors import ApiError
from minikube_py.api.labels import Selector
from minikube_py.api.unstructured import Object
from minikube_py.cache.store import NAMESPACE_INDEX, Indexer
from minikube_py.client.interfaces import MERGE_PATCH, Client
from minikube_py.client.resourcetypes import CONTROLLERREVISIONS

CONFLICT_RETRIES = 5


@dataclass(frozen=True, slots=True)
class Created:
    """What ``create_controller_revision`` made: the stored revision, and the parent's
    ``collisionCount`` after it (bumped once per hash collision; write it to the parent's
    status so the next revision of the same data gets the same name)."""

    revision: Object
    collision_count: int


class History:
    """The revisions of parents in one informer's view, written through ``client``."""

    def __init__(self, client: Client, revisions: Indexer) -> None:
        self._client = client
        self._revisions = revisions

    def list_controller_revisions(self, parent: Object, selector: Selector) -> list[Object]:
        """The revisions in the parent's namespace matching ``selector`` that the parent
        controls or that no one controls (orphans, which the caller may adopt), unsorted."""
        meta = parent["metadata"]
        found = []
        for revision in self._revisions.by_index(NAMESPACE_INDEX, str(meta.get("namespace") or "")):
            if not selector.matches((revision["metadata"].get("labels")) or {}):
                continue
            ref = _controller_of(revision)
            if ref is None or ref.get("uid") == meta.get("uid"):
                found.append(revision)
        return found

    async def create_controller_revision(
        self, parent: Object, revision: Object, collision_count: int
    ) -> Created:
        """Create ``revision`` named ``<parent>-<hash with collision_count>``. When that name is
        taken by a revision with the same data, that one is returned; by other data (a hash
        collision), ``collision_count`` is bumped and the next name tried. As upstream, only
        the name follows the bumped count; the hash label keeps the value it was built with."""
        meta = parent["metadata"]
        client = self._client.resource(CONTROLLERREVISIONS, meta.get("namespace"))
        clone = copy.deepcopy(revision)
        while True:
            name = controller_revision_name(meta["name"], hash_controller_revision(revision, collision_count))
            clone["metadata"]["name"] = name
            try:
                return Created(await client.create(clone), collision_count)
            except ApiError as err:
                if err.code != 409 or err.reason != "AlreadyExists":
                    raise
            existing = await client.get(name)
            if existing.get("data") == clone.get("data"):
                return Created(existing, collision_count)
            collision_count += 1

    async def update_controller_revision(self, revision: Object, new_revision: int) -> Object:
        """Set ``revision``'s number to ``new_revision`` (nothing is written when it already
        has it), re-reading and retrying on conflicts."""
        meta = revision["metadata"]
        client = self._client.resource(CONTROLLERREVISIONS, meta.get("namespace"))
        clone = copy.deepcopy(revision)
        for attempt in range(CONFLICT_RETRIES):
            if clone.get("revision") == new_revision:
                return clone
            clone["revision"] = new_revision
            try:
                return await client.update(clone)
            except ApiError as err:
                if err.code != 409 or attempt == CONFLICT_RETRIES - 1:
                    raise
            fresh = self._revisions.get_by_key(f"{meta.get('namespace')}/{meta['name']}")
            clone = copy.deepcopy(fresh) if fresh is not None else await client.get(meta["name"])
        raise AssertionError("unreachable")  # the loop returns or raises

    async def delete_controller_revision(self, revision: Object) -> None:
        """Delete ``revision``; one already gone is no error."""
        meta = revision["metadata"]
        try:
            await self._client.resource(CONTROLLERREVISIONS, meta.get("namespace")).delete(meta["name"])
        except ApiError as err:
            if err.code != 404:
                raise

    async def adopt_controller_revision(
        self, parent: Object, api_version: str, kind: str, revision: Object
    ) -> Object:
        """Make ``parent`` the controller of the orphan ``revision`` (a patch guarded by the
        revision's uid). A revision another object controls raises ``ValueError``."""
        owner = _controller_of(revision)
        if owner is not None:
            raise ValueError(f"attempt to adopt revision owned by {owner}")
        ref = new_controller_ref(parent, api_version, kind)
        refs = [*(revision["metadata"].get("ownerReferences") or []), ref]
        return await self._patch_owner_references(revision, refs)

    async def release_controller_revision(self, parent: Object, revision: Object) -> Object | None:
        """Drop ``parent``'s owner reference from ``revision``. None when the revision is gone
        or no longer valid to patch (being deleted), as upstream ignores both."""
        uid = parent["metadata"].get("uid")
        refs = [r for r in revision["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
        try:
            return await self._patch_owner_references(revision, refs)
        except ApiError as err:
            if err.code in (404, 422):
                return None
            raise

    async def _patch_owner_references(self, revision: Object, refs: list[Object]) -> Object:
        meta = revision["metadata"]
        body = {"metadata": {"ownerReferences": refs or None, "uid": meta["uid"]}}
        client = self._client.resource(CONTROLLERREVISIONS, meta.get("namespace"))
        return await client.patch(meta["name"], body, patch_type=MERGE_PATCH)


def _controller_of(revision: Object) -> Object | None:
    for ref in revision["metadata"].get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller"):
            return ref
    return None

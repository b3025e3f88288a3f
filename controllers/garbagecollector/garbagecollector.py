"""The garbage collector controller (upstream's ``garbagecollector.go``).

Two queues of node uids, filled by the graph builder:

- ``attempt_to_delete``: a node whose owners may be gone (or that waits, in foreground
  deletion, for its blocking dependents). ``attempt_to_delete_item`` classifies each owner
  reference by a live GET (solid, dangling, or waiting for its own dependents) and then patches
  away dangling references, deletes the dependent (Background, or Foreground when an owner
  waits for it), or removes the owner's ``foregroundDeletion`` finalizer once nothing blocks.
- ``attempt_to_orphan``: an owner deleted with the ``orphan`` finalizer; its dependents lose
  their reference to it, then the finalizer goes.

Every delete carries a uid precondition, so a recreated object of the same name is safe.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from controllers.garbagecollector.graph import (
    BACKGROUND,
    FOREGROUND,
    FOREGROUND_FINALIZER,
    ORPHAN,
    ORPHAN_FINALIZER,
    Node,
    ObjectReference,
    has_finalizer,
    owner_references,
    reference_of,
)
from controllers.garbagecollector.graph_builder import GraphBuilder
from minikube_py.api.builtin import builtin_scheme
from minikube_py.api.errors import ApiError
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.client.interfaces import MERGE_PATCH, Client
from minikube_py.client.resourcetypes import resource_type_for_kind
from minikube_py.clock import Clock, RealClock
from minikube_py.controller import run_workers
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("garbagecollector")

# Upstream's DefaultIgnoredResources: events are never owners nor collected.
IGNORED_RESOURCES = frozenset({("", "events"), ("events.k8s.io", "events")})
CONFLICT_RETRIES = 5


def deletable_resources(ignored: frozenset[tuple[str, str]] = IGNORED_RESOURCES) -> list[ResourceType]:
    """Every built-in type the collector can watch and delete (``list``, ``watch``,
    ``delete``): review kinds, which only have ``create``, are left out."""
    return [
        rt
        for rt in builtin_scheme()
        if {"list", "watch", "delete"} <= set(rt.verbs) and (rt.group, rt.resource) not in ignored
    ]


class RestMappingError(Exception):
    """An ownerReference names a kind this cluster does not serve (retried: it may appear)."""


class NamespacedOwnerOfClusterScopedObjectError(Exception):
    """A cluster-scoped object names a namespaced owner: invalid, and retrying cannot help."""


class RequeueItemError(Exception):
    """A virtual node was verified but not yet observed by an informer: look again later."""


class GarbageCollector:
    """``name`` = "garbagecollector". Informers: one per ``deletable_resources()`` type."""

    name = "garbagecollector"

    def __init__(
        self,
        client: Client,
        factory: SharedInformerFactory,
        recorder: Recorder,
        *,
        clock: Clock | None = None,
        resource_types: list[ResourceType] | None = None,
    ) -> None:
        self._client = client
        self._clock = clock or RealClock()
        self.attempt_to_delete: RateLimitingQueue[str] = RateLimitingQueue(
            clock=self._clock, name="garbage_collector_attempt_to_delete"
        )
        self.attempt_to_orphan: RateLimitingQueue[str] = RateLimitingQueue(
            clock=self._clock, name="garbage_collector_attempt_to_orphan"
        )
        types = resource_types if resource_types is not None else deletable_resources()
        self.graph = GraphBuilder(factory, types, self.attempt_to_delete, self.attempt_to_orphan, recorder)

    async def run(self, workers: int) -> None:
        synced = self.graph.synced_checks()
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self.graph.run())
            tg.create_task(
                run_workers(self.name, self.attempt_to_delete, self.sync, workers, synced, self._clock)
            )
            tg.create_task(
                run_workers(
                    f"{self.name}-orphan", self.attempt_to_orphan, self.orphan, workers, synced, self._clock
                )
            )

    # -- attemptToDelete -------------------------------------------------------------------

    async def sync(self, key: str) -> None:
        """Process one ``attempt_to_delete`` uid (upstream ``attemptToDeleteWorker``)."""
        node = self.graph.uid_to_node.get(key)
        if node is None:
            return  # gone from the graph since it was queued
        try:
            virtual_delete_enqueued = await self.attempt_to_delete_item(node)
        except NamespacedOwnerOfClusterScopedObjectError:
            log.info("%s is cluster-scoped but refers to a namespaced owner", node.identity)
            return
        if not virtual_delete_enqueued and node.virtual:
            raise RequeueItemError(f"item {node.identity} hasn't been observed via informer yet")

    async def attempt_to_delete_item(self, node: Node) -> bool:
        """Act on one node; True when a live GET proved it absent (a virtual delete event was
        queued for the graph instead)."""
        if node.being_deleted and not node.deleting_dependents:
            return False  # already on its way; its dependents are handled when it is gone
        try:
            latest = await self._get_object(node.identity)
        except ApiError as exc:
            if exc.code != 404:
                raise
            self.graph.enqueue_virtual_delete(node.identity)
            return True
        if (latest.get("metadata") or {}).get("uid") != node.uid:
            self.graph.enqueue_virtual_delete(node.identity)
            return True
        if node.deleting_dependents:
            await self._process_deleting_dependents_item(node)
            return False
        refs = owner_references(latest)
        if not refs:
            return False
        solid, dangling, waiting = await self._classify_references(node, refs)
        if solid:
            if dangling or waiting:
                # some owners are still there: only drop the references that are gone (or
                # that would keep a foreground-deleting owner waiting)
                uids = {str(r.get("uid", "")) for r in dangling + waiting}
                log.info(
                    "garbagecollector: removing dangling references %s from %s", sorted(uids), node.identity
                )
                await self._remove_owner_references(node.identity, uids)
            return False
        if waiting and node.dependents:
            if any(dep.deleting_dependents for dep in node.dependents):
                # a dependent waits for this node, which waits for its owner: break the cycle
                await self._unblock_owner_references(node.identity)
            await self._delete_object(node.identity, FOREGROUND)
            return False
        policy = BACKGROUND
        if has_finalizer(latest, ORPHAN_FINALIZER):
            policy = ORPHAN
        elif has_finalizer(latest, FOREGROUND_FINALIZER):
            policy = FOREGROUND
        await self._delete_object(node.identity, policy)
        return False

    async def _process_deleting_dependents_item(self, node: Node) -> None:
        blocking = node.blocking_dependents()
        if not blocking:
            await self._remove_finalizer(node.identity, FOREGROUND_FINALIZER)
            return
        for dep in blocking:
            if not dep.deleting_dependents:
                self.attempt_to_delete.add(dep.uid)

    async def _classify_references(
        self, node: Node, refs: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        solid: list[dict[str, Any]] = []
        dangling: list[dict[str, Any]] = []
        waiting: list[dict[str, Any]] = []
        for ref in refs:
            is_dangling, owner = await self._is_dangling(ref, node)
            if is_dangling:
                dangling.append(ref)
            elif (
                owner is not None
                and owner["metadata"].get("deletionTimestamp")
                and has_finalizer(owner, FOREGROUND_FINALIZER)
            ):
                waiting.append(ref)
            else:
                solid.append(ref)
        return solid, dangling, waiting

    async def _is_dangling(self, ref: dict[str, Any], node: Node) -> tuple[bool, Object | None]:
        """Whether the owner ``ref`` names is absent: a namespaced owner is looked up in the
        dependent's namespace; NotFound or another uid means absent."""
        cluster_key = reference_of(ref, "")
        namespaced_key = reference_of(ref, node.identity.namespace)
        cache = self.graph.absent_owner_cache
        if cache.has(cluster_key) or cache.has(namespaced_key):
            return True, None
        rt = resource_type_for_kind(str(ref.get("apiVersion", "")), str(ref.get("kind", "")))
        if rt is None:
            raise RestMappingError(
                f"unable to get REST mapping for {ref.get('apiVersion')}/{ref.get('kind')}"
            )
        if rt.namespaced and not node.identity.namespace:
            raise NamespacedOwnerOfClusterScopedObjectError()
        key = namespaced_key if rt.namespaced else cluster_key
        try:
            owner = await self._client.resource(rt, key.namespace or None).get(key.name)
        except ApiError as exc:
            if exc.code != 404:
                raise
            cache.add(key)
            return True, None
        if (owner.get("metadata") or {}).get("uid") != ref.get("uid"):
            cache.add(key)
            return True, None
        return False, owner

    # -- attemptToOrphan -------------------------------------------------------------------

    async def orphan(self, key: str) -> None:
        """Process one ``attempt_to_orphan`` uid: dependents lose their reference to the
        owner, then the owner's ``orphan`` finalizer goes."""
        owner = self.graph.uid_to_node.get(key)
        if owner is None:
            return
        failures: list[str] = []
        for dep in list(owner.dependents):
            try:
                await self._remove_owner_references(dep.identity, {owner.uid})
            except ApiError as exc:
                failures.append(f"orphaning {dep.identity} failed: {exc}")
        if failures:
            raise RuntimeError("; ".join(failures))
        await self._remove_finalizer(owner.identity, ORPHAN_FINALIZER)

    # -- API operations --------------------------------------------------------------------

    def _resource(self, identity: ObjectReference) -> tuple[Any, ResourceType]:
        rt = resource_type_for_kind(identity.api_version, identity.kind)
        if rt is None:
            raise RestMappingError(f"unable to get REST mapping for {identity.api_version}/{identity.kind}")
        return self._client.resource(rt, identity.namespace if rt.namespaced else None), rt

    async def _get_object(self, identity: ObjectReference) -> Object:
        resource, _ = self._resource(identity)
        obj: Object = await resource.get(identity.name)
        return obj

    async def _delete_object(self, identity: ObjectReference, policy: str) -> None:
        resource, _ = self._resource(identity)
        log.info("deleting %s with propagation %s", identity, policy)
        try:
            await resource.delete(
                identity.name, propagation_policy=policy, preconditions={"uid": identity.uid}
            )
        except ApiError as exc:
            if exc.code != 404:
                raise

    async def _patch_metadata(self, identity: ObjectReference, change: Any) -> None:
        """GET, compute a metadata change (None: nothing to do), merge-patch it with the
        resourceVersion as precondition; retried on conflict. A missing object is done."""
        resource, _ = self._resource(identity)
        for attempt in range(CONFLICT_RETRIES):
            try:
                current = await resource.get(identity.name)
                meta = current.get("metadata") or {}
                if meta.get("uid") != identity.uid:
                    return
                patch_meta = change(meta)
                if patch_meta is None:
                    return
                patch_meta["resourceVersion"] = meta.get("resourceVersion")
                await resource.patch(identity.name, {"metadata": patch_meta}, patch_type=MERGE_PATCH)
                return
            except ApiError as exc:
                if exc.code == 404:
                    return
                if exc.code != 409 or attempt == CONFLICT_RETRIES - 1:
                    raise

    async def _remove_owner_references(self, identity: ObjectReference, uids: set[str]) -> None:
        def change(meta: dict[str, Any]) -> dict[str, Any] | None:
            refs = list(meta.get("ownerReferences") or [])
            kept = [r for r in refs if r.get("uid") not in uids]
            return None if len(kept) == len(refs) else {"ownerReferences": kept or None}

        await self._patch_metadata(identity, change)

    async def _unblock_owner_references(self, identity: ObjectReference) -> None:
        def change(meta: dict[str, Any]) -> dict[str, Any] | None:
            refs = list(meta.get("ownerReferences") or [])
            if not any(r.get("blockOwnerDeletion") for r in refs):
                return None
            return {
                "ownerReferences": [
                    {**r, "blockOwnerDeletion": False} if r.get("blockOwnerDeletion") else r for r in refs
                ]
            }

        await self._patch_metadata(identity, change)

    async def _remove_finalizer(self, identity: ObjectReference, finalizer: str) -> None:
        def change(meta: dict[str, Any]) -> dict[str, Any] | None:
            finalizers = list(meta.get("finalizers") or [])
            if finalizer not in finalizers:
                return None
            kept = [f for f in finalizers if f != finalizer]
            return {"finalizers": kept or None}

        log.info("removing the %s finalizer from %s", finalizer, identity)
        await self._patch_metadata(identity, change)

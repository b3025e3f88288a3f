"""The graph builder (upstream's ``graph_builder.go``): informers over every deletable resource
feed one queue of graph changes; one task applies them to the graph, in order, and decides
which nodes the collector must look at (``attempt_to_delete``) or orphan
(``attempt_to_orphan``). Handlers only append to that queue.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from controllers.garbagecollector.graph import (
    FOREGROUND_FINALIZER,
    ORPHAN_FINALIZER,
    AbsentOwnerCache,
    Node,
    ObjectReference,
    being_deleted,
    has_finalizer,
    owner_references,
    reference_of,
)
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import SharedInformerFactory
from minikube_py.cache.informer import EventHandlerFuncs, SharedInformer
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.events import Recorder
from minikube_py.workqueue import RateLimitingQueue

log = logging.getLogger("garbagecollector")

ADD, UPDATE, DELETE = "add", "update", "delete"


@dataclass(frozen=True, slots=True)
class GraphEvent:
    """One change to apply. ``virtual`` deletes come from the collector, not an informer: a
    live GET proved ``identity`` absent."""

    type: str
    identity: ObjectReference
    obj: Object | None = None
    old: Object | None = None
    virtual: bool = False


def identity_of(rt: ResourceType, obj: Object) -> ObjectReference:
    meta = obj.get("metadata") or {}
    return ObjectReference(
        rt.api_version,
        rt.kind,
        str(meta.get("name", "")),
        str(meta.get("uid", "")),
        str(meta.get("namespace", "") or ""),
    )


def _same_coordinates(ref: dict[str, Any], identity: ObjectReference) -> bool:
    """Group, kind and name match (versions of one group name the same object)."""
    group = str(ref.get("apiVersion", "")).rpartition("/")[0]
    return (group, ref.get("kind"), ref.get("name")) == (identity.group, identity.kind, identity.name)


class GraphBuilder:
    """Owns the graph (``uid_to_node``) and the monitors that keep it current."""

    def __init__(
        self,
        factory: SharedInformerFactory,
        resource_types: Iterable[ResourceType],
        attempt_to_delete: RateLimitingQueue[str],
        attempt_to_orphan: RateLimitingQueue[str],
        recorder: Recorder,
    ) -> None:
        self.uid_to_node: dict[str, Node] = {}
        self.absent_owner_cache = AbsentOwnerCache()
        self.attempt_to_delete = attempt_to_delete
        self.attempt_to_orphan = attempt_to_orphan
        self._recorder = recorder
        self._changes: deque[GraphEvent] = deque()
        self._wake = asyncio.Event()
        self.monitors: dict[ResourceType, SharedInformer] = {}
        for rt in resource_types:
            informer = factory.informer(rt)
            informer.add_event_handler(self._handlers(rt))
            self.monitors[rt] = informer

    # -- handlers: only enqueue ------------------------------------------------------------

    def _handlers(self, rt: ResourceType) -> EventHandlerFuncs:
        def add(obj: Object) -> None:
            self.enqueue(GraphEvent(ADD, identity_of(rt, obj), obj))

        def update(old: Object, new: Object) -> None:
            self.enqueue(GraphEvent(UPDATE, identity_of(rt, new), new, old))

        def delete(obj: Object | DeletedFinalStateUnknown) -> None:
            final = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
            self.enqueue(GraphEvent(DELETE, identity_of(rt, final), final))

        return EventHandlerFuncs(add, update, delete)

    def enqueue(self, event: GraphEvent) -> None:
        self._changes.append(event)
        self._wake.set()

    def enqueue_virtual_delete(self, identity: ObjectReference) -> None:
        self.enqueue(GraphEvent(DELETE, identity, virtual=True))

    def has_synced(self) -> bool:
        return all(informer.has_synced() for informer in self.monitors.values())

    def synced_checks(self) -> list[Callable[[], bool]]:
        return [informer.has_synced for informer in self.monitors.values()]

    async def run(self) -> None:
        """Apply graph changes as they come, until cancelled."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            self.process_pending()

    def process_pending(self) -> None:
        """Apply every queued change (tests call this instead of ``run``)."""
        while self._changes:
            event = self._changes.popleft()
            try:
                self.process_graph_change(event)
            except Exception:
                log.exception("failed to process graph change for %s", event.identity)

    # -- applying one change ---------------------------------------------------------------

    def process_graph_change(self, event: GraphEvent) -> None:
        existing = self.uid_to_node.get(event.identity.uid)
        if event.type == DELETE:
            if existing is not None:
                self._process_delete(event, existing)
            return
        obj = event.obj or {}
        if existing is None:
            node = Node(
                event.identity,
                owners=owner_references(obj),
                being_deleted=being_deleted(obj),
                deleting_dependents=being_deleted(obj) and has_finalizer(obj, FOREGROUND_FINALIZER),
            )
            self.uid_to_node[node.uid] = node
            self._add_dependent_to_owners(node, node.owners)
            self._process_transitions(event.old, obj, node)
            return
        if existing.virtual:
            self._observe_virtual(existing, event.identity)
        self._update_owners(existing, owner_references(obj))
        if being_deleted(obj):
            existing.being_deleted = True
        self._process_transitions(event.old, obj, existing)

    def _observe_virtual(self, node: Node, observed: ObjectReference) -> None:
        """An informer reports a node we only knew from references: it is real now. Dependents
        that named it by other coordinates get rechecked."""
        virtual_identity = node.identity
        node.virtual = False
        node.identity = observed
        if virtual_identity == observed:
            return
        for dep in node.dependents:
            refs = [r for r in dep.owners if r.get("uid") == observed.uid]
            if all(_same_coordinates(r, observed) for r in refs) and (
                not observed.namespace or dep.identity.namespace == observed.namespace
            ):
                continue
            if observed.namespace and dep.identity.namespace != observed.namespace:
                for ref in refs:
                    self._report_invalid_namespace_owner_ref(dep, ref)
            self.attempt_to_delete.add(dep.uid)

    def _update_owners(self, node: Node, new_owners: list[dict[str, Any]]) -> None:
        old_by_uid = {ref.get("uid"): ref for ref in node.owners}
        new_by_uid = {ref.get("uid"): ref for ref in new_owners}
        added = [ref for uid, ref in new_by_uid.items() if uid not in old_by_uid]
        removed = [ref for uid, ref in old_by_uid.items() if uid not in new_by_uid]
        changed = [(old_by_uid[uid], ref) for uid, ref in new_by_uid.items() if uid in old_by_uid]
        changed = [(old, new) for old, new in changed if old != new]
        if not (added or removed or changed):
            return
        self._add_unblocked_owners_to_delete_queue(removed, changed)
        node.owners = list(new_owners)
        self._add_dependent_to_owners(node, added)
        for ref in removed:
            owner = self.uid_to_node.get(str(ref.get("uid", "")))
            if owner is not None:
                owner.dependents.discard(node)

    def _add_unblocked_owners_to_delete_queue(
        self, removed: list[dict[str, Any]], changed: list[tuple[dict[str, Any], dict[str, Any]]]
    ) -> None:
        """An owner in foreground deletion waits for blocking dependents: tell it when one
        stops blocking."""
        unblocked = [ref for ref in removed if ref.get("blockOwnerDeletion")]
        unblocked += [
            old for old, new in changed if old.get("blockOwnerDeletion") and not new.get("blockOwnerDeletion")
        ]
        for ref in unblocked:
            owner = self.uid_to_node.get(str(ref.get("uid", "")))
            if owner is not None and owner.deleting_dependents:
                self.attempt_to_delete.add(owner.uid)

    def _add_dependent_to_owners(self, node: Node, owners: list[dict[str, Any]]) -> None:
        """Link ``node`` under each owner, creating virtual owners for unknown uids (queued so
        the collector verifies them). A reference that may be wrong (namespace or coordinates
        disagree with the observed owner) queues the dependent itself."""
        suspicious = False
        for ref in owners:
            uid = str(ref.get("uid", ""))
            owner = self.uid_to_node.get(uid)
            if owner is None:
                owner = Node(reference_of(ref, node.identity.namespace), virtual=True)
                self.uid_to_node[uid] = owner
                owner.dependents.add(node)
                self.attempt_to_delete.add(uid)
                continue
            owner.dependents.add(node)
            if suspicious:
                continue
            owner_namespace = owner.identity.namespace
            if owner_namespace and owner_namespace != node.identity.namespace:
                if not owner.virtual:
                    self._report_invalid_namespace_owner_ref(node, ref)
                suspicious = True
            elif not _same_coordinates(ref, owner.identity) or (
                not owner_namespace and owner.virtual and node.identity.namespace
            ):
                # coordinates disagree with the observed owner, or a namespaced object names a
                # cluster-scoped owner nobody observed (maybe a namespaced kind): verify
                suspicious = True
        if suspicious:
            self.attempt_to_delete.add(node.uid)

    def _report_invalid_namespace_owner_ref(self, node: Node, ref: dict[str, Any]) -> None:
        invalid = reference_of(ref, node.identity.namespace)
        self._recorder.event(
            node.identity.as_object(),
            "Warning",
            "OwnerRefInvalidNamespace",
            f'ownerRef {invalid} does not exist in namespace "{node.identity.namespace}"',
        )

    def _process_transitions(self, old: Object | None, new: Object, node: Node) -> None:
        if _starts_waiting_for(old, new, ORPHAN_FINALIZER):
            log.debug("add %s to the attemptToOrphan", node.identity)
            self.attempt_to_orphan.add(node.uid)
            return
        if _starts_waiting_for(old, new, FOREGROUND_FINALIZER):
            node.deleting_dependents = True
            for dep in node.dependents:
                self.attempt_to_delete.add(dep.uid)
            self.attempt_to_delete.add(node.uid)

    def _process_delete(self, event: GraphEvent, existing: Node) -> None:
        if event.virtual and not existing.virtual and existing.identity != event.identity:
            # The observed object disagrees with the coordinates proved absent: keep it, and
            # recheck only the dependents that used those coordinates.
            matching = [
                dep
                for dep in existing.dependents
                if any(
                    ref.get("uid") == existing.uid and _same_coordinates(ref, event.identity)
                    for ref in dep.owners
                )
            ]
            if matching:
                self.absent_owner_cache.add(event.identity)
            for dep in matching:
                self.attempt_to_delete.add(dep.uid)
            return
        self._remove_node(existing)
        if existing.dependents:
            self.absent_owner_cache.add(event.identity)
        for dep in existing.dependents:
            self.attempt_to_delete.add(dep.uid)
        for ref in existing.owners:
            owner = self.uid_to_node.get(str(ref.get("uid", "")))
            if owner is not None and owner.deleting_dependents:
                self.attempt_to_delete.add(owner.uid)

    def _remove_node(self, node: Node) -> None:
        self.uid_to_node.pop(node.uid, None)
        for ref in node.owners:
            owner = self.uid_to_node.get(str(ref.get("uid", "")))
            if owner is not None:
                owner.dependents.discard(node)


def _starts_waiting_for(old: Object | None, new: Object, finalizer: str) -> bool:
    """``new`` is being deleted with ``finalizer`` and ``old`` (if any) was not."""
    if not (being_deleted(new) and has_finalizer(new, finalizer)):
        return False
    return not (being_deleted(old) and has_finalizer(old, finalizer))

"""The garbage collector's dependency graph (upstream's ``graph.go``): one ``Node`` per object
uid, linked to its owners (from ``metadata.ownerReferences``) and its dependents.

A node is *virtual* while only a dependent's ownerReference vouches for it: the graph builder
creates it on the dependent's behalf, and it becomes real once an informer reports the owner
(or is removed once a live GET proves the owner absent). ``being_deleted`` and
``deleting_dependents`` mirror ``deletionTimestamp`` and the ``foregroundDeletion`` finalizer.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from minikube_py.api.unstructured import Object

ORPHAN_FINALIZER = "orphan"  # metav1.FinalizerOrphanDependents
FOREGROUND_FINALIZER = "foregroundDeletion"  # metav1.FinalizerDeleteDependents
FOREGROUND, BACKGROUND, ORPHAN = "Foreground", "Background", "Orphan"


@dataclass(frozen=True, slots=True)
class ObjectReference:
    """Where an object lives: an owner reference's coordinates plus the namespace."""

    api_version: str
    kind: str
    name: str
    uid: str
    namespace: str = ""

    def __str__(self) -> str:
        return (
            f"[{self.api_version}/{self.kind}, namespace: {self.namespace}, "
            f"name: {self.name}, uid: {self.uid}]"
        )

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    def as_object(self) -> Object:
        """A minimal object for an event's involvedObject."""
        meta = {"name": self.name, "namespace": self.namespace, "uid": self.uid}
        return {"apiVersion": self.api_version, "kind": self.kind, "metadata": meta}


def reference_of(owner_ref: dict[str, Any], namespace: str) -> ObjectReference:
    """The identity an ownerReference names, assuming the owner lives in ``namespace``."""
    return ObjectReference(
        str(owner_ref.get("apiVersion", "")),
        str(owner_ref.get("kind", "")),
        str(owner_ref.get("name", "")),
        str(owner_ref.get("uid", "")),
        namespace,
    )


def owner_references(obj: Object) -> list[dict[str, Any]]:
    return list((obj.get("metadata") or {}).get("ownerReferences") or [])


def has_finalizer(obj: Object | None, finalizer: str) -> bool:
    return obj is not None and finalizer in ((obj.get("metadata") or {}).get("finalizers") or [])


def being_deleted(obj: Object | None) -> bool:
    return obj is not None and bool((obj.get("metadata") or {}).get("deletionTimestamp"))


@dataclass(eq=False)
class Node:
    """One object in the graph; hashed by identity of the Python object, like upstream's
    pointers. ``owners`` is the object's ownerReferences as last observed."""

    identity: ObjectReference
    owners: list[dict[str, Any]] = field(default_factory=list)
    dependents: set[Node] = field(default_factory=set)
    being_deleted: bool = False
    deleting_dependents: bool = False
    virtual: bool = False

    @property
    def uid(self) -> str:
        return self.identity.uid

    def blocking_dependents(self) -> list[Node]:
        """Dependents whose reference to this node has ``blockOwnerDeletion: true``."""
        return [
            dep
            for dep in self.dependents
            if any(ref.get("uid") == self.uid and ref.get("blockOwnerDeletion") for ref in dep.owners)
        ]


class AbsentOwnerCache:
    """An LRU of owner identities verified absent, so dependents of one deleted owner do not
    each cost a GET (upstream's ``ReferenceCache``)."""

    def __init__(self, size: int = 500) -> None:
        self._size = size
        self._items: OrderedDict[ObjectReference, None] = OrderedDict()

    def add(self, ref: ObjectReference) -> None:
        self._items[ref] = None
        self._items.move_to_end(ref)
        while len(self._items) > self._size:
            self._items.popitem(last=False)

    def has(self, ref: ObjectReference) -> bool:
        if ref in self._items:
            self._items.move_to_end(ref)
            return True
        return False

"""The informer's local cache: a thread-safe object store with named indexes (client-go's
``thread_safe_store.go`` + ``index.go``).

Objects are keyed by ``meta_namespace_key`` ("ns/name", or "name" when cluster-scoped). An
index is a function from an object to the values it is filed under (``namespace_index_func``
files an object under its namespace); ``by_index(name, value)`` returns every object filed
under ``value``. Indexes are kept up to date on every add, update, delete and replace, so an
object whose labels change moves between the buckets of a label-based index.

Contracts:

- The store holds the objects it is given, not copies, and hands the same objects out again.
  They are shared with every reader of the cache: copy (``copy.deepcopy``) before mutating.
- Every method takes one lock, so readers in other threads see either the state before or the
  state after a write, never half of it; ``replace`` swaps the whole content at once.
- An index function must be pure and quick; if it raises, the store is left unchanged.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from minikube_py.api.unstructured import Object

NAMESPACE_INDEX = "namespace"

IndexFunc = Callable[[Object], list[str]]
KeyFunc = Callable[[Object], str]


def meta_namespace_key(obj: Object) -> str:
    """``"namespace/name"``, or ``"name"`` for a cluster-scoped object (no namespace)."""
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    name = str(meta.get("name") or "")
    namespace = str(meta.get("namespace") or "")
    return f"{namespace}/{name}" if namespace else name


def split_meta_namespace_key(key: str) -> tuple[str, str]:
    """The inverse of ``meta_namespace_key``: ``("ns", "name")``, or ``("", "name")``.

    Raises ``ValueError`` for a key with more than one ``/``."""
    parts = key.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f"unexpected key format: {key!r}")


def namespace_index_func(obj: Object) -> list[str]:
    """Files an object under its namespace (cluster-scoped objects under ``""``)."""
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    return [str(meta.get("namespace") or "")]


@dataclass(frozen=True)
class DeletedFinalStateUnknown:
    """Handed to ``on_delete`` when an object vanished while the watch was disconnected: the
    relist no longer had it, so its deletion was never observed. ``obj`` is the last state the
    cache knew, which may be stale."""

    key: str
    obj: Object


def final_state(obj: Object | DeletedFinalStateUnknown) -> Object:
    """What a delete handler was given, as an object: itself, or the last state the cache knew."""
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


def deletion_handling_meta_namespace_key(obj: Object | DeletedFinalStateUnknown) -> str:
    """``meta_namespace_key`` that also accepts a ``DeletedFinalStateUnknown`` (its ``key``):
    the key function for delete handlers."""
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    return meta_namespace_key(obj)


_Index = dict[str, set[str]]  # indexed value -> keys


class Indexer:
    """A thread-safe store of objects by key, with named indexes (see the module doc).

    ``indexers`` maps an index name to its function; ``key_func`` computes an object's key.
    """

    def __init__(
        self,
        indexers: Mapping[str, IndexFunc] | None = None,
        key_func: KeyFunc = meta_namespace_key,
    ) -> None:
        self._lock = threading.Lock()
        self._key_func = key_func
        self._items: dict[str, Object] = {}
        self._indexers: dict[str, IndexFunc] = dict(indexers or {})
        self._indices: dict[str, _Index] = {name: {} for name in self._indexers}

    # -- writes -----------------------------------------------------------------------------

    def add(self, obj: Object) -> None:
        """Insert or replace the object stored under ``obj``'s key."""
        key = self._key_func(obj)
        with self._lock:
            values = self._index_values(self._indexers, obj)
            old = self._items.get(key)
            if old is not None:
                self._unindex(key, self._index_values(self._indexers, old))
            self._items[key] = obj
            self._index_into(self._indices, key, values)

    def update(self, obj: Object) -> None:
        """Same as ``add``: the store keeps the latest state per key."""
        self.add(obj)

    def delete(self, obj: Object) -> None:
        """Remove whatever is stored under ``obj``'s key (nothing happens if there is none)."""
        self._delete_key(self._key_func(obj))

    def _delete_key(self, key: str) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._unindex(key, self._index_values(self._indexers, old))

    def replace(self, objs: list[Object], resource_version: str) -> None:
        """Make ``objs`` the whole content, atomically. ``resource_version`` is the list's
        revision (kept for the Store contract; the store itself does not need it)."""
        items = {self._key_func(obj): obj for obj in objs}
        with self._lock:
            indices: dict[str, _Index] = {name: {} for name in self._indexers}
            for key, obj in items.items():
                self._index_into(indices, key, self._index_values(self._indexers, obj))
            self._items = items
            self._indices = indices

    def add_indexers(self, indexers: Mapping[str, IndexFunc]) -> None:
        """Add more indexes; objects already stored are indexed at once. Raises ``ValueError``
        when a name is already taken."""
        with self._lock:
            clash = sorted(set(indexers) & set(self._indexers))
            if clash:
                raise ValueError(f"indexer conflict: {', '.join(clash)}")
            new: dict[str, _Index] = {name: {} for name in indexers}
            for key, obj in self._items.items():
                self._index_into(new, key, self._index_values(indexers, obj))
            self._indexers.update(indexers)
            self._indices.update(new)

    # -- reads ------------------------------------------------------------------------------

    def key(self, obj: Object) -> str:
        """The key ``obj`` is (or would be) stored under."""
        return self._key_func(obj)

    def get(self, obj: Object) -> Object | None:
        """The stored object with ``obj``'s key, or None."""
        return self.get_by_key(self._key_func(obj))

    def get_by_key(self, key: str) -> Object | None:
        with self._lock:
            return self._items.get(key)

    def list(self) -> builtins.list[Object]:
        with self._lock:
            return list(self._items.values())

    def list_keys(self) -> builtins.list[str]:
        with self._lock:
            return list(self._items)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def by_index(self, index_name: str, value: str) -> builtins.list[Object]:
        """Every object filed under ``value`` in index ``index_name`` (KeyError if no such
        index)."""
        with self._lock:
            keys = self._index_bucket(index_name, value)
            return [self._items[key] for key in sorted(keys)]

    def index_keys(self, index_name: str, value: str) -> builtins.list[str]:
        """The keys of the objects ``by_index`` would return."""
        with self._lock:
            return sorted(self._index_bucket(index_name, value))

    def indexer_names(self) -> builtins.list[str]:
        with self._lock:
            return list(self._indexers)

    # -- internals (callers hold the lock where noted) --------------------------------------

    @staticmethod
    def _index_values(indexers: Mapping[str, IndexFunc], obj: Object) -> dict[str, builtins.list[str]]:
        return {name: list(func(obj)) for name, func in indexers.items()}

    def _index_bucket(self, index_name: str, value: str) -> set[str]:  # lock held
        index = self._indices.get(index_name)
        if index is None:
            raise KeyError(f"index with name {index_name!r} does not exist")
        return index.get(value, set())

    @staticmethod
    def _index_into(indices: dict[str, _Index], key: str, values: Mapping[str, Iterable[str]]) -> None:
        for name, vals in values.items():
            index = indices.setdefault(name, {})
            for value in vals:
                index.setdefault(value, set()).add(key)

    def _unindex(self, key: str, values: Mapping[str, Iterable[str]]) -> None:  # lock held
        for name, vals in values.items():
            index = self._indices.get(name)
            if index is None:
                continue
            for value in vals:
                bucket = index.get(value)
                if bucket is not None:
                    bucket.discard(key)
                    if not bucket:
                        del index[value]

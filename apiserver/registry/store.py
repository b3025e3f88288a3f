"""``GenericStore``: create, get, list, update, delete and watch for any resource.

The single engine (upstream's ``registry/generic/registry/store.go``): system metadata, the
strategy's hooks, namespace checks, dry-run and deletion (graceful, held by finalizers, recorded for
the garbage collector). The rules live beside it: a write's checks in ``rest``, a DELETE's in
``deletion``, the API errors storage errors answer in ``storeerr``. Per-resource policy lives in
the ``Strategy``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Protocol

from apiserver.admission.attributes import Attributes, Operation
from apiserver.registry import deletion, rest, storeerr
from apiserver.registry import meta as objectmeta
from apiserver.registry.conversion import ConvertedWatch
from apiserver.registry.deletion import DeleteOptions, Deletion, TerminationStrategy
from apiserver.registry.strategy import Strategy
from apiserver.registry.updatesignals import AlreadyDeleting, DeleteNow, DryRun, EmptiedFinalizers
from apiserver.storage.errors import KeyExistsError, KeyNotFoundError, PreconditionError, StorageError
from apiserver.storage.interface import ListOptions, ObjectList, ObjectStorage, ObjectWatch, Preconditions
from apiserver.storage.keys import object_key, resource_prefix
from minikube_py import jsonutil
from minikube_py.api import errors
from minikube_py.api.models import alwayssent
from minikube_py.api.scheme import ResourceType
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.api.unstructured import Object

# Checks that the namespace of a namespaced write exists and is not terminating.
NamespaceCheck = Callable[[str, ResourceType, str], Awaitable[None]]
Mutation = Callable[[Object], Object]
# Records field ownership of a write: (live object or None on create, new object) -> new object
# with managedFields. Runs after defaulting, like upstream's field manager, which sees the
# object as decoded (defaults filled in), so the writer owns the defaulted fields too.
Track = Callable[[Object | None, Object], Object]


class Admission(Protocol):
    """The admission chain a store runs (``apiserver.admission.chain.AdmissionChain``)."""

    async def admit(self, attrs: Attributes) -> None: ...

    async def validate(self, attrs: Attributes) -> None: ...

    def __contains__(self, plugin: str) -> bool: ...


__all__ = ["Admission", "DeleteOptions", "Deletion", "GenericStore"]


class GenericStore:
    """One resource's REST semantics over an ``ObjectStorage`` (usually its cacher).

    Objects come in and go out in the served shape; with a ``strategy.conversion`` they are
    stored in another shape, converted on every write and on every read (see ``conversion``)."""

    def __init__(
        self,
        rt: ResourceType,
        strategy: Strategy,
        storage: ObjectStorage,
        namespace_check: NamespaceCheck | None = None,
    ) -> None:
        self.rt = rt
        self.strategy = strategy
        self.storage = storage
        self._namespace_check = namespace_check
        self._conversion = strategy.conversion
        self._gc_policy = strategy.gc_policy
        # Admission (``apiserver.admission``): mutating plugins after defaulting and field
        # tracking, validating ones after the strategy's validation; None admits everything.
        self.admission: Admission | None = None

    def with_strategy(self, strategy: Strategy) -> GenericStore:
        """This store with another strategy, as upstream copies a Store to give a subresource
        (``namespaces/finalize``) its own update strategy."""
        store = GenericStore(self.rt, strategy, self.storage, self._namespace_check)
        store.admission = self.admission
        return store

    def key(self, namespace: str, name: str) -> str:
        return object_key(self.rt.resource, name, namespace if self.rt.namespaced else "")

    def prefix(self, namespace: str) -> str:
        return resource_prefix(self.rt.resource, namespace if self.rt.namespaced else "")

    # reads

    async def get(self, namespace: str, name: str, resource_version: str = "") -> Object:
        try:
            stored = await self.storage.get(self.key(namespace, name), resource_version=resource_version)
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, name) from err
        return self._served(stored)

    async def list(self, namespace: str, opts: ListOptions) -> ObjectList:
        try:
            listed = await self.storage.list(self.prefix(namespace), opts)
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, "") from err
        if self._conversion is None:
            return listed
        return dataclasses.replace(listed, items=[self._conversion.from_storage(o) for o in listed.items])

    def watch(self, namespace: str, opts: ListOptions) -> ObjectWatch:
        watch = self.storage.watch(self.prefix(namespace), opts)
        return watch if self._conversion is None else ConvertedWatch(watch, self._conversion.from_storage)

    # conversion (identity, without copies, for kinds served in their stored shape)

    def _served(self, stored: Object) -> Object:
        return stored if self._conversion is None else self._conversion.from_storage(stored)

    def _stored(self, served: Object) -> Object:
        return served if self._conversion is None else self._conversion.to_storage(served)

    # writes

    async def create(
        self, namespace: str, obj: Object, *, dry_run: bool = False, track: Track | None = None
    ) -> Object:
        """Create ``obj``; ``track`` records the creator's field ownership (see ``Track``)."""
        rest.check_identity(self.rt, obj, namespace)
        objectmeta.fill_system_fields(obj)
        if self.strategy.spec_field is not None:
            obj["metadata"]["generation"] = 1
        self.strategy.default(obj)
        if track is not None:
            obj = track(None, obj)
        attrs = Attributes(Operation.CREATE, self.rt, "", namespace, obj["metadata"].get("name", ""), obj)
        attrs.dry_run = dry_run
        if self.admission is not None:
            await self.admission.admit(attrs)
        self.strategy.prepare_for_create(obj)
        name = obj["metadata"].get("name", "")
        rest.raise_invalid(self.rt, obj, rest.validate(self.rt, self.strategy, obj))
        if self._namespace_check is not None and self.rt.namespaced:
            await self._namespace_check(namespace, self.rt, name)
        if self.admission is not None:
            await self.admission.validate(attrs)
        alwayssent.fill(self.rt.api_version, self.rt.kind, obj)  # what upstream's JSON always has
        if dry_run:
            try:
                await self.storage.get(self.key(namespace, name))
            except KeyNotFoundError:
                return obj
            raise errors.already_exists(self.rt.resource, name, self.rt.group)
        try:
            return self._served(await self.storage.create(self.key(namespace, name), self._stored(obj)))
        except KeyExistsError as err:
            raise errors.already_exists(self.rt.resource, name, self.rt.group) from err
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, name) from err

    async def update(
        self,
        namespace: str,
        name: str,
        mutate: Mutation,
        *,
        subresource: str = "",
        dry_run: bool = False,
        track: Track | None = None,
    ) -> Object:
        """Apply ``mutate`` (which returns the desired object) to the current object and store
        the result; a ``resourceVersion`` in the desired object must match the current one.
        ``mutate`` and the strategy see both objects in the served shape; ``track`` records
        the writer's field ownership once the result is defaulted (see ``Track``)."""

        async def try_update(stored: Object | None) -> Object:
            assert stored is not None
            current = self._served(stored)
            desired = mutate(jsonutil.clone(current))
            new = await self._prepare_update(desired, current, subresource, namespace, name, track, dry_run)
            if dry_run:
                raise DryRun(new)
            if self._deletes_during_update(new, current):
                raise EmptiedFinalizers(new, current)
            return self._stored(new)

        key = self.key(namespace, name)
        try:
            updated = await self.storage.guaranteed_update(key, try_update)
        except DryRun as preview:
            return preview.object
        except EmptiedFinalizers as emptied:
            return await self._delete_emptied(key, name, emptied)
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, name) from err
        return self._served(updated)

    async def _prepare_update(
        self,
        desired: Object,
        current: Object,
        subresource: str,
        namespace: str,
        name: str,
        track: Track | None = None,
        dry_run: bool = False,
    ) -> Object:
        rest.check_identity(self.rt, desired, namespace, name)
        wanted_rv = desired.get("metadata", {}).get("resourceVersion")
        if wanted_rv and wanted_rv != current["metadata"]["resourceVersion"]:
            raise errors.conflict(self.rt.resource, name, self.rt.group, errors.MODIFIED)
        desired.setdefault("metadata", {})["resourceVersion"] = current["metadata"]["resourceVersion"]
        self.strategy.default(desired)
        if track is not None:
            desired = track(current, desired)
        attrs = Attributes(Operation.UPDATE, self.rt, subresource, namespace, name, desired, current)
        attrs.dry_run = dry_run
        if self.admission is not None:
            await self.admission.admit(attrs)
        if subresource == "status":
            desired = self.strategy.prepare_for_status_update(desired, current)
        else:
            self.strategy.prepare_for_update(desired, current)
        objectmeta.keep_system_fields(desired, current)
        rest.bump_generation(self.strategy, desired, current)
        rest.raise_invalid(self.rt, desired, rest.validate(self.rt, self.strategy, desired, current))
        if self.admission is not None:
            attrs.object = desired
            await self.admission.validate(attrs)
        alwayssent.fill(self.rt.api_version, self.rt.kind, desired)
        return desired

    async def delete(self, namespace: str, name: str, options: DeleteOptions) -> Object:
        """``delete_reporting``'s object: the one removed, or the one kept and marked."""
        return (await self.delete_reporting(namespace, name, options)).object

    async def delete_reporting(self, namespace: str, name: str, options: DeleteOptions) -> Deletion:
        """Remove the object now, or mark it for deletion (``deletionTimestamp``) while a grace
        period runs or finalizers remain, updating the garbage collector's finalizers from the
        options (upstream's ``Store.Delete``; a second DELETE may still change them). Kinds with
        a ``TerminationStrategy`` are first only marked, then wait for their own work."""
        current = await self.get(namespace, name)
        deletion.validate_options(options)
        if options.preconditions is not None:
            self._check_preconditions(options.preconditions, current, name)
        if self.admission is not None:
            attrs = Attributes(Operation.DELETE, self.rt, "", namespace, name, None, current, options.dry_run)
            attrs.options = deletion.options_object(options)
            await self.admission.admit(attrs)
            await self.admission.validate(attrs)
        if isinstance(self.strategy, TerminationStrategy):
            if not current["metadata"].get("deletionTimestamp"):
                return await self._start_termination(self.strategy, namespace, name, current, options)
            if not self.strategy.terminated(current):
                return Deletion(current, False)
        return await self._delete(namespace, name, current, options)

    def _finalized(self, obj: Object, deleted: bool) -> Deletion:
        return deletion.finalized(self.rt, obj, deleted, self.strategy.return_deleted_object)

    async def _delete(self, namespace: str, name: str, current: Object, options: DeleteOptions) -> Deletion:
        key = self.key(namespace, name)
        try:  # decide on a copy first: most deletions need no update
            self._mark_for_deletion(
                copy.deepcopy(current), self.strategy.graceful_delete_seconds(current), options
            )
        except AlreadyDeleting:
            return self._finalized(current, False)
        except DeleteNow as now:
            return await self._remove(key, name, now.object, options)

        async def try_update(stored: Object | None) -> Object:
            assert stored is not None
            grace = self.strategy.graceful_delete_seconds(self._served(stored))
            marked = self._mark_for_deletion(stored, grace, options)
            if options.dry_run:
                raise DryRun(marked)
            return marked

        try:
            marked = await self.storage.guaranteed_update(
                key, try_update, preconditions=options.preconditions
            )
        except DryRun as preview:
            return Deletion(self._served(preview.object), False)
        except AlreadyDeleting:
            return self._finalized(current, False)
        except DeleteNow as now:
            return await self._remove(key, name, self._served(now.object), options)
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, name) from err
        return Deletion(self._served(marked), False)

    def _mark_for_deletion(self, obj: Object, grace: int, options: DeleteOptions) -> Object:
        """``obj`` marked for deletion (upstream's ``updateForGracefulDeletionAndFinalizers``);
        raises ``AlreadyDeleting`` when a graceful deletion already runs and ``DeleteNow`` when
        neither a grace period nor a finalizer holds it."""
        meta = obj["metadata"]
        graceful, pending = deletion.before_delete(meta, grace, options)
        if pending:
            raise AlreadyDeleting(obj)
        finalizers = deletion.gc_finalizers(meta.get("finalizers") or [], options, self._gc_policy)
        if finalizers is not None:
            deletion.set_finalizers(meta, finalizers)
        held = bool(meta.get("finalizers"))
        if not graceful:
            if not held:
                raise DeleteNow(obj)
            deletion.mark_as_deleting(meta)
        elif not held and meta["deletionGracePeriodSeconds"] == 0:
            raise DeleteNow(obj)  # upstream stores the mark first, then deletes; skip that write
        return obj

    async def _remove(self, key: str, name: str, marked: Object, options: DeleteOptions) -> Deletion:
        """Remove the object; ``marked`` is it as this DELETE would leave it, the answer of a
        dry run."""
        if options.dry_run:
            return self._finalized(marked, True)
        try:
            removed = await self.storage.delete(key, preconditions=options.preconditions)
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, name) from err
        return self._finalized(self._served(removed), True)

    async def _start_termination(
        self,
        strategy: TerminationStrategy,
        namespace: str,
        name: str,
        current: Object,
        options: DeleteOptions,
    ) -> Deletion:
        """The first DELETE of a two-step kind: ``deletionTimestamp`` now, the strategy's mark,
        and always a UID precondition (upstream's namespace ``Delete``)."""
        given = options.preconditions or Preconditions()
        pre = Preconditions(given.uid or current["metadata"].get("uid"), given.resource_version)

        async def try_update(stored: Object | None) -> Object:
            assert stored is not None
            stored["metadata"].setdefault("deletionTimestamp", now_rfc3339())
            strategy.start_termination(stored, options)
            if options.dry_run:
                raise DryRun(stored)
            return stored

        try:
            marked = await self.storage.guaranteed_update(
                self.key(namespace, name), try_update, preconditions=pre
            )
        except DryRun as preview:
            return Deletion(self._served(preview.object), False)
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, name) from err
        return Deletion(self._served(marked), False)

    def _deletes_during_update(self, new: Object, old: Object) -> bool:
        if not deletion.deletes_during_update(new, old):
            return False
        return not isinstance(self.strategy, TerminationStrategy) or self.strategy.terminated(new)

    async def _delete_emptied(self, key: str, name: str, emptied: EmptiedFinalizers) -> Object:
        """Remove an object whose last finalizer an update took away; the answer is the object
        as updated (upstream's ``deleteWithoutFinalizers``)."""
        meta = emptied.current["metadata"]
        pre = Preconditions(uid=meta.get("uid"), resource_version=meta.get("resourceVersion"))
        try:
            await self.storage.delete(key, preconditions=pre)
        except KeyNotFoundError:
            pass  # another update removed it first
        except PreconditionError as err:
            raise errors.conflict(self.rt.resource, name, self.rt.group, errors.MODIFIED) from err
        except StorageError as err:
            raise storeerr.interpret(self.rt, err, name) from err
        return emptied.object

    def _check_preconditions(self, pre: Preconditions, obj: Object, name: str) -> None:
        try:
            pre.check(self.key("", name), obj)
        except PreconditionError as err:
            raise errors.conflict(self.rt.resource, name, self.rt.group, str(err)) from err

"""``GenericStore``: create, get, list, update, delete and watch for any resource.

The single engine (upstream's ``registry/generic/registry/store.go``): system metadata, the
strategy's hooks, namespace checks, dry-run, graceful deletion, and the translation of storage
errors into API errors with upstream's messages. Per-resource policy lives in the ``Strategy``.
"""

from __future__ import annotations

import builtins
import copy
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from apiserver.registry import meta as objectmeta
from apiserver.registry.conversion import ConvertedWatch
from apiserver.registry.strategy import Object, Strategy
from apiserver.storage.errors import (
    CompactedError,
    KeyExistsError,
    KeyNotFoundError,
    PreconditionError,
    StorageError,
    TooLargeResourceVersionError,
)
from apiserver.storage.interface import ListOptions, ObjectList, ObjectStorage, ObjectWatch, Preconditions
from apiserver.storage.keys import object_key, resource_prefix
from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType

# Checks that the namespace of a namespaced write exists and is not terminating.
NamespaceCheck = Callable[[str, ResourceType, str], Awaitable[None]]
Mutation = Callable[[Object], Object]


@dataclass(slots=True)
class DeleteOptions:
    grace_period_seconds: int | None = None
    propagation_policy: str = ""
    preconditions: Preconditions | None = None
    dry_run: bool = False


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

    def key(self, namespace: str, name: str) -> str:
        return object_key(self.rt.resource, name, namespace if self.rt.namespaced else "")

    def prefix(self, namespace: str) -> str:
        return resource_prefix(self.rt.resource, namespace if self.rt.namespaced else "")

    # reads

    async def get(self, namespace: str, name: str, resource_version: str = "") -> Object:
        try:
            stored = await self.storage.get(self.key(namespace, name), resource_version=resource_version)
        except StorageError as err:
            raise self._api_error(err, name) from err
        return self._served(stored)

    async def list(self, namespace: str, opts: ListOptions) -> ObjectList:
        try:
            listed = await self.storage.list(self.prefix(namespace), opts)
        except StorageError as err:
            raise self._api_error(err, "") from err
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

    async def create(self, namespace: str, obj: Object, *, dry_run: bool = False) -> Object:
        self._check_identity(obj, namespace)
        objectmeta.fill_system_fields(obj)
        if self.strategy.spec_field is not None:
            obj["metadata"]["generation"] = 1
        self.strategy.default(obj)
        self.strategy.prepare_for_create(obj)
        name = obj["metadata"].get("name", "")
        self._raise_invalid(obj, self._validate(obj))
        if self._namespace_check is not None and self.rt.namespaced:
            await self._namespace_check(namespace, self.rt, name)
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
            raise self._api_error(err, name) from err

    async def update(
        self,
        namespace: str,
        name: str,
        mutate: Mutation,
        *,
        subresource: str = "",
        dry_run: bool = False,
    ) -> Object:
        """Apply ``mutate`` (which returns the desired object) to the current object and store
        the result; a ``resourceVersion`` in the desired object must match the current one.
        ``mutate`` and the strategy see both objects in the served shape."""

        async def try_update(stored: Object | None) -> Object:
            assert stored is not None
            current = self._served(stored)
            desired = mutate(copy.deepcopy(current))
            new = self._prepare_update(desired, current, subresource, namespace, name)
            if dry_run:
                raise _DryRun(new)
            return self._stored(new)

        try:
            updated = await self.storage.guaranteed_update(self.key(namespace, name), try_update)
        except _DryRun as preview:
            return preview.object
        except StorageError as err:
            raise self._api_error(err, name) from err
        return self._served(await self._finish_deletion(namespace, updated))

    def _prepare_update(
        self, desired: Object, current: Object, subresource: str, namespace: str, name: str
    ) -> Object:
        self._check_identity(desired, namespace, name)
        wanted_rv = desired.get("metadata", {}).get("resourceVersion")
        if wanted_rv and wanted_rv != current["metadata"]["resourceVersion"]:
            raise errors.conflict(self.rt.resource, name, self.rt.group, errors.MODIFIED)
        desired.setdefault("metadata", {})["resourceVersion"] = current["metadata"]["resourceVersion"]
        self.strategy.default(desired)
        if subresource == "status":
            desired = self.strategy.prepare_for_status_update(desired, current)
        else:
            self.strategy.prepare_for_update(desired, current)
        objectmeta.keep_system_fields(desired, current)
        self._bump_generation(desired, current)
        self._raise_invalid(desired, self._validate(desired, current))
        return desired

    def _bump_generation(self, new: Object, old: Object) -> None:
        spec = self.strategy.spec_field
        if spec is not None and new.get(spec) != old.get(spec):
            new["metadata"]["generation"] = old["metadata"].get("generation", 1) + 1

    async def delete(self, namespace: str, name: str, options: DeleteOptions) -> Object:
        """Delete now, or mark for deletion (``deletionTimestamp``) while finalizers remain or
        a grace period runs."""
        key = self.key(namespace, name)
        current = await self.get(namespace, name)
        if options.preconditions is not None:
            self._check_preconditions(options.preconditions, current, name)
        grace = self._grace(current, options)
        if current["metadata"].get("finalizers") or grace > 0:
            return self._served(await self._mark_for_deletion(key, name, grace, options.dry_run))
        if options.dry_run:
            return current
        try:
            return self._served(await self.storage.delete(key, preconditions=options.preconditions))
        except StorageError as err:
            raise self._api_error(err, name) from err

    async def _mark_for_deletion(self, key: str, name: str, grace: int, dry_run: bool) -> Object:
        """The stored object marked with ``deletionTimestamp`` (its preview when ``dry_run``)."""

        async def try_update(current: Object | None) -> Object:
            assert current is not None
            if dry_run:
                raise _DryRun(_mark_deleted(current, grace))
            return _mark_deleted(current, grace)

        try:
            return await self.storage.guaranteed_update(key, try_update)
        except _DryRun as preview:
            return preview.object
        except StorageError as err:
            raise self._api_error(err, name) from err

    async def _finish_deletion(self, namespace: str, obj: Object) -> Object:
        """Once a stored object marked for deletion has no finalizers left, it is removed."""
        meta = obj["metadata"]
        if "deletionTimestamp" not in meta or meta.get("finalizers"):
            return obj
        if meta.get("deletionGracePeriodSeconds", 0) > 0:
            return obj
        pre = Preconditions(uid=meta.get("uid"), resource_version=meta.get("resourceVersion"))
        try:
            return await self.storage.delete(self.key(namespace, meta["name"]), preconditions=pre)
        except (KeyNotFoundError, PreconditionError):
            return obj  # someone else finished (or changed) it first

    def _grace(self, obj: Object, options: DeleteOptions) -> int:
        default = self.strategy.graceful_delete_seconds(obj)
        if default == 0:
            return 0
        return default if options.grace_period_seconds is None else max(options.grace_period_seconds, 0)

    def _check_preconditions(self, pre: Preconditions, obj: Object, name: str) -> None:
        try:
            pre.check(self.key("", name), obj)
        except PreconditionError as err:
            raise errors.conflict(self.rt.resource, name, self.rt.group, str(err)) from err

    # helpers

    def _check_identity(self, obj: Object, namespace: str, name: str = "") -> None:
        if not isinstance(obj.get("metadata", {}), dict):
            raise errors.bad_request("metadata must be an object")
        meta = obj.setdefault("metadata", {})
        for field in ("name", "generateName", "namespace", "resourceVersion", "uid"):
            if field in meta and meta[field] is not None and not isinstance(meta[field], str):
                raise errors.bad_request(
                    f"json: cannot unmarshal {type(meta[field]).__name__} into Go struct field "
                    f"ObjectMeta.metadata.{field} of type string"
                )
        if self.rt.namespaced:
            if meta.get("namespace") and meta["namespace"] != namespace:
                raise errors.bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        if name and meta.get("name") and meta["name"] != name:
            raise errors.bad_request("the name of the object does not match the name on the URL")
        if name:
            meta["name"] = name

    def _validate(self, obj: Object, old: Object | None = None) -> builtins.list[errors.Cause]:
        causes = objectmeta.validate_meta(
            obj, namespaced=self.rt.namespaced, name_rule=self.strategy.name_rule
        )
        causes += self.strategy.validate(obj) if old is None else self.strategy.validate_update(obj, old)
        return causes

    def _raise_invalid(self, obj: Object, causes: builtins.list[errors.Cause]) -> None:
        if causes:
            name = obj.get("metadata", {}).get("name", "")
            raise errors.invalid(self.rt.kind, name, self.rt.group, causes)

    def _api_error(self, err: StorageError, name: str) -> errors.ApiError:
        rt = self.rt
        if isinstance(err, KeyNotFoundError):
            return errors.not_found(rt.resource, name, rt.group)
        if isinstance(err, KeyExistsError):
            return errors.already_exists(rt.resource, name, rt.group)
        if isinstance(err, PreconditionError):
            return errors.conflict(rt.resource, name, rt.group, str(err))
        if isinstance(err, CompactedError):
            return errors.expired(str(err))
        if isinstance(err, TooLargeResourceVersionError):
            return errors.timeout(str(err))
        return errors.ApiError(err.code, err.reason, str(err))


class _DryRun(Exception):
    """Aborts a guaranteed update after the new object was computed (``dryRun=All``)."""

    def __init__(self, obj: Object) -> None:
        super().__init__("dry run")
        self.object = obj


def _mark_deleted(obj: Object, grace: int) -> Object:
    meta = obj["metadata"]
    if "deletionTimestamp" not in meta:
        meta["deletionTimestamp"] = objectmeta.now_rfc3339()
        meta["deletionGracePeriodSeconds"] = grace
    return obj

"""``FieldManager``: server-side apply and ownership tracking for one kind and (sub)resource.

Upstream's field manager chain, in the order it runs:

- the applied configuration must be of the served kind (``invalid object type: ...``) and may
  not carry ``metadata.managedFields`` (400);
- ``kubectl`` may take over fields client-side apply last applied (``lastapplied``), and keeps
  an existing last-applied annotation current;
- ``Apply`` entries record exactly the applied fields; ``Update`` entries (create, update,
  patch) the fields the write added or changed, merged with what the manager had;
- entry times change when the manager changed something;
- identity and system metadata (``apiVersion``, ``kind``, ``metadata.name``, ``uid``,
  ``resourceVersion``, ...) are never owned.

The fields a (sub)resource resets are ignored (upstream's ``GetResetFields``): the status
through the main resource, everything but the status and metadata through ``/status``, all
but ``spec.replicas`` through ``/scale`` (whose entries land on the parent, as upstream's).

``managedFields`` sent by a client in an ordinary write are followed as upstream does: used
when they decode and are not empty, taken from the live object otherwise, and cleared by
``[]`` or ``[{}]``. Writes through a subresource always keep the live ones. An existing object
without any managedFields is not tracked by ordinary writes (upstream's "skip non-applied"):
tracking starts with its creation or with an apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from apiserver.patch import lastapplied
from apiserver.patch.apply import ApplyConflicts, Scope, apply_config, take_ownership
from apiserver.patch.compare import same
from apiserver.patch.createdfields import created_fields_v1
from apiserver.patch.errors import PatchError
from apiserver.patch.fieldpath import Path, field
from apiserver.patch.fieldset import InvalidConfig
from apiserver.patch.managedfields import (
    APPLY,
    UPDATE,
    Entry,
    Managed,
    Manager,
    decode,
    encode,
    encode_entry,
    is_reset,
)
from apiserver.patch.schema import Fields
from minikube_py.api.timestamps import now_rfc3339
from minikube_py.api.unstructured import Object as JSONMap

_SYSTEM_META = (
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
)
_UNOWNED_TOP = ("apiVersion", "kind")
STRIPPED: frozenset[Path] = frozenset(
    {(field(name),) for name in _UNOWNED_TOP}
    | {(field("metadata"),)}
    | {(field("metadata"), field(name)) for name in _SYSTEM_META}
)
"""Paths nobody owns (upstream's ``stripMetaManager``)."""


@dataclass(frozen=True)
class FieldManager:
    """Field ownership of one kind written through the main resource or ``subresource``."""

    schema: Fields
    api_version: str
    kind: str
    status_field: str | None = None
    subresource: str = ""

    @property
    def scope(self) -> Scope:
        return Scope(self.schema, self.api_version, self._ignored)

    def _ignored(self, path: Path) -> bool:
        if self.subresource == "scale":
            return path[:2] != (field("spec"), field("replicas"))
        status = field(self.status_field) if self.status_field else None
        if self.subresource:
            return path[0] not in (field("metadata"), status)
        return path[0] == status

    def update(self, live: JSONMap | None, new: JSONMap, manager: str) -> JSONMap:
        """``new`` with managedFields recording an ``Update`` by ``manager`` (``live`` is None
        on create). Never fails: a write is never refused for its bookkeeping."""
        meta = new.get("metadata", {})
        if not isinstance(meta, dict):
            return new  # the store refuses it
        if live is None and not self.subresource and meta.get("managedFields") is None:
            return self._created(new, manager)
        managed = self._base(live or {}, new)
        new = _without_managed_fields(new)
        if not managed and live is not None:
            return new
        old = _without_managed_fields(live or {})
        managed, comparison = take_ownership(old, new, managed, None, True, self.scope)
        changed = comparison.changed() - STRIPPED
        if changed:
            owner = Manager.of(manager, UPDATE, self.api_version, self.subresource)
            previous = managed.get(owner)
            fields = changed | (previous.fields if previous else set())
            managed[owner] = Entry(fields, self.api_version, now_rfc3339())
        return _with_managed_fields(new, managed)

    def _created(self, new: JSONMap, manager: str) -> JSONMap:
        """``update(None, new)`` for the usual create (no managedFields sent), in one walk."""
        ignored = (*_UNOWNED_TOP, self.status_field) if self.status_field else _UNOWNED_TOP
        tree = created_fields_v1(new, self.schema, ignored, _SYSTEM_META)
        if not tree:
            return _without_managed_fields(new)
        owner = Manager.of(manager, UPDATE, self.api_version)
        entry = encode_entry(owner, self.api_version, now_rfc3339(), tree)
        return {**new, "metadata": {**new["metadata"], "managedFields": [entry]}}

    def _base(self, live: JSONMap, new: JSONMap) -> Managed:
        if self.subresource:
            return _decode_quietly(live)
        sent = new.get("metadata", {}).get("managedFields")
        if is_reset(sent):
            return {}
        return _decode_quietly(new) or _decode_quietly(live)

    def apply(self, live: JSONMap | None, config: JSONMap, manager: str, force: bool) -> JSONMap:
        """``live`` (None: the object does not exist yet) with ``config`` applied by
        ``manager``. Raises ``PatchError`` (400) for a bad configuration and
        ``ApplyConflicts`` unless ``force``."""
        self._check_config(config)
        managed = _decode_quietly(live or {})
        current = _without_managed_fields(live or {})
        applier = Manager.of(manager, APPLY, self.api_version, self.subresource)
        try:
            merged, managed = self._apply(current, config, managed, applier, force)
        except InvalidConfig as err:
            what = self._describe(config)
            raise PatchError(f"failed to create typed patch object ({what}): {err}") from None
        self._finish_applier(managed, applier, changed=not same(current, merged))
        if manager == lastapplied.KUBECTL:
            lastapplied.sync(merged, config)
        return _with_managed_fields(merged, managed)

    def _apply(
        self, live: JSONMap, config: JSONMap, managed: Managed, applier: Manager, force: bool
    ) -> tuple[JSONMap, Managed]:
        try:
            return apply_config(live, config, managed, applier, force, self.scope)
        except ApplyConflicts as err:
            if applier.name != lastapplied.KUBECTL:
                raise
            allowed = lastapplied.allowed_conflicts(live, self.schema, self.api_version)
            remaining = [c for c in err.conflicts if c.path not in allowed]
            if remaining:
                raise ApplyConflicts(remaining) from None
            return apply_config(live, config, managed, applier, True, self.scope)

    @staticmethod
    def _finish_applier(managed: Managed, applier: Manager, *, changed: bool) -> None:
        entry = managed.get(applier)
        if entry is None:
            return
        entry.fields = entry.fields - STRIPPED
        if not entry.fields:
            del managed[applier]
        elif changed or entry.time is None:
            entry.time = now_rfc3339()

    def _check_config(self, config: JSONMap) -> None:
        api_version, kind = config.get("apiVersion", ""), config.get("kind", "")
        if (api_version, kind) != (self.api_version, self.kind):
            group, _, version = str(api_version).rpartition("/")
            raise PatchError(f"invalid object type: {group}/{version}, Kind={kind}")
        meta = config.get("metadata", {})
        if not isinstance(meta, dict):
            raise PatchError("metadata must be an object")
        if meta.get("managedFields") is not None:
            raise PatchError("metadata.managedFields must be nil")

    def _describe(self, config: JSONMap) -> str:
        meta = config.get("metadata") or {}
        group, _, version = self.api_version.rpartition("/")
        return f"{meta.get('namespace', '')}/{meta.get('name', '')}; {group}/{version}, Kind={self.kind}"


def _decode_quietly(obj: JSONMap) -> Managed:
    meta = obj.get("metadata")
    try:
        return decode(meta.get("managedFields") if isinstance(meta, dict) else None)
    except ValueError:
        return {}


def _without_managed_fields(obj: JSONMap) -> JSONMap:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _with_managed_fields(obj: JSONMap, managed: Managed) -> JSONMap:
    meta = {k: v for k, v in obj.get("metadata", {}).items() if k != "managedFields"}
    if managed:
        meta["managedFields"] = encode(managed)
    return {**obj, "metadata": meta}

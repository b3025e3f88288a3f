"""Field management at the HTTP edge: who writes, server-side apply, and ownership tracking.

- The manager of a write is the ``fieldManager`` query parameter, else the User-Agent up to its
  first ``/`` (upstream's ``managerOrUserAgent``: ``kubectl/v1.32.0 (linux/amd64) ...`` gives
  ``kubectl``). Options are validated as upstream's ``Validate{Create,Update,Patch}Options``:
  422 ``PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for
  apply patch``, ``force`` only on apply patches, at most 128 bytes of printable characters.
- ``tracker`` is the store hook by which an ordinary write records an ``Update`` entry.
- ``ApplyRequest`` turns an ``application/apply-patch+yaml`` PATCH into a mutation;
  ``apply_to_store`` runs it, creating the object (201) when it is missing, except through a
  subresource (404, as upstream's subresources never create).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from apiserver.endpoints.fieldvalidation import check_apply
from apiserver.endpoints.typecheck import check_applied, check_apply_config
from apiserver.endpoints.yamlbody import decode_yaml_object
from apiserver.patch.apply import ApplyConflicts
from apiserver.patch.errors import PatchError
from apiserver.patch.fieldmanager import FieldManager
from apiserver.patch.managedfields import FIELD_MANAGER_MAX_LENGTH
from apiserver.patch.schemas import schema_for
from apiserver.registry.store import GenericStore, Track
from apiserver.request.queryparams import to_bool
from minikube_py.api import errors
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object


def field_manager(store: GenericStore, subresource: str = "") -> FieldManager:
    rt = store.rt
    schema = schema_for(rt.group, rt.kind)
    return FieldManager(schema, rt.api_version, rt.kind, store.strategy.status_field, subresource)


def manager_name(request: Request, query: dict[str, str], options: str, *, apply: bool = False) -> str:
    """The manager of a write whose options are ``options`` (``CreateOptions``, ...)."""
    name = query.get("fieldManager", "")
    causes: list[errors.Cause] = []
    if options == "PatchOptions" and not apply and "force" in query:
        causes.append(
            errors.Cause(
                "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch", "force"
            )
        )
    if apply and not name:
        causes.append(
            errors.Cause("FieldValueRequired", "Required value: is required for apply patch", "fieldManager")
        )
    causes += _manager_name_causes(name)
    if causes:
        raise errors.invalid(options, "", "meta.k8s.io", causes)
    return name or user_agent_prefix(request.headers.get("user-agent", ""))


def _manager_name_causes(name: str) -> list[errors.Cause]:
    causes = []
    if len(name.encode()) > FIELD_MANAGER_MAX_LENGTH:
        message = f"Too long: may not be more than {FIELD_MANAGER_MAX_LENGTH} bytes"
        causes.append(errors.Cause("FieldValueTooLong", message, "fieldManager"))
    for index, char in enumerate(name):
        if not char.isprintable():
            where = len(name[:index].encode())
            message = f'Invalid value: "{name}": invalid character U+{ord(char):04X} (at position {where})'
            causes.append(errors.Cause("FieldValueInvalid", message, "fieldManager"))
    return causes


def user_agent_prefix(user_agent: str) -> str:
    """The User-Agent before its first ``/``, printable characters only, at most 128 bytes."""
    out = ""
    for char in user_agent.split("/")[0]:
        if not char.isprintable():
            continue
        if len((out + char).encode()) > FIELD_MANAGER_MAX_LENGTH:
            break
        out += char
    return out


def tracker(fields: FieldManager, manager: str) -> Track:
    """The store hook recording an ``Update`` by ``manager`` in a write's managedFields."""

    def track(live: Object | None, new: Object) -> Object:
        return fields.update(live, new, manager)

    return track


def _force(query: dict[str, str]) -> bool:
    """``PatchOptions.force`` as upstream converts it (``Convert_Slice_string_To_Pointer_bool``:
    given and neither ``0`` nor ``false`` in any case is true; never an error)."""
    value = query.get("force")
    return value is not None and to_bool(value)


@dataclass(frozen=True)
class ApplyRequest:
    """One server-side apply: the configuration, who applies it, and whether it forces."""

    fields: FieldManager
    config: Object
    manager: str
    force: bool
    rt: ResourceType | None = None

    @classmethod
    def parse(
        cls, store: GenericStore, subresource: str, request: Request, query: dict[str, str], raw: bytes
    ) -> ApplyRequest:
        """Validate the options, then decode the body and refuse undeclared fields; 422 and 400
        Status errors."""
        manager = manager_name(request, query, "PatchOptions", apply=True)
        force = _force(query)
        fields, config = field_manager(store, subresource), decode_yaml_object(raw)
        check_apply_config(store.rt, fields.schema, config)  # wrong kinds of values first
        check_apply(store.rt, fields.schema, config)
        return cls(fields, config, manager, force, store.rt)

    def onto(self, current: Object | None) -> Object:
        """``current`` after the apply (None: the object to create). 400 for a bad
        configuration, 409 ``Conflict`` with ``FieldManagerConflict`` causes."""
        try:
            applied = self.fields.apply(current, self.config, self.manager, self.force)
        except PatchError as err:
            raise errors.ApiError(err.code, err.reason, str(err)) from None
        except ApplyConflicts as err:
            causes = [errors.Cause("FieldManagerConflict", message, path) for message, path in err.causes()]
            raise errors.ApiError(409, "Conflict", str(err), causes=causes) from None
        if self.rt is not None:
            check_applied(self.rt, applied, self.config)
        return applied

    def new_object(self, name: str) -> Object:
        """The object an apply creates; its name must be the URL's (upstream's ``checkName``)."""
        obj = self.onto(None)
        found = obj.get("metadata", {}).get("name", "")
        if found != name:
            raise errors.bad_request(
                f"the name of the object ({found}) does not match the name on the URL ({name})"
            )
        return obj


async def apply_to_store(
    store: GenericStore, namespace: str, name: str, subresource: str, apply: ApplyRequest, dry_run: bool
) -> tuple[Object, bool]:
    """Apply to the stored object, or create it; returns the object and whether it was created."""

    async def update() -> Object:
        return await store.update(namespace, name, apply.onto, subresource=subresource, dry_run=dry_run)

    try:
        return await update(), False
    except errors.ApiError as err:
        if err.code != 404 or subresource:
            raise
    try:
        return await store.create(namespace, apply.new_object(name), dry_run=dry_run), True
    except errors.ApiError as err:
        if err.reason != "AlreadyExists":
            raise
    return await update(), False  # created by someone else meanwhile: apply to theirs

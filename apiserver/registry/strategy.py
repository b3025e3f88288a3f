"""``Strategy``: the policy of one resource; ``GenericStore`` is the engine that calls it.

A strategy says what is special about a resource: defaults and cleanup before create and
update, validation, which fields can be selected, whether deletion is graceful, and the Table
columns ``kubectl get`` shows. The base class is the policy of a plain object (ConfigMap-like);
resources override only what differs, one small file each under ``resources/``.

A strategy class declares the kinds it serves (``kinds = (apps_deployment.Deployment,)``, the
kinds' models); the catalog finds every such class by importing each module of ``resources/``
(``strategies.py``), so a kind's strategy is one file and nothing lists it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Self

from apiserver.registry.conversion import StorageConversion
from apiserver.registry.deletion import DELETE_DEPENDENTS
from minikube_py import jsonutil
from minikube_py.api.errors import Cause
from minikube_py.api.models.base import K8sModel
from minikube_py.api.unstructured import Object

#: the models of the kinds a strategy serves
ServedModels = tuple[type[K8sModel], ...]

# (name, type, format, description, priority); priority 1 columns show with ``-o wide``.
Column = tuple[str, str, str, str, int]
NAME_COLUMN: Column = ("Name", "string", "name", "Name must be unique within a namespace.", 0)
CREATED_AT_COLUMN: Column = ("Created At", "date", "", "Creation timestamp of the object.", 0)


class Strategy:
    """Defaults for every hook; override per resource."""

    #: the models of the kinds this class serves; only the class that writes ``kinds`` serves
    #: them (a subclass inherits no kinds), every served kind has exactly one strategy
    kinds: ClassVar[ServedModels] = ()
    #: ``rest.GarbageCollectionPolicy``: what a DELETE naming no propagation policy does to the
    #: object's dependents (``deletion.DELETE_DEPENDENTS``, ``ORPHAN_DEPENDENTS``, ``UNSUPPORTED``)
    gc_policy: ClassVar[str] = DELETE_DEPENDENTS
    #: fields the watch cache indexes (values as ``selectable_fields`` gives them), as upstream
    #: indexes pods by ``spec.nodeName`` for the node agents' field-selected lists
    indexed_fields: ClassVar[tuple[str, ...]] = ()
    #: False: the kind is served by its own endpoints (metrics) and gets no store at all
    stored: ClassVar[bool] = True
    #: the columns of the kind's ``Table`` rows (``kubectl get``), as ``table_cells`` fills them
    columns: ClassVar[Sequence[Column]] = (NAME_COLUMN, CREATED_AT_COLUMN)

    #: the part of the object that the ``/status`` subresource owns (None: no status split)
    status_field: str | None = None
    #: the part whose change bumps ``metadata.generation``
    spec_field: str | None = None
    #: how names are validated: "subdomain" (most kinds), "label" (namespaces, services)
    name_rule: str = "subdomain"
    #: a DELETE that removes the object answers with it instead of a ``Status`` naming it
    #: (upstream's ``Store.ReturnDeletedObject``: pods, services, namespaces, service accounts,
    #: resource quotas)
    return_deleted_object: bool = False
    #: set when this version is stored in another version's shape (``conversion.py``); every
    #: other hook sees the served shape, except ``selectable_fields``, which reads stored objects
    conversion: StorageConversion | None = None

    @classmethod
    def for_storage(cls, stored_objects: Callable[[], Iterable[Object]]) -> Self:
        """The strategy of one store; ``stored_objects`` lists what the store holds now (a
        Service's allocators read the addresses and ports already taken)."""
        return cls()

    def default(self, obj: Object) -> None:
        """Upstream's defaulting: fill unset fields of every incoming object (create, update,
        patch result), before the prepare hooks."""

    def prepare_for_create(self, obj: Object) -> None:
        """Reset what a client may not set on create (e.g. status)."""
        if self.status_field is not None:
            obj.pop(self.status_field, None)

    def prepare_for_update(self, new: Object, old: Object) -> None:
        """Keep what a main-resource update may not change (the status)."""
        if self.status_field is not None:
            if self.status_field in old:
                new[self.status_field] = jsonutil.clone(old[self.status_field])
            else:
                new.pop(self.status_field, None)

    def prepare_for_status_update(self, new: Object, old: Object) -> Object:
        """A status update changes only the status: the result is ``old`` with ``new``'s status."""
        assert self.status_field is not None
        merged: Object = jsonutil.clone(old)
        merged["metadata"] = new["metadata"]
        if self.status_field in new:
            merged[self.status_field] = new[self.status_field]
        else:
            merged.pop(self.status_field, None)
        return merged

    def validate(self, obj: Object) -> list[Cause]:
        """Errors of a new object (beyond ObjectMeta, which the store checks)."""
        return []

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        return self.validate(new)

    def selectable_fields(self, obj: Object) -> dict[str, str]:
        """Fields a ``fieldSelector`` may name, with their values. ``obj`` is the object as stored
        (selectors run inside storage and the watch cache): the served shape unless
        ``conversion`` is set, as upstream reads selectable fields from the internal object."""
        meta = obj.get("metadata", {})
        fields = {"metadata.name": meta.get("name", "")}
        if "namespace" in meta:
            fields["metadata.namespace"] = meta.get("namespace", "")
        return fields

    def graceful_delete_seconds(self, obj: Object) -> int:
        """Seconds of graceful deletion (0: delete at once)."""
        return 0

    def table_columns(self) -> list[Column]:
        return list(self.columns)

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta = obj.get("metadata", {})
        return [meta.get("name", ""), meta.get("creationTimestamp", "")]

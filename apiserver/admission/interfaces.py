"""What an admission plugin is (upstream's ``admission.Interface``, ``MutationInterface`` and
``ValidationInterface``): a name, the operations it handles, and ``admit`` (may change
``attrs.object``) and/or ``validate`` (may only refuse). Both raise ``ApiError`` to refuse.

A plugin is mutating if it defines ``admit`` and validating if it defines ``validate``; a
webhook plugin is one more plugin of either kind."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from apiserver.admission.attributes import Attributes, Operation
from apiserver.lookup import Lookup, ObjectInterfaces, StatusWriter


class Plugin:
    """Base of every plugin: ``name`` and the operations it handles (upstream's ``Handler``)."""

    name: str = ""
    operations: frozenset[Operation] = frozenset(Operation)

    def __init__(self, operations: Iterable[Operation] | None = None) -> None:
        if operations is not None:
            self.operations = frozenset(operations)

    def handles(self, operation: Operation) -> bool:
        return operation in self.operations


@runtime_checkable
class MutatingPlugin(Protocol):
    name: str

    def handles(self, operation: Operation) -> bool: ...

    async def admit(self, attrs: Attributes) -> None:
        """Change ``attrs.object`` in place, or raise an ``ApiError`` to refuse."""


@runtime_checkable
class ValidatingPlugin(Protocol):
    name: str

    def handles(self, operation: Operation) -> bool: ...

    async def validate(self, attrs: Attributes) -> None:
        """Raise an ``ApiError`` to refuse; never change anything."""


class PluginLookup(Lookup, ObjectInterfaces, StatusWriter, Protocol):
    """What a plugin is built over (``apiserver.lookup``; the registry's ``Catalog``): reads of
    cluster state, the served versions of a kind (webhooks) and quota status writes."""

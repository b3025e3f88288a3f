"""The scheme: which resource types exist and how kinds map to group/version/resource.

One ``ResourceType`` per served resource carries everything discovery, routing, the registry
and clients need to know about it (kind, plural and singular names, scope, short names,
categories, verbs, subresources). ``Scheme`` indexes them both ways.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True, slots=True)
class Subresource:
    """``pods/status``, ``deployments/scale``... ``group``/``version``/``kind`` of the object
    the subresource takes and returns (empty: the parent's group/version)."""

    name: str
    kind: str
    verbs: tuple[str, ...]
    group: str | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True)
class ResourceType:
    group: str
    version: str
    kind: str
    resource: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[Subresource, ...] = ()
    singular: str = field(default="")

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_version(self) -> str:
        return self.api_version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def singular_name(self) -> str:
        return self.singular or self.kind.lower()

    @property
    def qualified_resource(self) -> str:
        """``deployments.apps``; ``configmaps`` for the core group (as error messages say)."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def subresource(self, name: str) -> Subresource | None:
        return next((s for s in self.subresources if s.name == name), None)


class Scheme:
    """Resource types by (group, version, resource) and by (apiVersion, kind)."""

    def __init__(self, types: Iterable[ResourceType] = ()) -> None:
        self._by_resource: dict[tuple[str, str, str], ResourceType] = {}
        self._by_kind: dict[tuple[str, str], ResourceType] = {}
        for rt in types:
            self.register(rt)

    def register(self, rt: ResourceType) -> None:
        key = (rt.group, rt.version, rt.resource)
        if key in self._by_resource:
            raise ValueError(f"resource {rt.resource} in {rt.api_version} is registered twice")
        self._by_resource[key] = rt
        self._by_kind.setdefault((rt.api_version, rt.kind), rt)

    def by_resource(self, group: str, version: str, resource: str) -> ResourceType | None:
        return self._by_resource.get((group, version, resource))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        return self._by_kind.get((api_version, kind))

    def __iter__(self) -> Iterator[ResourceType]:
        return iter(self._by_resource.values())

    def group_versions(self) -> list[tuple[str, str]]:
        """(group, version) pairs in registration order, the core group first."""
        seen: dict[tuple[str, str], None] = {}
        for rt in self:
            seen.setdefault((rt.group, rt.version), None)
        return sorted(seen, key=lambda gv: gv[0] != "")

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        return [rt for rt in self if (rt.group, rt.version) == (group, version)]

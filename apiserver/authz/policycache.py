"""Roles and bindings as the RBAC authorizer reads them: from the watch caches, with the
bindings indexed by subject (user, group, service account) so that a request looks only at
the bindings that name its user or groups, however many bindings exist.

Each index is rebuilt when its cache's resourceVersion moves (a binding or role changed), on
the next request that needs it; reads between changes are dictionary lookups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from apiserver.authz.rules import PolicyRule, parse_rules
from apiserver.request.user import UserInfo

RBAC_GROUP = "rbac.authorization.k8s.io"
SA_PREFIX = "system:serviceaccount:"
T = TypeVar("T")


class CachedObjects(Protocol):
    """What the authorizer needs of a watch cache (``Cacher``)."""

    resource_version: int

    def objects(self, prefix: str = "") -> list[dict[str, Any]]: ...


@dataclass(frozen=True, slots=True)
class Binding:
    """One binding of a role to one of its subjects (the first that matched the user)."""

    kind: str  # RoleBinding or ClusterRoleBinding
    name: str
    namespace: str
    role_kind: str
    role_name: str
    role_group: str
    subject: dict[str, str]
    order: int

    def describe(self) -> str:
        """Upstream's binding describer: ``RoleBinding "b/ns" of ClusterRole "edit" to User "alice"``."""
        name = f"{self.name}/{self.namespace}" if self.kind == "RoleBinding" else self.name
        return f'{self.kind} "{name}" of {self.role_kind} "{self.role_name}" to {self._subject()}'

    def _subject(self) -> str:
        kind, name = self.subject.get("kind", ""), self.subject.get("name", "")
        if kind == "ServiceAccount":
            return f'{kind} "{name}/{self.subject.get("namespace") or self.namespace}"'
        return f'{kind} "{name}"'


@dataclass
class SubjectIndex:
    """Bindings by the subjects they name."""

    users: dict[str, list[tuple[Binding, int]]] = field(default_factory=dict)
    groups: dict[str, list[tuple[Binding, int]]] = field(default_factory=dict)
    service_accounts: dict[str, list[tuple[Binding, int]]] = field(default_factory=dict)

    def add(self, obj: dict[str, Any], kind: str, order: int) -> None:
        meta, ref = obj.get("metadata", {}), obj.get("roleRef") or {}
        namespace = meta.get("namespace", "")
        for position, subject in enumerate(obj.get("subjects") or []):
            binding = Binding(
                kind,
                meta.get("name", ""),
                namespace,
                ref.get("kind", ""),
                ref.get("name", ""),
                ref.get("apiGroup", ""),
                subject,
                order,
            )
            entry, name = (binding, position), subject.get("name", "")
            match subject.get("kind"):
                case "User":
                    self.users.setdefault(name, []).append(entry)
                case "Group":
                    self.groups.setdefault(name, []).append(entry)
                case "ServiceAccount":
                    sa_namespace = subject.get("namespace") or namespace
                    if sa_namespace:
                        self.service_accounts.setdefault(f"{sa_namespace}:{name}", []).append(entry)

    def for_user(self, user: UserInfo) -> list[Binding]:
        """The bindings naming ``user``, each once (by its first matching subject), in order."""
        entries = list(self.users.get(user.name, ()))
        for group in user.groups:
            entries += self.groups.get(group, ())
        if user.name.startswith(SA_PREFIX):
            entries += self.service_accounts.get(user.name[len(SA_PREFIX) :], ())
        entries.sort(key=lambda e: (e[0].order, e[1]))
        seen: set[int] = set()
        out = []
        for binding, _ in entries:
            if binding.order not in seen:
                seen.add(binding.order)
                out.append(binding)
        return out


class _Memo(Generic[T]):
    """A value derived from one cache, recomputed when the cache's resourceVersion moves."""

    def __init__(self, cache: CachedObjects, build: Callable[[list[dict[str, Any]]], T]) -> None:
        self.cache, self.build = cache, build
        self.version = -1
        self.value: T | None = None

    def get(self) -> T:
        if self.value is None or self.version != self.cache.resource_version:
            self.version = self.cache.resource_version
            self.value = self.build(self.cache.objects())
        return self.value


def _index_cluster_bindings(objs: list[dict[str, Any]]) -> SubjectIndex:
    index = SubjectIndex()
    for order, obj in enumerate(objs):
        index.add(obj, "ClusterRoleBinding", order)
    return index


def _index_bindings(objs: list[dict[str, Any]]) -> dict[str, SubjectIndex]:
    by_namespace: dict[str, SubjectIndex] = {}
    for order, obj in enumerate(objs):
        namespace = obj.get("metadata", {}).get("namespace", "")
        by_namespace.setdefault(namespace, SubjectIndex()).add(obj, "RoleBinding", order)
    return by_namespace


def _rules_by_name(objs: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[PolicyRule, ...]]:
    return {
        (o["metadata"].get("namespace", ""), o["metadata"]["name"]): parse_rules(o.get("rules")) for o in objs
    }


class PolicyCache:
    """Roles by name and bindings by subject, from the four RBAC watch caches."""

    def __init__(
        self,
        roles: CachedObjects,
        cluster_roles: CachedObjects,
        bindings: CachedObjects,
        cluster_bindings: CachedObjects,
    ) -> None:
        self._roles = _Memo(roles, _rules_by_name)
        self._cluster_roles = _Memo(cluster_roles, _rules_by_name)
        self._bindings = _Memo(bindings, _index_bindings)
        self._cluster_bindings = _Memo(cluster_bindings, _index_cluster_bindings)

    def version(self) -> tuple[int, int, int, int]:
        """Changes whenever any of the four caches changes (decisions may then differ)."""
        return (
            self._roles.cache.resource_version,
            self._cluster_roles.cache.resource_version,
            self._bindings.cache.resource_version,
            self._cluster_bindings.cache.resource_version,
        )

    def bindings_for(self, user: UserInfo, namespace: str) -> Iterator[Binding]:
        """Cluster role bindings naming ``user``, then (with a namespace) its role bindings there."""
        yield from self._cluster_bindings.get().for_user(user)
        if namespace:
            index = self._bindings.get().get(namespace)
            if index is not None:
                yield from index.for_user(user)

    def role_rules(self, kind: str, name: str, namespace: str) -> tuple[PolicyRule, ...] | None:
        """The rules of a role reference (None: no such role)."""
        if kind == "ClusterRole":
            return self._cluster_roles.get().get(("", name))
        return self._roles.get().get((namespace, name))

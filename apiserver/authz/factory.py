"""``Authz``: the configured authorizer union (``--authorization-mode``, upstream's names, in
order) with RBAC's rule resolver, which the escalation checks and rules reviews need."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

from apiserver.authz.attributes import Authorizer
from apiserver.authz.node import NodeAuthorizer, node_name
from apiserver.authz.nodegraph import NodeGraph
from apiserver.authz.policycache import RBAC_GROUP, CachedObjects, PolicyCache
from apiserver.authz.rbac import RBACAuthorizer, RuleResolver
from apiserver.authz.rules import PolicyRule
from apiserver.authz.union import AlwaysAllow, AlwaysDeny, Union
from apiserver.lookup import Lookup
from apiserver.request.user import UserInfo
from apiserver.storage.errors import StorageError

MODES = ("AlwaysAllow", "AlwaysDeny", "Node", "RBAC")
EVERYTHING = (PolicyRule(("*",), ("*",), ("*",)), PolicyRule(("*",), non_resource_urls=("*",)))


@dataclass
class RuleList:
    """What a user may do in a namespace, as far as the authorizers can enumerate it."""

    rules: list[PolicyRule] = field(default_factory=list)
    incomplete: bool = False
    errors: list[str] = field(default_factory=list)


class FreshCache(CachedObjects, Protocol):
    """A watch cache that can catch up with the store (``Cacher``)."""

    async def current_resource_version(self) -> int: ...

    async def wait_until_fresh(self, minimum: int) -> None: ...


@dataclass
class Authz:
    authorizer: Authorizer
    modes: tuple[str, ...]
    resolver: RuleResolver | None = None
    caches: tuple[FreshCache, ...] = ()

    async def catch_up(self) -> bool:
        """Bring the caches the authorizers read up to the store's current revision; True if
        any of them moved (a refusal is then worth asking again: a binding just created may
        not have reached the cache yet)."""
        if not self.caches:
            return False
        before = [cache.resource_version for cache in self.caches]
        revision = await self.caches[0].current_resource_version()
        with contextlib.suppress(StorageError):
            await asyncio.gather(*(cache.wait_until_fresh(revision) for cache in self.caches))
        return before != [cache.resource_version for cache in self.caches]

    def rules_for(self, user: UserInfo, namespace: str) -> RuleList:
        """Upstream's union ``RulesFor``: AlwaysAllow holds everything, the node authorizer
        cannot enumerate a node's rules, RBAC lists its bound rules."""
        out = RuleList()
        for mode in self.modes:
            if mode == "AlwaysAllow":
                out.rules += EVERYTHING
            elif mode == "Node" and node_name(user):
                out.incomplete = True
                out.errors.append("node authorizer does not support user rule resolution")
            elif mode == "RBAC" and self.resolver is not None:
                rules, errors = self.resolver.rules_for(user, namespace)
                out.rules += rules
                out.errors += errors
        return out


def check_modes(modes: Sequence[str]) -> tuple[str, ...]:
    """Upstream's validation of ``--authorization-mode``; raises ValueError."""
    if not modes:
        raise ValueError("at least one authorization-mode must be passed")
    for mode in modes:
        if mode not in MODES:
            raise ValueError(f"authorization-mode {mode!r} is not a valid mode")
    if len(set(modes)) != len(modes):
        raise ValueError(f"authorization-mode {','.join(modes)} has mode specified more than once")
    return tuple(modes)


def new_authz(modes: Sequence[str], caches: dict[str, FreshCache]) -> Authz:
    """The union for ``modes``; ``caches`` are the watch caches by resource (``roles``,
    ``clusterroles``, ``rolebindings``, ``clusterrolebindings``, ``pods``)."""
    modes = check_modes(modes)
    authorizers: list[Authorizer] = []
    resolver = None
    for mode in modes:
        if mode == "AlwaysAllow":
            authorizers.append(AlwaysAllow())
        elif mode == "AlwaysDeny":
            authorizers.append(AlwaysDeny())
        elif mode == "Node":
            authorizers.append(
                NodeAuthorizer(NodeGraph(caches["pods"], caches.get("persistentvolumeclaims")))
            )
        else:
            policy = PolicyCache(
                caches["roles"], caches["clusterroles"], caches["rolebindings"], caches["clusterrolebindings"]
            )
            resolver = RuleResolver(policy)
            authorizers.append(RBACAuthorizer(resolver))
    node_caches = tuple(name for name in ("pods", "persistentvolumeclaims") if name in caches)
    used = {"Node": node_caches, "RBAC": ("roles", "clusterroles", "rolebindings", "clusterrolebindings")}
    read = tuple(caches[name] for mode in modes for name in used.get(mode, ()))
    return Authz(Union(authorizers), modes, resolver, read)


def lookup_caches(lookup: Lookup) -> dict[str, FreshCache]:
    """The watch caches ``new_authz`` reads, from a ``Lookup`` (the catalog)."""
    wanted = {
        r: (RBAC_GROUP, "v1", r) for r in ("roles", "clusterroles", "rolebindings", "clusterrolebindings")
    }
    wanted["pods"] = ("", "v1", "pods")
    wanted["persistentvolumeclaims"] = ("", "v1", "persistentvolumeclaims")
    caches: dict[str, FreshCache] = {}
    for name, (group, version, resource) in wanted.items():
        caches[name] = lookup.watch_cache(group, version, resource)
    return caches


# The authorization of the request in progress (set by the authorization filter): the RBAC
# strategies' escalation checks and the access reviews use it. None: authorization is open.
current_authz: ContextVar[Authz | None] = ContextVar("authz", default=None)

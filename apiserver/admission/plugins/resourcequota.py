"""ResourceQuota: a namespace's quotas bound what may be created in it.

On CREATE every quota whose ``hard`` tracks the new object (``quotausage``) and whose scopes
match it is charged in one compare-and-swap of its ``status.used`` (so concurrent creates
cannot both take the last unit), or the request is refused with upstream's 403 ``exceeded
quota: <name>, requested: ..., used: ..., limited: ...`` (``failed quota: <name>: must specify
...`` for pods lacking requests or limits a quota needs).

Upstream leaves ``status`` to the resource-quota controller (it fills ``used`` after a quota
is created and recounts after deletions). Until that controller exists this plugin stands in:
a quota whose status does not cover its ``hard`` is recounted from the watch caches before it
is charged, and a DELETE recounts the quotas that tracked the deleted object."""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

from apiserver.admission.attributes import Attributes, Operation, forbidden
from apiserver.admission.interfaces import Plugin
from apiserver.admission.plugins import quotausage
from apiserver.admission.plugins import resources as res
from apiserver.lookup import Lookup, StatusWriter
from apiserver.storage.errors import StorageError
from minikube_py.api.quantity import Quantity
from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object

NAME = "ResourceQuota"


class _Unchanged(Exception):
    """The quota needs no write."""


def _pod_scope(scope: str, pod: Object) -> bool:
    spec = pod.get("spec") or {}
    if scope in ("Terminating", "NotTerminating"):
        return (spec.get("activeDeadlineSeconds") is not None) == (scope == "Terminating")
    if scope in ("BestEffort", "NotBestEffort"):
        best_effort = not any(
            (c.get("resources") or {}).get(part)
            for c in res.containers(spec)
            for part in ("requests", "limits")
        )
        return best_effort == (scope == "BestEffort")
    return False


def _selector_matches(requirement: Object, pod: Object) -> bool:
    scope, op = str(requirement.get("scopeName", "")), str(requirement.get("operator", ""))
    if scope != "PriorityClass":
        return _pod_scope(scope, pod) == (op != "DoesNotExist")
    name = (pod.get("spec") or {}).get("priorityClassName") or ""
    values: list[str] = requirement.get("values") or []
    matches: dict[str, bool] = {
        "In": name in values,
        "NotIn": name not in values,
        "Exists": bool(name),
        "DoesNotExist": not name,
    }
    return matches.get(op, False)


def scopes_match(quota: Object, rt: ResourceType, obj: Object) -> bool:
    """A quota with scopes only counts pods in those scopes (upstream's ``MatchingScopes``)."""
    spec = quota.get("spec") or {}
    scopes = spec.get("scopes") or []
    selector = (spec.get("scopeSelector") or {}).get("matchExpressions") or []
    if not scopes and not selector:
        return True
    if (rt.group, rt.resource) != ("", "pods"):
        return False
    return all(_pod_scope(s, obj) for s in scopes) and all(_selector_matches(r, obj) for r in selector)


class QuotaLookup(Lookup, StatusWriter, Protocol):
    """What the plugin reads, and the quota status it writes."""


class ResourceQuota(Plugin):
    name = NAME
    operations = frozenset({Operation.CREATE, Operation.DELETE})

    def __init__(self, lookup: QuotaLookup) -> None:
        super().__init__()
        self.lookup = lookup

    async def validate(self, attrs: Attributes) -> None:
        if attrs.subresource or not attrs.namespace or attrs.resource.resource == "resourcequotas":
            return
        obj = attrs.object if attrs.operation == Operation.CREATE else attrs.old_object
        if obj is None:
            return
        namespace = attrs.namespace
        quotas = await self.lookup.lister("", "v1", "resourcequotas").list(namespace, fresh=True)
        for quota in sorted(quotas, key=lambda q: q["metadata"]["name"]):
            hard = (quota.get("spec") or {}).get("hard") or {}
            if not any(quotausage.tracked(attrs.resource, n) for n in hard):
                continue
            if not scopes_match(quota, attrs.resource, obj):
                continue
            if attrs.operation == Operation.CREATE:
                await self._charge(attrs, obj, quota["metadata"]["name"])
            elif not attrs.dry_run:
                uid = obj["metadata"].get("uid")
                await self._recount(attrs.namespace, quota["metadata"]["name"], (uid,))

    async def _write(self, namespace: str, name: str, change: Any) -> None:
        with contextlib.suppress(_Unchanged, StorageError):  # nothing to write, or the quota is gone
            await self.lookup.guaranteed_update("", "v1", "resourcequotas", namespace, name, change)

    async def _charge(self, attrs: Attributes, obj: Object, name: str) -> None:
        delta = quotausage.usage(attrs.resource, obj)

        async def charge(stored: Object | None) -> Object:
            if stored is None:
                raise _Unchanged
            hard = res.parse((stored.get("spec") or {}).get("hard"))
            names = {n for n in hard if quotausage.tracked(attrs.resource, n)}
            if attrs.is_main("", "pods"):
                problem = quotausage.missing(obj, names)
                if problem:
                    raise forbidden(attrs, f"failed quota: {name}: {problem}")
            used = await self._current_usage(stored, attrs.namespace)
            requested = {n: delta[n] for n in names if n in delta and not delta[n].is_zero()}
            if not requested:
                raise _Unchanged
            new_used = res.add(used, requested)
            exceeded = sorted(n for n in requested if hard[n] < new_used[n])
            if exceeded:
                raise forbidden(
                    attrs,
                    f"exceeded quota: {name}, requested: {res.pretty(_mask(requested, exceeded))}, "
                    f"used: {res.pretty(_mask(used, exceeded))}, "
                    f"limited: {res.pretty(_mask(hard, exceeded))}",
                )
            if attrs.dry_run:
                raise _Unchanged
            stored["status"] = {"hard": res.render(hard), "used": res.render(new_used)}
            return stored

        await self._write(attrs.namespace, name, charge)

    async def _current_usage(self, quota: Object, namespace: str) -> dict[str, Quantity]:
        """``status.used``, recounted when it does not cover ``spec.hard`` (no controller yet)."""
        hard = (quota.get("spec") or {}).get("hard") or {}
        status = quota.get("status") or {}
        used = res.parse(status.get("used"))
        if status.get("hard") == hard and all(n in used for n in hard):
            return used
        return await self.count(namespace, quota, ())

    async def _recount(self, namespace: str, name: str, excluded: tuple[str | None, ...]) -> None:
        async def recount(stored: Object | None) -> Object:
            if stored is None:
                raise _Unchanged
            used = await self.count(namespace, stored, excluded)
            hard = (stored.get("spec") or {}).get("hard") or {}
            status = {"hard": hard, "used": res.render(used)}
            if stored.get("status") == status:
                raise _Unchanged
            stored["status"] = status
            return stored

        await self._write(namespace, name, recount)

    async def count(
        self, namespace: str, quota: Object, excluded: tuple[str | None, ...]
    ) -> dict[str, Quantity]:
        """What the namespace's objects use of each of ``quota``'s hard resources."""
        hard = res.parse((quota.get("spec") or {}).get("hard"))
        used = {n: quotausage.ONE - quotausage.ONE for n in hard}
        for rt in self._counted_types(set(hard)):
            for obj in await self.lookup.lister(rt.group, rt.version, rt.resource).list(namespace):
                if obj["metadata"].get("uid") in excluded or not scopes_match(quota, rt, obj):
                    continue
                usage = quotausage.usage(rt, obj)
                used = res.add(used, {n: q for n, q in usage.items() if n in hard})
        return used

    def _counted_types(self, names: set[str]) -> list[ResourceType]:
        seen: dict[tuple[str, str], ResourceType] = {}
        for rt in self.lookup.resource_types():
            if rt.namespaced and any(quotausage.tracked(rt, n) for n in names):
                seen.setdefault((rt.group, rt.resource), rt)
        return list(seen.values())


def _mask(values: dict[str, Quantity], names: list[str]) -> dict[str, Quantity]:
    return {n: values[n] for n in names if n in values}

"""The ClusterRole aggregation controller (upstream's ``clusterroleaggregation``): a
ClusterRole with an ``aggregationRule`` gets as ``rules`` the rules of every ClusterRole its
selectors match (by name order, each distinct rule once). It runs inside the apiserver,
watching the ClusterRole cache, and writes only when the rules differ."""

from __future__ import annotations

import asyncio
import logging

from apiserver.authz.policycache import RBAC_GROUP
from apiserver.registry.catalog import Catalog
from apiserver.registry.store import GenericStore
from apiserver.storage.errors import StorageError
from apiserver.storage.interface import ListOptions
from minikube_py.api import errors
from minikube_py.api.labels import SelectorError, label_selector_as_selector
from minikube_py.api.unstructured import Object

log = logging.getLogger("apiserver.rbac")


def aggregated_rules(role: Object, roles: list[Object]) -> list[Object] | None:
    """The rules ``role`` should have (None: it does not aggregate, or a selector is invalid)."""
    selectors = (role.get("aggregationRule") or {}).get("clusterRoleSelectors")
    if not selectors:
        return None
    try:
        parsed = [label_selector_as_selector(s) for s in selectors]
    except SelectorError:
        return None
    rules: list[Object] = []
    name = role["metadata"]["name"]
    for other in sorted(roles, key=lambda r: r["metadata"]["name"]):
        if other["metadata"]["name"] == name:
            continue
        labels = other["metadata"].get("labels") or {}
        if any(selector.matches(labels) for selector in parsed):
            rules += [r for r in other.get("rules") or [] if r not in rules]
    return rules


async def sync(store: GenericStore) -> None:
    """Bring every aggregating ClusterRole's rules up to date (passes until nothing changes,
    so that aggregates of aggregates, like admin of edit of view, settle in one sync)."""
    roles = {
        r["metadata"]["name"]: r for r in (await store.list("", ListOptions(resource_version="0"))).items
    }
    for _ in range(len(roles) + 1):
        changed = False
        for name, role in list(roles.items()):
            wanted = aggregated_rules(role, list(roles.values()))
            if wanted is None or (role.get("rules") or []) == wanted:
                continue
            roles[name] = {**role, "rules": wanted}
            changed = True
            await _write_rules(store, name, wanted)
        if not changed:
            return


async def _write_rules(store: GenericStore, name: str, rules: list[Object]) -> None:
    def with_rules(current: Object) -> Object:
        current["rules"] = rules
        return current

    try:
        await store.update("", name, with_rules)
    except errors.ApiError as err:
        if err.reason not in ("NotFound", "Conflict"):
            raise
    else:
        log.info("aggregated %d rules into clusterrole %s", len(rules), name)


async def run_aggregation(catalog: Catalog) -> None:
    """Once the caches are ready, sync on every ClusterRole change until cancelled."""
    store = catalog.store(RBAC_GROUP, "v1", "clusterroles")
    assert store is not None
    await catalog.wait_ready()
    while True:
        watch = store.watch("", ListOptions())
        try:
            await sync(store)
            async for _event in watch:
                await sync(store)
        except (StorageError, errors.ApiError) as err:
            log.warning("clusterrole aggregation: %s; retrying", err)
            await asyncio.sleep(1.0)
        finally:
            await watch.close()

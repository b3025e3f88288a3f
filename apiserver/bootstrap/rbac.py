"""Bootstrap policy at start (upstream's RBAC ``PostStartHook``): create the default roles and
bindings that are missing, and reconcile those that exist unless annotated
``rbac.authorization.kubernetes.io/autoupdate: "false"``: missing rules, subjects, aggregation
selectors, labels and annotations are added; nothing a user added is removed."""

from __future__ import annotations

import copy
import logging
from typing import Any

from apiserver.authz.addonpolicy import addon_role_bindings, addon_roles
from apiserver.authz.bootstrappolicy import AUTOUPDATE, RBAC, cluster_role_bindings, cluster_roles
from apiserver.authz.controllerpolicy import controller_role_bindings, controller_roles
from apiserver.authz.rules import parse_rules, uncovered
from apiserver.registry.catalog import Catalog
from apiserver.registry.store import GenericStore
from minikube_py.api import errors
from minikube_py.api.unstructured import Object

log = logging.getLogger("apiserver.rbac")


def reconciled_role(existing: Object, expected: Object) -> Object:
    out = copy.deepcopy(existing)
    _merge_meta(out, expected)
    missing = uncovered(parse_rules(existing.get("rules")), parse_rules(expected.get("rules")))
    if missing:
        out["rules"] = list(existing.get("rules") or []) + [r.to_dict() for r in missing]
    if "aggregationRule" in expected:
        selectors = list((existing.get("aggregationRule") or {}).get("clusterRoleSelectors") or [])
        for selector in expected["aggregationRule"]["clusterRoleSelectors"]:
            if selector not in selectors:
                selectors.append(selector)
        out["aggregationRule"] = {"clusterRoleSelectors": selectors}
    return out


def reconciled_binding(existing: Object, expected: Object) -> Object:
    out = copy.deepcopy(existing)
    _merge_meta(out, expected)
    subjects = list(existing.get("subjects") or [])
    for subject in expected.get("subjects") or []:
        if subject not in subjects:
            subjects.append(subject)
    if subjects:
        out["subjects"] = subjects
    return out


def _merge_meta(out: Object, expected: Object) -> None:
    meta = out["metadata"]
    for key in ("labels", "annotations"):
        meta[key] = {**expected["metadata"].get(key, {}), **(meta.get(key) or {})}


async def _ensure(store: GenericStore, expected: Object, reconcile: Any) -> None:
    name = expected["metadata"]["name"]
    try:
        existing = await store.get("", name)
    except errors.ApiError as err:
        if err.reason != "NotFound":
            raise
        try:
            await store.create("", copy.deepcopy(expected))
        except errors.ApiError as create_err:
            if create_err.reason != "AlreadyExists":
                raise
        else:
            log.debug("created %s %s", store.rt.kind, name)
        return
    if existing["metadata"].get("annotations", {}).get(AUTOUPDATE) == "false":
        return
    wanted = reconcile(existing, expected)
    if wanted != existing:
        await store.update("", name, lambda _current: wanted)
        log.info("reconciled %s %s", store.rt.kind, name)


async def ensure_bootstrap_policy(catalog: Catalog) -> None:
    roles = catalog.store(RBAC, "v1", "clusterroles")
    bindings = catalog.store(RBAC, "v1", "clusterrolebindings")
    assert roles is not None and bindings is not None
    for role in cluster_roles() + controller_roles() + addon_roles():
        await _ensure(roles, role, reconciled_role)
    for binding in cluster_role_bindings() + controller_role_bindings() + addon_role_bindings():
        await _ensure(bindings, binding, reconciled_binding)

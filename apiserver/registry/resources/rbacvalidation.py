"""Upstream's RBAC validation (``pkg/apis/rbac/validation``): policy rules, role references
and subjects."""

from __future__ import annotations

from typing import Any

from minikube_py.api.field_errors import FieldError, invalid, not_supported, required
from minikube_py.api.unstructured import Object

RBAC_GROUP = "rbac.authorization.k8s.io"


def validate_rule(rule: dict[str, Any], namespaced: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not rule.get("verbs"):
        errs.append(required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = rule.get("nonResourceURLs") or []
    if urls:
        if namespaced:
            errs.append(
                invalid(f"{path}.nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs")
            )
        if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
            detail = "rules cannot apply to both regular resources and non-resource URLs"
            errs.append(invalid(f"{path}.nonResourceURLs", urls, detail))
        return errs
    if not rule.get("apiGroups"):
        errs.append(required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not rule.get("resources"):
        errs.append(required(f"{path}.resources", "resource rules must supply at least one resource"))
    return errs


def validate_rules(obj: Object, namespaced: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, rule in enumerate(obj.get("rules") or []):
        errs += validate_rule(rule, namespaced, f"rules[{i}]")
    return errs


def validate_subject(subject: dict[str, Any], namespaced: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not subject.get("name"):
        errs.append(required(f"{path}.name"))
    kind, group = subject.get("kind", ""), subject.get("apiGroup", "")
    if kind == "ServiceAccount":
        if group:
            errs.append(not_supported(f"{path}.apiGroup", group, [""]))
        if not namespaced and not subject.get("namespace"):
            errs.append(required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if group != RBAC_GROUP:
            errs.append(not_supported(f"{path}.apiGroup", group, [RBAC_GROUP]))
    else:
        errs.append(not_supported(f"{path}.kind", kind, ["ServiceAccount", "User", "Group"]))
    return errs


def validate_binding(obj: Object, namespaced: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    ref = obj.get("roleRef") or {}
    if ref.get("apiGroup", "") != RBAC_GROUP:
        errs.append(not_supported("roleRef.apiGroup", ref.get("apiGroup", ""), [RBAC_GROUP]))
    kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    if ref.get("kind", "") not in kinds:
        errs.append(not_supported("roleRef.kind", ref.get("kind", ""), kinds))
    if not ref.get("name"):
        errs.append(required("roleRef.name"))
    for i, subject in enumerate(obj.get("subjects") or []):
        errs += validate_subject(subject, namespaced, f"subjects[{i}]")
    return errs


def validate_binding_update(new: Object, old: Object, namespaced: bool) -> list[FieldError]:
    errs = validate_binding(new, namespaced)
    if new.get("roleRef") != old.get("roleRef"):
        errs.append(invalid("roleRef", new.get("roleRef"), "cannot change roleRef"))
    return errs

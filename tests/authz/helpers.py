"""RBAC objects for tests."""

from __future__ import annotations

from typing import Any

RBAC = "rbac.authorization.k8s.io"
ROLES = f"/apis/{RBAC}/v1/namespaces/default/roles"
ROLE_BINDINGS = f"/apis/{RBAC}/v1/namespaces/default/rolebindings"
CLUSTER_ROLES = f"/apis/{RBAC}/v1/clusterroles"
CLUSTER_ROLE_BINDINGS = f"/apis/{RBAC}/v1/clusterrolebindings"


def role(name: str, *rules: dict[str, Any], kind: str = "Role") -> dict[str, Any]:
    return {"apiVersion": f"{RBAC}/v1", "kind": kind, "metadata": {"name": name}, "rules": list(rules)}


def rule(
    verbs: list[str], resources: list[str], groups: tuple[str, ...] = ("",), **extra: Any
) -> dict[str, Any]:
    return {"verbs": verbs, "apiGroups": list(groups), "resources": resources, **extra}


def binding(
    name: str,
    role_name: str,
    *,
    role_kind: str = "ClusterRole",
    user: str = "alice",
    kind: str = "RoleBinding",
) -> dict[str, Any]:
    subject = {"kind": "User", "apiGroup": RBAC, "name": user}
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": kind,
        "metadata": {"name": name},
        "roleRef": {"apiGroup": RBAC, "kind": role_kind, "name": role_name},
        "subjects": [subject],
    }

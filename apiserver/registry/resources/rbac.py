"""Roles, ClusterRoles, RoleBindings and ClusterRoleBindings: upstream's validation
(``rbacvalidation``) and escalation prevention (``apiserver.authz.escalation``: a write that
grants what its requester does not hold is refused with 403)."""

from __future__ import annotations

from typing import Any

from apiserver.authz import escalation
from apiserver.registry.age import age
from apiserver.registry.resources.configmap import AGE_COLUMN
from apiserver.registry.resources.podvalidation import to_causes
from apiserver.registry.resources.rbacvalidation import (
    validate_binding,
    validate_binding_update,
    validate_rules,
)
from apiserver.registry.strategy import CREATED_AT_COLUMN, NAME_COLUMN, Column, Strategy
from minikube_py.api.errors import Cause
from minikube_py.api.models import rbac
from minikube_py.api.unstructured import Object

ROLE_DESCRIPTION = "Role reference"


class _RoleStrategy(Strategy):
    name_rule = "path"
    resource = ""
    namespaced = True

    def validate(self, obj: Object) -> list[Cause]:
        causes = to_causes(validate_rules(obj, self.namespaced))
        if not causes:
            escalation.check_role(self.resource, obj)
        return causes

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        causes = to_causes(validate_rules(new, self.namespaced))
        if not causes:
            escalation.check_role(self.resource, new, old)
        return causes

    def table_columns(self) -> list[Column]:
        return [NAME_COLUMN, CREATED_AT_COLUMN]


class RoleStrategy(_RoleStrategy):
    kinds = (rbac.Role,)
    resource = "roles"


class ClusterRoleStrategy(_RoleStrategy):
    kinds = (rbac.ClusterRole,)
    resource = "clusterroles"
    namespaced = False


class _BindingStrategy(Strategy):
    name_rule = "path"
    resource = ""
    namespaced = True

    def validate(self, obj: Object) -> list[Cause]:
        causes = to_causes(validate_binding(obj, self.namespaced))
        if not causes:
            escalation.check_binding(self.resource, obj)
        return causes

    def validate_update(self, new: Object, old: Object) -> list[Cause]:
        causes = to_causes(validate_binding_update(new, old, self.namespaced))
        if not causes:
            escalation.check_binding(self.resource, new, old)
        return causes

    def table_columns(self) -> list[Column]:
        role: Column = ("Role", "string", "", ROLE_DESCRIPTION, 0)
        users: Column = ("Users", "string", "", "Users in the roleBinding", 1)
        groups: Column = ("Groups", "string", "", "Groups in the roleBinding", 1)
        accounts: Column = ("ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding", 1)
        return [NAME_COLUMN, role, AGE_COLUMN, users, groups, accounts]

    def table_cells(self, obj: Object, now: float) -> list[Any]:
        meta, ref = obj["metadata"], obj.get("roleRef") or {}
        subjects = obj.get("subjects") or []

        def names(kind: str) -> str:
            return ", ".join(
                (f"{s.get('namespace', '')}/{s['name']}" if kind == "ServiceAccount" else s.get("name", ""))
                for s in subjects
                if s.get("kind") == kind
            )

        return [
            meta["name"],
            f"{ref.get('kind', '')}/{ref.get('name', '')}",
            age(meta.get("creationTimestamp"), now),
            names("User"),
            names("Group"),
            names("ServiceAccount"),
        ]


class RoleBindingStrategy(_BindingStrategy):
    kinds = (rbac.RoleBinding,)
    resource = "rolebindings"


class ClusterRoleBindingStrategy(_BindingStrategy):
    kinds = (rbac.ClusterRoleBinding,)
    resource = "clusterrolebindings"
    namespaced = False

"""RBAC escalation prevention (upstream's ``pkg/registry/rbac``): nobody grants permissions
they do not hold. Writing a Role or ClusterRole needs every one of its rules (or the
``escalate`` verb on it); binding a role needs its rules (or the ``bind`` verb on it). Members
of ``system:masters`` may always; so may everyone while authorization is open (no
``current_authz``: in-process use, the apiserver's own controllers).
"""

from __future__ import annotations

from typing import Any

from apiserver.authz.attributes import Attributes
from apiserver.authz.factory import Authz, current_authz
from apiserver.authz.policycache import RBAC_GROUP
from apiserver.authz.rbac import missing_role
from apiserver.authz.rules import PolicyRule, parse_rules, uncovered
from apiserver.request.context import current_request_info, current_user
from minikube_py.api import errors
from minikube_py.api.field_errors import go_quote_slice

MASTERS = "system:masters"
FULL_AUTHORITY = (PolicyRule(("*",), ("*",), ("*",)), PolicyRule(("*",), non_resource_urls=("*",)))
AGGREGATION_FORBIDDEN = "must have cluster-admin privileges to use an aggregationRule"
GC_FIELDS = ("ownerReferences", "finalizers", "managedFields", "resourceVersion")


def _checked_authz() -> Authz | None:
    """The authorization to check against, None when escalation is allowed outright."""
    authz = current_authz.get()
    if authz is None or MASTERS in current_user.get().groups:
        return None
    return authz


def _allowed(authz: Authz, verb: str, resource: str, namespace: str, name: str) -> bool:
    attrs = Attributes(current_user.get(), verb, True, namespace, RBAC_GROUP, "*", resource, "", name)
    return authz.authorizer.authorize(attrs).allowed


def escalation_error(authz: Authz, granted: tuple[PolicyRule, ...], namespace: str) -> str | None:
    """Upstream's ``ConfirmNoEscalation``: None when the user holds every granted rule."""
    user = current_user.get()
    if authz.resolver is None:
        return None
    owned, resolution_errors = authz.resolver.rules_for(user, namespace)
    missing = uncovered(owned, granted)
    if not missing:
        return None
    listed = "\n".join(sorted({rule.compact() for rule in missing}))
    message = (
        f'user "{user.name}" (groups={go_quote_slice(user.groups)}) is attempting to grant RBAC permissions '
        f"not currently held:\n{listed}"
    )
    if resolution_errors:
        message += f"; resolution errors: [{' '.join(resolution_errors)}]"
    return message


def only_gc_fields_changed(new: dict[str, Any], old: dict[str, Any]) -> bool:
    def stripped(obj: dict[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in obj.get("metadata", {}).items() if k not in GC_FIELDS}
        return {**obj, "metadata": meta}

    return stripped(new) == stripped(old)


def check_role(resource: str, role: dict[str, Any], old: dict[str, Any] | None = None) -> None:
    """Raise 403 when the requester may not write ``role`` (a Role or ClusterRole)."""
    authz = _checked_authz()
    if authz is None or (old is not None and only_gc_fields_changed(role, old)):
        return
    meta = role.get("metadata", {})
    name, namespace = meta.get("name", ""), meta.get("namespace", "")
    info = current_request_info.get()
    if _allowed(authz, "escalate", resource, namespace, info.name if info else name):
        return
    why = escalation_error(authz, parse_rules(role.get("rules")), namespace)
    aggregating = bool(role.get("aggregationRule"))
    if why is None and aggregating and escalation_error(authz, FULL_AUTHORITY, namespace) is not None:
        why = AGGREGATION_FORBIDDEN
    if why is not None:
        raise errors.forbidden(resource, name, RBAC_GROUP, why)


def check_binding(resource: str, binding: dict[str, Any], old: dict[str, Any] | None = None) -> None:
    """Raise 403 when the requester may not bind ``binding``'s role (without ``bind`` on it,
    they must hold its rules)."""
    authz = _checked_authz()
    if authz is None or (old is not None and only_gc_fields_changed(binding, old)):
        return
    meta, ref = binding.get("metadata", {}), binding.get("roleRef") or {}
    namespace = meta.get("namespace", "")
    kind, role_name = ref.get("kind", ""), ref.get("name", "")
    role_resource = {"Role": "roles", "ClusterRole": "clusterroles"}.get(kind, "")
    if role_resource and _allowed(authz, "bind", role_resource, namespace, role_name):
        return
    if authz.resolver is None:
        return
    rules = authz.resolver.role_rules(kind, role_name, namespace)
    if rules is None:
        raise errors.internal(missing_role(kind, role_name))
    why = escalation_error(authz, rules, namespace)
    if why is not None:
        raise errors.forbidden(resource, meta.get("name", ""), RBAC_GROUP, why)

"""Upstream's 403 for a refused request (``responsewriters.Forbidden``):
``pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace
"default"``, ``... at the cluster scope``, ``forbidden: User "x" cannot get path "/api"``, with
the authorizers' reason after a colon when they gave one."""

from __future__ import annotations

from apiserver.authz.attributes import Attributes
from minikube_py.api.errors import ApiError, qualified


def forbidden_message(attrs: Attributes) -> str:
    user = attrs.user.name
    if not attrs.resource_request:
        return f'User "{user}" cannot {attrs.verb} path "{attrs.path}"'
    where = f'in the namespace "{attrs.namespace}"' if attrs.namespace else "at the cluster scope"
    resource = attrs.combined_resource
    return f'User "{user}" cannot {attrs.verb} resource "{resource}" in API group "{attrs.api_group}" {where}'


def forbidden_error(attrs: Attributes, reason: str = "") -> ApiError:
    why = forbidden_message(attrs) + (f": {reason}" if reason else "")
    resource = attrs.resource if attrs.resource_request else ""
    group = attrs.api_group if attrs.resource_request else ""
    name = attrs.name if attrs.resource_request else ""
    if not resource and not group:
        message = f"forbidden: {why}"
    elif name:
        message = f'{qualified(resource, group)} "{name}" is forbidden: {why}'
    else:
        message = f"{qualified(resource, group)} is forbidden: {why}"
    return ApiError(403, "Forbidden", message, name, group, resource)

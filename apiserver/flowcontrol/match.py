"""Whether a request matches a FlowSchema (upstream's ``util/flowcontrol/rule.go``).

A schema matches when one of its rules does: a subject matches the user (a ``User`` by
name, a ``Group`` by membership, a ``ServiceAccount`` by its
``system:serviceaccount:<ns>:<name>`` user name; ``*`` matches any), and then a resource rule
(verb, API group, ``resource`` or ``resource/subresource``, namespace, or ``cluster_scope``
for requests without one) or, for non-resource requests, a non-resource rule (verb and path:
exact, ``*``, or a prefix ending in ``/*``).
"""

from __future__ import annotations

from apiserver.flowcontrol.schema import ALL, FlowSchema, NonResourceRule, ResourceRule, Subject
from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


def matches_flow_schema(schema: FlowSchema, user: UserInfo, info: RequestInfo) -> bool:
    for rules in schema.rules:
        if not any(_matches_subject(subject, user) for subject in rules.subjects):
            continue
        if info.is_resource_request:
            if any(_matches_resource_rule(rule, info) for rule in rules.resource_rules):
                return True
        elif any(_matches_non_resource_rule(rule, info) for rule in rules.non_resource_rules):
            return True
    return False


def _matches_subject(subject: Subject, user: UserInfo) -> bool:
    if subject.kind == "User":
        return subject.name in (ALL, user.name)
    if subject.kind == "Group":
        return subject.name == ALL or subject.name in user.groups
    if subject.kind == "ServiceAccount":
        prefix = f"{SERVICE_ACCOUNT_PREFIX}{subject.namespace}:"
        if subject.name == ALL:
            return user.name.startswith(prefix)
        return user.name == prefix + subject.name
    return False


def _contains(values: tuple[str, ...], value: str) -> bool:
    """Upstream's containsString: a lone wildcard matches every value."""
    return values == (ALL,) or value in values


def _matches_resource_rule(rule: ResourceRule, info: RequestInfo) -> bool:
    resource = f"{info.resource}/{info.subresource}" if info.subresource else info.resource
    if not (
        _contains(rule.verbs, info.verb)
        and _contains(rule.resources, resource)
        and _contains(rule.api_groups, info.api_group)
    ):
        return False
    if not info.namespace:
        return rule.cluster_scope
    return _contains(rule.namespaces, info.namespace)


def _matches_non_resource_rule(rule: NonResourceRule, info: RequestInfo) -> bool:
    if not _contains(rule.verbs, info.verb):
        return False
    for url in rule.urls:
        if url in (ALL, info.path):
            return True
        prefix = url.removesuffix("*")
        if not prefix.endswith("/"):
            prefix += "/"
        if info.path.startswith(prefix):
            return True
    return False

"""The audit policy (``audit.k8s.io/v1`` ``Policy``) and its evaluation, as upstream's
``policy.NewPolicyRuleEvaluator``.

Rules are tried in order; the first rule whose every given condition matches decides the
request's level, the stages to omit (the policy's ``omitStages`` plus the rule's) and whether
managedFields are dropped from logged bodies (the rule's setting, else the policy's). No match
is level ``None``: the request is not audited.

A rule matches when each condition it sets matches (an empty condition matches anything):
``users`` (the user's name), ``userGroups`` (any of its groups), ``verbs``; then, when it sets
``namespaces`` or ``resources``, only resource requests match (``""`` in ``namespaces`` is a
cluster-scoped request; ``resources`` entries match by group, ``"*"`` being any group, then by
``resource``, ``resource/subresource``, ``*``, ``*/subresource`` or ``resource/*``, restricted
to ``resourceNames`` when given); otherwise, when it sets ``nonResourceURLs``, only
non-resource requests whose path equals an entry, or starts with an entry ending in ``*``.
A request made before authentication succeeded has no user: rules naming users or groups do
not match it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apiserver.request.info import RequestInfo
from apiserver.request.user import UserInfo

NONE, METADATA, REQUEST, REQUEST_RESPONSE = "None", "Metadata", "Request", "RequestResponse"
LEVELS = (NONE, METADATA, REQUEST, REQUEST_RESPONSE)  # in increasing order of detail

REQUEST_RECEIVED, RESPONSE_STARTED = "RequestReceived", "ResponseStarted"
RESPONSE_COMPLETE, PANIC = "ResponseComplete", "Panic"
STAGES = (REQUEST_RECEIVED, RESPONSE_STARTED, RESPONSE_COMPLETE, PANIC)


def level_at_least(level: str, minimum: str) -> bool:
    """Whether ``level`` is ``minimum`` or more detailed."""
    return LEVELS.index(level) >= LEVELS.index(minimum)


@dataclass(frozen=True)
class GroupResources:
    """Resources of one API group (``""`` is core, ``"*"`` any); empty ``resources`` is all."""

    group: str = ""
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class PolicyRule:
    level: str
    users: tuple[str, ...] = ()
    user_groups: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    resources: tuple[GroupResources, ...] = ()
    namespaces: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool | None = None


@dataclass(frozen=True)
class Policy:
    rules: tuple[PolicyRule, ...]
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool = False


@dataclass(frozen=True)
class RequestAuditConfig:
    """What the policy decided for one request."""

    level: str
    omit_stages: frozenset[str] = field(default_factory=frozenset)
    omit_managed_fields: bool = False


@dataclass(frozen=True, slots=True)
class Attributes:
    """What the policy looks at: the user (None before authentication) and the request."""

    user: UserInfo | None
    info: RequestInfo


class PolicyEvaluator:
    """Evaluates a ``Policy`` (see the module docstring); built once, called per request."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        base = frozenset(policy.omit_stages)
        self._decisions = [
            (
                rule,
                RequestAuditConfig(
                    rule.level,
                    base | frozenset(rule.omit_stages),
                    policy.omit_managed_fields
                    if rule.omit_managed_fields is None
                    else rule.omit_managed_fields,
                ),
            )
            for rule in policy.rules
        ]
        self._default = RequestAuditConfig(NONE, base, policy.omit_managed_fields)

    def evaluate(self, attrs: Attributes) -> RequestAuditConfig:
        for rule, decision in self._decisions:
            if rule_matches(rule, attrs):
                return decision
        return self._default


def rule_matches(rule: PolicyRule, attrs: Attributes) -> bool:
    user = attrs.user
    if rule.users and (user is None or user.name not in rule.users):
        return False
    if rule.user_groups and (user is None or not any(g in rule.user_groups for g in user.groups)):
        return False
    if rule.verbs and attrs.info.verb not in rule.verbs:
        return False
    if rule.namespaces or rule.resources:
        return _matches_resource(rule, attrs.info)
    if rule.non_resource_urls:
        return not attrs.info.is_resource_request and any(
            path_matches(attrs.info.path, spec) for spec in rule.non_resource_urls
        )
    return True


def path_matches(path: str, spec: str) -> bool:
    """``*``, an exact path, or a prefix given as ``/prefix*``."""
    return spec in ("*", path) or (spec.endswith("*") and path.startswith(spec.rstrip("*")))


def _matches_resource(rule: PolicyRule, info: RequestInfo) -> bool:
    if not info.is_resource_request:
        return False
    if rule.namespaces and info.namespace not in rule.namespaces:
        return False
    if not rule.resources:
        return True
    return any(
        _matches_group_resources(gr, info) for gr in rule.resources if gr.group in (info.api_group, "*")
    )


def _matches_group_resources(gr: GroupResources, info: RequestInfo) -> bool:
    if not gr.resources:
        return True
    if gr.resource_names and info.name not in gr.resource_names:
        return False
    resource, sub = info.resource, info.subresource
    combined = f"{resource}/{sub}" if sub else resource
    for spec in gr.resources:
        if spec in ("*", combined):
            return True
        if sub and spec.startswith("*/") and spec[2:] == sub:
            return True
        if spec.endswith("/*") and spec[:-2] == resource:
            return True
    return False

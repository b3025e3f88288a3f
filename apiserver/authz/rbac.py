"""The RBAC authorizer (upstream's ``plugin/pkg/auth/authorizer/rbac``): a request is allowed
when a rule of a role bound to its user (or one of its groups, or its service account)
allows it. RBAC never denies: without a matching rule it has no opinion.

``RuleResolver`` walks the bindings of a user (cluster role bindings, then the role bindings of
the request's namespace) with their rules; roles that are missing are evaluation errors, which
upstream reports as the reason (``RBAC: clusterrole.rbac.authorization.k8s.io "x" not found``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from apiserver.authz.attributes import NO_OPINION, Attributes, Decision, Result
from apiserver.authz.policycache import RBAC_GROUP, Binding, PolicyCache
from apiserver.authz.rules import PolicyRule, rule_allows
from apiserver.request.user import UserInfo


@dataclass(frozen=True, slots=True)
class BoundRules:
    """The rules one binding grants (``error`` set instead when its role is missing)."""

    binding: Binding
    rules: tuple[PolicyRule, ...]
    error: str = ""


def missing_role(kind: str, name: str) -> str:
    """The lister's NotFound message (singular resource, as upstream's listers word it)."""
    if kind not in ("Role", "ClusterRole"):
        return f'unsupported role reference kind: "{kind}"'
    return f'{kind.lower()}.{RBAC_GROUP} "{name}" not found'


def aggregate(errors: list[str]) -> str:
    """Upstream's ``utilerrors.NewAggregate`` text: one error as is, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


class RuleResolver:
    """The rules that apply to a user in a namespace (upstream's ``DefaultRuleResolver``)."""

    def __init__(self, policy: PolicyCache) -> None:
        self.policy = policy

    def visit(self, user: UserInfo, namespace: str) -> Iterator[BoundRules]:
        for binding in self.policy.bindings_for(user, namespace):
            rules = self.role_rules(binding.role_kind, binding.role_name, binding.namespace)
            if rules is None:
                yield BoundRules(binding, (), missing_role(binding.role_kind, binding.role_name))
            else:
                yield BoundRules(binding, rules)

    def role_rules(self, kind: str, name: str, namespace: str) -> tuple[PolicyRule, ...] | None:
        if kind not in ("Role", "ClusterRole"):
            return None
        return self.policy.role_rules(kind, name, namespace)

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[PolicyRule], list[str]]:
        """Every rule ``user`` holds in ``namespace`` (cluster-wide ones included), and the
        resolution errors met on the way."""
        rules: list[PolicyRule] = []
        errors: list[str] = []
        for bound in self.visit(user, namespace):
            if bound.error:
                errors.append(bound.error)
            rules += bound.rules
        return rules, errors


DECISION_MEMO = 4096


class RBACAuthorizer:
    """Upstream's RBAC authorizer. Decisions are a pure function of the attributes and the
    four RBAC caches, so they are remembered until any of those caches changes (the same
    user asking the same thing again, the common case, is then a dictionary lookup)."""

    def __init__(self, resolver: RuleResolver) -> None:
        self.resolver = resolver
        self._version: tuple[int, ...] = ()
        self._decisions: dict[tuple[object, ...], Result] = {}

    def authorize(self, attrs: Attributes) -> Result:
        version = self.resolver.policy.version()
        if version != self._version:
            self._version, self._decisions = version, {}
        user = attrs.user
        key = (
            user.name,
            user.groups,
            tuple(sorted((k, tuple(v)) for k, v in user.extra.items())) if user.extra else (),
            attrs.verb,
            attrs.resource_request,
            attrs.namespace,
            attrs.api_group,
            attrs.resource,
            attrs.subresource,
            attrs.name,
            attrs.path,
            tuple(sorted(attrs.field_selector.items())) if attrs.field_selector else (),
        )
        known = self._decisions.get(key)
        if known is None:
            known = self._decide(attrs)
            if len(self._decisions) >= DECISION_MEMO:
                self._decisions.clear()
            self._decisions[key] = known
        return known

    def _decide(self, attrs: Attributes) -> Result:
        errors: list[str] = []
        for bound in self.resolver.visit(attrs.user, attrs.namespace):
            if bound.error:
                errors.append(bound.error)
                continue
            for position, rule in enumerate(bound.rules):
                if rule_allows(rule, attrs):
                    where = f"rule {position} {rule.compact()}"
                    return Result(Decision.ALLOW, f"RBAC: allowed by {bound.binding.describe()}: {where}")
        if errors:
            return Result(Decision.NO_OPINION, f"RBAC: {aggregate(errors)}")
        return NO_OPINION

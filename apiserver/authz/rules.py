"""RBAC policy rules: matching a request (upstream's ``RuleAllows``), one rule set covering
another (the escalation check's ``Covers``) and their compact text form.

Matching, as upstream: ``*`` matches any verb, group, resource or URL; a rule resource
``pods/status`` matches that subresource only and ``*/status`` the status of anything; empty
``resourceNames`` match any name, otherwise only the listed names (so a list, which has no
name, is not matched); a non-resource URL ending in ``*`` matches by prefix.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from apiserver.authz.attributes import Attributes
from minikube_py.api.field_errors import go_quote_slice

ALL = "*"


@dataclass(frozen=True, slots=True)
class PolicyRule:
    verbs: tuple[str, ...] = ()
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    @classmethod
    def parse(cls, rule: Mapping[str, Any]) -> PolicyRule:
        return cls(
            tuple(rule.get("verbs") or ()),
            tuple(rule.get("apiGroups") or ()),
            tuple(rule.get("resources") or ()),
            tuple(rule.get("resourceNames") or ()),
            tuple(rule.get("nonResourceURLs") or ()),
        )

    def to_dict(self) -> dict[str, list[str]]:
        """The rule as a ``PolicyRule`` object (empty fields omitted, as upstream's JSON)."""
        fields = (
            ("verbs", self.verbs),
            ("apiGroups", self.api_groups),
            ("resources", self.resources),
            ("resourceNames", self.resource_names),
            ("nonResourceURLs", self.non_resource_urls),
        )
        return {key: list(values) for key, values in fields if values or key == "verbs"}

    def compact(self) -> str:
        """Upstream's ``CompactString``: ``{APIGroups:[""], Resources:["pods"], Verbs:["get"]}``."""
        return _compact(self)


@functools.lru_cache(maxsize=4096)  # every allow names its rule: rules repeat, format once
def _compact(rule: PolicyRule) -> str:
    parts = (
        ("APIGroups", rule.api_groups),
        ("Resources", rule.resources),
        ("NonResourceURLs", rule.non_resource_urls),
        ("ResourceNames", rule.resource_names),
        ("Verbs", rule.verbs),
    )
    return "{" + ", ".join(f"{label}:{go_quote_slice(values)}" for label, values in parts if values) + "}"


def parse_rules(rules: Iterable[Mapping[str, Any]] | None) -> tuple[PolicyRule, ...]:
    return tuple(PolicyRule.parse(r) for r in rules or ())


def _matches(values: tuple[str, ...], wanted: str) -> bool:
    return ALL in values or wanted in values


def resource_matches(rule: PolicyRule, combined: str, subresource: str) -> bool:
    for resource in rule.resources:
        if resource in (ALL, combined):
            return True
        if subresource and resource == "*/" + subresource:
            return True
    return False


def url_matches(rule: PolicyRule, path: str) -> bool:
    for url in rule.non_resource_urls:
        if url in (ALL, path):
            return True
        if url.endswith("*") and path.startswith(url.rstrip("*")):
            return True
    return False


def rule_allows(rule: PolicyRule, attrs: Attributes) -> bool:
    """Does ``rule`` allow the request ``attrs``?"""
    if not _matches(rule.verbs, attrs.verb):
        return False
    if not attrs.resource_request:
        return url_matches(rule, attrs.path)
    return (
        _matches(rule.api_groups, attrs.api_group)
        and resource_matches(rule, attrs.combined_resource, attrs.subresource)
        and (not rule.resource_names or attrs.name in rule.resource_names)
    )


def rules_allow(rules: Iterable[PolicyRule], attrs: Attributes) -> bool:
    return any(rule_allows(rule, attrs) for rule in rules)


# Escalation: does what the requester holds cover what they grant?


def breakdown(rule: PolicyRule) -> list[PolicyRule]:
    """One rule per (group, resource, verb[, name]) and per (URL, verb), as upstream."""
    out: list[PolicyRule] = []
    for group in rule.api_groups:
        for resource in rule.resources:
            for verb in rule.verbs:
                if rule.resource_names:
                    out += [PolicyRule((verb,), (group,), (resource,), (n,)) for n in rule.resource_names]
                else:
                    out.append(PolicyRule((verb,), (group,), (resource,)))
    for url in rule.non_resource_urls:
        out += [PolicyRule((verb,), non_resource_urls=(url,)) for verb in rule.verbs]
    return out


def _has_all(owner: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    return all(w in owner for w in wanted)


def _resources_cover(owner: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    if ALL in owner or _has_all(owner, wanted):
        return True
    for resource in wanted:
        if resource in owner:
            continue
        if "/" not in resource or "*/" + resource.split("/", 1)[1] not in owner:
            return False
    return True


def _url_covers(owner: str, url: str) -> bool:
    return owner == url or (owner.endswith("*") and url.startswith(owner.rstrip("*")))


def rule_covers(owner: PolicyRule, sub: PolicyRule) -> bool:
    """Upstream's ``ruleCovers``: everything ``sub`` allows, ``owner`` allows."""
    if not (ALL in owner.verbs or _has_all(owner.verbs, sub.verbs)):
        return False
    if not (ALL in owner.api_groups or _has_all(owner.api_groups, sub.api_groups)):
        return False
    if not _resources_cover(owner.resources, sub.resources):
        return False
    if not all(any(_url_covers(o, u) for o in owner.non_resource_urls) for u in sub.non_resource_urls):
        return False
    if not sub.resource_names:
        return not owner.resource_names
    return not owner.resource_names or _has_all(owner.resource_names, sub.resource_names)


def uncovered(owner: Iterable[PolicyRule], granted: Iterable[PolicyRule]) -> list[PolicyRule]:
    """The broken-down parts of ``granted`` that no rule of ``owner`` covers."""
    owned = list(owner)
    return [sub for rule in granted for sub in breakdown(rule) if not any(rule_covers(o, sub) for o in owned)]

"""Which webhooks a request goes to (upstream's ``predicates`` and ``ShouldCallHook``).

A webhook is called when the namespace selector and the object selector match and one of its
rules matches the request's resource, or, with ``matchPolicy: Equivalent``, an equivalent
resource: the same objects served by another group/version (here: any served resource stored
under the same key prefix, such as core/v1 and events.k8s.io/v1 events). The invocation then
names that resource and kind, and the object is converted to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiserver.admission.attributes import Attributes
from apiserver.admission.webhook.source import GROUP, Hook, WebhookLookup
from minikube_py.api import errors
from minikube_py.api.labels import Selector, SelectorError, label_selector_as_selector
from minikube_py.api.scheme import ResourceType

EXEMPT_KINDS = frozenset(
    {
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    }
)


@dataclass(frozen=True, slots=True)
class Invocation:
    """A webhook to call and the resource (and kind) it is called for."""

    hook: Hook
    resource: ResourceType
    subresource: str

    @property
    def kind(self) -> tuple[str, str, str]:
        return request_kind(self.resource, self.subresource)


def request_kind(rt: ResourceType, subresource: str) -> tuple[str, str, str]:
    """(group, version, kind) of the object a request carries: the subresource's own kind
    (``Scale``, ``Binding``) when it has one, else the resource's."""
    sub = rt.subresource(subresource) if subresource else None
    if sub is None or not sub.kind:
        return rt.group, rt.version, rt.kind
    group = rt.group if sub.group is None else sub.group
    return group, sub.version or rt.version, sub.kind


def is_exempt(attrs: Attributes) -> bool:
    """Webhook and admission policy configurations never go to webhooks."""
    return attrs.resource.group == GROUP and attrs.resource.kind in EXEMPT_KINDS


def _listed(items: list[str], requested: str) -> bool:
    return "*" in items or requested in items


def _scope_matches(scope: str, rt: ResourceType, namespace: str) -> bool:
    is_namespace = (rt.group, rt.resource) == ("", "namespaces")
    if scope == "Namespaced":
        return not is_namespace and namespace != ""
    if scope == "Cluster":
        return is_namespace or namespace == ""
    return scope in ("*", "")


def rule_matches(rule: dict[str, Any], attrs: Attributes, rt: ResourceType) -> bool:
    """Upstream's ``rules.Matcher`` for ``attrs`` as a request for ``rt``."""
    if not _scope_matches(rule.get("scope") or "*", rt, attrs.namespace):
        return False
    if not _listed(rule.get("operations") or [], str(attrs.operation)):
        return False
    if not _listed(rule.get("apiGroups") or [], rt.group):
        return False
    if not _listed(rule.get("apiVersions") or [], rt.version):
        return False
    for listed in rule.get("resources") or []:
        res, _, sub = listed.partition("/")
        if res in ("*", rt.resource) and sub in ("*", attrs.subresource):
            return True
    return False


def match_rules(hook: Hook, attrs: Attributes, lookup: WebhookLookup) -> Invocation | None:
    rules = hook.spec.get("rules") or []
    if any(rule_matches(rule, attrs, attrs.resource) for rule in rules):
        return Invocation(hook, attrs.resource, attrs.subresource)
    if hook.spec.get("matchPolicy", "Equivalent") != "Equivalent":
        return None
    for rule in rules:
        for other in lookup.equivalents(attrs.resource):
            if (not attrs.subresource or other.subresource(attrs.subresource)) and rule_matches(
                rule, attrs, other
            ):
                return Invocation(hook, other, attrs.subresource)
    return None


def _selector(hook: Hook, key: str) -> Selector:
    try:
        return label_selector_as_selector(hook.spec.get(key) or {})
    except SelectorError as err:
        raise errors.internal(str(err)) from None


def _labels(obj: dict[str, Any] | None) -> dict[str, str]:
    return ((obj or {}).get("metadata") or {}).get("labels") or {}


async def namespace_labels(attrs: Attributes, lookup: WebhookLookup) -> dict[str, str]:
    """The labels of the request's namespace: of the object itself when a namespace is created
    or updated, else of the namespace as stored (404 when it does not exist)."""
    if attrs.is_main("", "namespaces") and attrs.operation in ("CREATE", "UPDATE"):
        return _labels(attrs.object)
    namespaces = lookup.lister("", "v1", "namespaces")
    name = attrs.namespace or attrs.name  # a request for a namespace names it
    # the cache may lag a namespace created a moment ago: then ask the store
    found = await namespaces.get("", name) or await namespaces.get("", name, fresh=True)
    if found is None:
        raise errors.not_found("namespaces", name)
    return _labels(found)


async def selectors_match(hook: Hook, attrs: Attributes, lookup: WebhookLookup) -> bool:
    """Upstream's namespace then object matcher. Cluster-scoped requests (other than for
    namespaces) always pass the namespace selector; either object's labels may match."""
    namespace_selector = _selector(hook, "namespaceSelector")
    cluster_scoped = not attrs.namespace and attrs.resource.resource != "namespaces"
    if (
        not cluster_scoped
        and not namespace_selector.empty
        and not namespace_selector.matches(await namespace_labels(attrs, lookup))
    ):
        return False
    object_selector = _selector(hook, "objectSelector")
    if object_selector.empty:
        return True
    candidates = [o for o in (attrs.object, attrs.old_object) if isinstance(o, dict)]
    return any(object_selector.matches(_labels(o)) for o in candidates)


async def should_call(hook: Hook, attrs: Attributes, lookup: WebhookLookup) -> Invocation | None:
    """The invocation of ``hook`` for ``attrs``, or None when it does not apply. Rules are
    checked first so that a namespace lookup (and its 404) only happens for matching webhooks."""
    invocation = match_rules(hook, attrs, lookup)
    if invocation is None or not await selectors_match(hook, attrs, lookup):
        return None
    return invocation

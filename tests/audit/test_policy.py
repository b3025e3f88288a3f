"""Policy evaluation as upstream's ``policy/checker.go``: one table of (rule, request, match)."""

from __future__ import annotations

import pytest

from apiserver.audit.defaultpolicy import default_policy
from apiserver.audit.policy import (
    METADATA,
    NONE,
    REQUEST,
    REQUEST_RECEIVED,
    RESPONSE_STARTED,
    Attributes,
    GroupResources,
    Policy,
    PolicyEvaluator,
    PolicyRule,
    rule_matches,
)
from apiserver.request.info import request_info
from apiserver.request.user import AUTHENTICATED, UserInfo
from minikube_py.identities import FAKE_NODES_USER

ALICE = UserInfo("alice", ("devs", AUTHENTICATED))
NODE = UserInfo("system:node:n1", ("system:nodes", AUTHENTICATED))
FAKE_NODES = UserInfo(FAKE_NODES_USER, ("system:masters", AUTHENTICATED))


def attrs(method: str, path: str, user: UserInfo | None = ALICE, **query: str) -> Attributes:
    return Attributes(user, request_info(method, path, query))


POD = "/api/v1/namespaces/ns1/pods/web"
POD_STATUS = "/api/v1/namespaces/ns1/pods/web/status"
NODES = "/api/v1/nodes/n1"
DEPLOY = "/apis/apps/v1/namespaces/ns1/deployments/d"

CASES = [
    # users / groups / verbs
    (PolicyRule(METADATA, users=("alice",)), attrs("GET", POD), True),
    (PolicyRule(METADATA, users=("bob",)), attrs("GET", POD), False),
    (PolicyRule(METADATA, users=("alice",)), attrs("GET", POD, user=None), False),
    (PolicyRule(METADATA, user_groups=("devs",)), attrs("GET", POD), True),
    (PolicyRule(METADATA, user_groups=("ops",)), attrs("GET", POD), False),
    (PolicyRule(METADATA, user_groups=("devs",)), attrs("GET", POD, user=None), False),
    (PolicyRule(METADATA, verbs=("get",)), attrs("GET", POD), True),
    (PolicyRule(METADATA, verbs=("list", "watch")), attrs("GET", "/api/v1/pods", watch="true"), True),
    (PolicyRule(METADATA, verbs=("create",)), attrs("GET", POD), False),
    # namespaces: "" is a cluster-scoped request; only resource requests match
    (PolicyRule(METADATA, namespaces=("ns1",)), attrs("GET", POD), True),
    (PolicyRule(METADATA, namespaces=("ns2",)), attrs("GET", POD), False),
    (PolicyRule(METADATA, namespaces=("",)), attrs("GET", NODES), True),
    (PolicyRule(METADATA, namespaces=("",)), attrs("GET", POD), False),
    (PolicyRule(METADATA, namespaces=("ns1",)), attrs("GET", "/healthz"), False),
    # resources: group, resource, subresource forms, resourceNames
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods",)),)), attrs("GET", POD), True),
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods",)),)), attrs("GET", POD_STATUS), False),
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods/status",)),)), attrs("GET", POD_STATUS), True),
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods/*",)),)), attrs("GET", POD_STATUS), True),
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods/*",)),)), attrs("GET", POD), True),
    (PolicyRule(METADATA, resources=(GroupResources("", ("*/status",)),)), attrs("GET", POD_STATUS), True),
    (PolicyRule(METADATA, resources=(GroupResources("", ("*/status",)),)), attrs("GET", POD), False),
    (PolicyRule(METADATA, resources=(GroupResources("", ("*",)),)), attrs("GET", POD_STATUS), True),
    (
        PolicyRule(
            METADATA,
            resources=(
                GroupResources(
                    "",
                ),
            ),
        ),
        attrs("GET", POD),
        True,
    ),
    (
        PolicyRule(
            METADATA,
            resources=(
                GroupResources(
                    "",
                ),
            ),
        ),
        attrs("GET", DEPLOY),
        False,
    ),
    (PolicyRule(METADATA, resources=(GroupResources("apps", ("deployments",)),)), attrs("GET", DEPLOY), True),
    (PolicyRule(METADATA, resources=(GroupResources("*", ("deployments",)),)), attrs("GET", DEPLOY), True),
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods",), ("web",)),)), attrs("GET", POD), True),
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods",), ("db",)),)), attrs("GET", POD), False),
    (PolicyRule(METADATA, resources=(GroupResources("", ("pods",)),)), attrs("GET", "/api"), False),
    # non-resource URLs
    (PolicyRule(METADATA, non_resource_urls=("/healthz",)), attrs("GET", "/healthz"), True),
    (PolicyRule(METADATA, non_resource_urls=("/healthz",)), attrs("GET", "/healthz/ping"), False),
    (PolicyRule(METADATA, non_resource_urls=("/healthz*",)), attrs("GET", "/healthz/ping"), True),
    (PolicyRule(METADATA, non_resource_urls=("*",)), attrs("GET", "/openapi/v2"), True),
    (PolicyRule(METADATA, non_resource_urls=("*",)), attrs("GET", POD), False),
    # nothing set: everything
    (PolicyRule(METADATA), attrs("DELETE", POD, user=None), True),
]


@pytest.mark.parametrize(("rule", "request_attrs", "expected"), CASES)
def test_rule_matches(rule: PolicyRule, request_attrs: Attributes, expected: bool) -> None:
    assert rule_matches(rule, request_attrs) is expected


def test_first_matching_rule_wins_and_no_match_is_none() -> None:
    policy = Policy(
        rules=(
            PolicyRule(REQUEST, users=("alice",), verbs=("create",)),
            PolicyRule(METADATA, users=("alice",)),
        )
    )
    evaluator = PolicyEvaluator(policy)
    assert evaluator.evaluate(attrs("POST", "/api/v1/namespaces/ns1/pods")).level == REQUEST
    assert evaluator.evaluate(attrs("GET", POD)).level == METADATA
    assert evaluator.evaluate(attrs("GET", POD, user=UserInfo("bob"))).level == NONE


def test_omit_stages_are_the_union_and_managed_fields_rule_overrides() -> None:
    policy = Policy(
        rules=(
            PolicyRule(
                METADATA, users=("alice",), omit_stages=(RESPONSE_STARTED,), omit_managed_fields=False
            ),
            PolicyRule(REQUEST),
        ),
        omit_stages=(REQUEST_RECEIVED,),
        omit_managed_fields=True,
    )
    evaluator = PolicyEvaluator(policy)
    alice = evaluator.evaluate(attrs("GET", POD))
    assert alice.omit_stages == {REQUEST_RECEIVED, RESPONSE_STARTED}
    assert alice.omit_managed_fields is False
    other = evaluator.evaluate(attrs("GET", POD, user=UserInfo("bob")))
    assert other.omit_stages == {REQUEST_RECEIVED}
    assert other.omit_managed_fields is True


LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1"


@pytest.mark.parametrize(
    ("request_attrs", "level"),
    [
        (attrs("GET", "/healthz"), NONE),
        (attrs("GET", "/readyz", verbose="1"), NONE),
        (attrs("GET", "/livez/ping"), NONE),
        (attrs("GET", "/version"), NONE),
        (attrs("PUT", LEASE, user=NODE), NONE),
        (attrs("GET", LEASE, user=NODE), NONE),
        (attrs("PUT", LEASE), METADATA),  # not a node
        (attrs("PUT", LEASE, user=FAKE_NODES), NONE),  # simulated nodes renew like nodes
        (attrs("DELETE", LEASE, user=FAKE_NODES), METADATA),
        (attrs("DELETE", LEASE, user=NODE), METADATA),  # not a renewal
        (attrs("GET", "/api/v1/namespaces/kube-system/secrets/s"), METADATA),
        (attrs("GET", "/openapi/v2"), METADATA),
        (attrs("GET", POD, user=None), METADATA),
        (attrs("POST", "/api/v1/namespaces/default/events"), NONE),
        (attrs("PATCH", "/apis/events.k8s.io/v1/namespaces/default/events/e"), NONE),
        (attrs("POST", "/api/v1/namespaces/default/pods/p/binding"), METADATA),
    ],
)
def test_default_policy(request_attrs: Attributes, level: str) -> None:
    decision = PolicyEvaluator(default_policy()).evaluate(request_attrs)
    assert decision.level == level
    if level != NONE:
        assert decision.omit_stages == {REQUEST_RECEIVED}

"""RBAC rule matching and coverage, table-driven (upstream's ``RuleAllows`` and ``Covers``)."""

from __future__ import annotations

import pytest

from apiserver.authz.attributes import Attributes, attributes_for
from apiserver.authz.rules import PolicyRule, rule_allows, rule_covers, uncovered
from apiserver.request.info import request_info
from apiserver.request.user import UserInfo

ALICE = UserInfo("alice", ("system:authenticated",))


def resource(
    verb: str, group: str, res: str, sub: str = "", name: str = "", ns: str = "default"
) -> Attributes:
    return Attributes(ALICE, verb, True, ns, group, "v1", res, sub, name)


def path(verb: str, url: str) -> Attributes:
    return Attributes(ALICE, verb, path=url)


def rule(verbs: str, groups: str = "", resources: str = "", names: str = "", urls: str = "") -> PolicyRule:
    split = lambda text: tuple(text.split(",")) if text else ()  # noqa: E731
    return PolicyRule(
        split(verbs),
        tuple(groups.split(",")) if resources else (),
        split(resources),
        split(names),
        split(urls),
    )


MATCHES = [
    # (rule, request, allowed)
    (rule("get", "", "pods"), resource("get", "", "pods", name="web"), True),
    (rule("get", "", "pods"), resource("list", "", "pods"), False),
    (rule("*", "", "pods"), resource("deletecollection", "", "pods"), True),
    (rule("get", "apps", "pods"), resource("get", "", "pods"), False),
    (rule("get", "*", "pods"), resource("get", "apps", "pods"), True),
    (rule("get", "", "*"), resource("get", "", "secrets", name="s"), True),
    (rule("get", "", "pods"), resource("get", "", "pods", "log", "web"), False),
    (rule("get", "", "pods/log"), resource("get", "", "pods", "log", "web"), True),
    (rule("get", "", "pods/log"), resource("get", "", "pods", name="web"), False),
    (rule("get", "", "*/status"), resource("get", "", "pods", "status", "web"), True),
    (rule("get", "", "*/status"), resource("get", "", "pods", "statuses", "web"), False),
    (rule("get", "", "*/status"), resource("get", "", "pods", name="web"), False),
    (rule("get", "", "configmaps", "a"), resource("get", "", "configmaps", name="a"), True),
    (rule("get", "", "configmaps", "a"), resource("get", "", "configmaps", name="b"), False),
    (rule("list,watch", "", "configmaps", "a"), resource("list", "", "configmaps"), False),
    (rule("list,watch", "", "configmaps", "a"), resource("watch", "", "configmaps", name="a"), True),
    (rule("get", urls="/healthz"), path("get", "/healthz"), True),
    (rule("get", urls="/healthz"), path("post", "/healthz"), False),
    (rule("get", urls="/healthz"), path("get", "/healthz/etcd"), False),
    (rule("get", urls="/apis/*"), path("get", "/apis/apps/v1"), True),
    (rule("get", urls="/apis/*"), path("get", "/apis"), False),
    (rule("get", urls="*"), path("get", "/anything"), True),
    (rule("get", urls="/api"), resource("get", "", "pods"), False),
    (rule("get", "", "pods"), path("get", "/api/v1/pods"), False),
]


@pytest.mark.parametrize(("policy", "request_attrs", "allowed"), MATCHES)
def test_rule_allows(policy: PolicyRule, request_attrs: Attributes, allowed: bool) -> None:
    assert rule_allows(policy, request_attrs) is allowed


def test_list_with_a_name_selector_names_the_object() -> None:
    query = {"fieldSelector": "metadata.name=a"}
    attrs = attributes_for(ALICE, request_info("GET", "/api/v1/namespaces/default/configmaps", query), query)
    assert (attrs.verb, attrs.name) == ("list", "a")
    assert rule_allows(rule("list", "", "configmaps", "a"), attrs)


COVERS = [
    # (owner, granted, covered)
    (rule("*", "*", "*"), rule("get,create", "apps", "deployments"), True),
    (rule("get", "", "pods"), rule("get", "", "pods"), True),
    (rule("get", "", "pods"), rule("get,list", "", "pods"), False),
    (rule("get", "", "pods", "a"), rule("get", "", "pods"), False),
    (rule("get", "", "pods"), rule("get", "", "pods", "a"), True),
    (rule("get", "", "pods", "a,b"), rule("get", "", "pods", "a"), True),
    (rule("get", "", "*/status"), rule("get", "", "pods/status"), True),
    (rule("get", "", "pods"), rule("get", "", "pods/status"), False),
    (rule("get", urls="/apis/*"), rule("get", urls="/apis/apps"), True),
    (rule("get", urls="/apis"), rule("get", urls="/apis/apps"), False),
]


@pytest.mark.parametrize(("owner", "granted", "covered"), COVERS)
def test_rule_covers(owner: PolicyRule, granted: PolicyRule, covered: bool) -> None:
    assert (not uncovered([owner], [granted])) is covered


def test_uncovered_parts_are_broken_down_and_compact() -> None:
    missing = uncovered([rule("get", "", "pods")], [rule("get,create", ",apps", "pods")])
    assert [r.compact() for r in missing] == [
        '{APIGroups:[""], Resources:["pods"], Verbs:["create"]}',
        '{APIGroups:["apps"], Resources:["pods"], Verbs:["get"]}',
        '{APIGroups:["apps"], Resources:["pods"], Verbs:["create"]}',
    ]
    assert rule_covers(rule("*", "*", "*"), missing[0])
    assert rule("get", urls="/a,/b").compact() == '{NonResourceURLs:["/a" "/b"], Verbs:["get"]}'

"""Which webhooks a request goes to: upstream's rule matcher (operations, groups, versions,
resources and subresources, scope), equivalent resources, and the selectors."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.webhook.matching import is_exempt, match_rules, rule_matches, should_call
from apiserver.admission.webhook.source import Hook
from minikube_py.api import errors
from minikube_py.api.builtin import builtin_scheme
from tests.webhook.conftest import Served

SCHEME = builtin_scheme()
PODS = SCHEME.by_resource("", "v1", "pods")
DEPLOYMENTS = SCHEME.by_resource("apps", "v1", "deployments")
NAMESPACES = SCHEME.by_resource("", "v1", "namespaces")
NODES = SCHEME.by_resource("", "v1", "nodes")
EVENTS = SCHEME.by_resource("", "v1", "events")
EVENTS_V1 = SCHEME.by_resource("events.k8s.io", "v1", "events")
MUTATING = SCHEME.by_resource("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations")
assert PODS and DEPLOYMENTS and NAMESPACES and NODES and EVENTS and EVENTS_V1 and MUTATING


def rule(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}
    return {**base, **fields}


def request(rt: Any = PODS, sub: str = "", namespace: str = "default", op: str = "CREATE") -> Attributes:
    obj = {"metadata": {"name": "x", "labels": {"app": "web"}}}
    return Attributes(Operation(op), rt, sub, namespace, "x", obj)


@pytest.mark.parametrize(
    ("fields", "attrs", "expected"),
    [
        ({}, request(), True),
        ({"operations": ["CREATE"]}, request(), True),
        ({"operations": ["UPDATE", "DELETE"]}, request(), False),
        (
            {"operations": ["CONNECT"]},
            request(op="CONNECT", sub="exec"),
            False,
        ),  # resources "*": no subresource
        ({"operations": ["CONNECT"], "resources": ["pods/exec"]}, request(op="CONNECT", sub="exec"), True),
        ({"apiGroups": [""]}, request(), True),
        ({"apiGroups": ["apps"]}, request(), False),
        ({"apiGroups": ["apps"]}, request(DEPLOYMENTS), True),
        ({"apiVersions": ["v1beta1"]}, request(), False),
        ({"resources": ["pods"]}, request(), True),
        ({"resources": ["pods"]}, request(sub="status"), False),
        ({"resources": ["pods/status"]}, request(sub="status"), True),
        ({"resources": ["pods/status"]}, request(), False),
        ({"resources": ["pods/*"]}, request(sub="binding"), True),
        ({"resources": ["pods/*"]}, request(), True),  # upstream: "*" subresource matches "" too
        ({"resources": ["*/status"]}, request(DEPLOYMENTS, sub="status"), True),
        ({"resources": ["*/*"]}, request(sub="eviction"), True),
        ({"resources": ["*/*"]}, request(), True),
        ({"resources": ["*"]}, request(sub="status"), False),  # "*" is main resources only
        ({"resources": ["deployments"]}, request(), False),
        ({"scope": "Namespaced"}, request(), True),
        ({"scope": "Namespaced"}, request(NODES, namespace=""), False),
        ({"scope": "Namespaced"}, request(NAMESPACES, namespace=""), False),
        ({"scope": "Cluster"}, request(), False),
        ({"scope": "Cluster"}, request(NODES, namespace=""), True),
        (
            {"scope": "Cluster"},
            request(NAMESPACES, namespace="default"),
            True,
        ),  # namespaces are cluster-scoped
        ({"scope": "*"}, request(NODES, namespace=""), True),
    ],
)
def test_rules(fields: dict[str, Any], attrs: Attributes, expected: bool) -> None:
    assert rule_matches(rule(**fields), attrs, attrs.resource) is expected


def hook_with(*rules: dict[str, Any], **spec: Any) -> Hook:
    return Hook("config", 0, {"name": "a.b.c", "rules": list(rules), **spec})


async def test_equivalent_resources_match_another_version(served: Served) -> None:
    events_v1_only = rule(apiGroups=["events.k8s.io"], resources=["events"])
    invocation = match_rules(hook_with(events_v1_only), request(EVENTS), served.catalog)
    assert invocation is not None and invocation.resource == EVENTS_V1
    assert invocation.kind == ("events.k8s.io", "v1", "Event")
    exact = hook_with(events_v1_only, matchPolicy="Exact")
    assert match_rules(exact, request(EVENTS), served.catalog) is None
    # rules for the request's own resource win over equivalents
    both = hook_with(rule(apiGroups=[""], resources=["events"]), events_v1_only)
    direct = match_rules(both, request(EVENTS), served.catalog)
    assert direct is not None and direct.resource == EVENTS


async def test_subresource_kind_is_the_subresource_object(served: Served) -> None:
    invocation = match_rules(
        hook_with(rule(resources=["*/scale"])), request(DEPLOYMENTS, sub="scale"), served.catalog
    )
    assert invocation is not None and invocation.kind == ("autoscaling", "v1", "Scale")


def test_webhook_configurations_are_exempt() -> None:
    assert is_exempt(request(MUTATING, namespace=""))
    assert not is_exempt(request())


@pytest.mark.parametrize(
    ("spec", "namespace", "expected"),
    [
        ({}, "default", True),
        ({"namespaceSelector": {"matchLabels": {"team": "webhooks"}}}, "webhooks", True),
        ({"namespaceSelector": {"matchLabels": {"team": "webhooks"}}}, "other", False),
        (
            {
                "namespaceSelector": {
                    "matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["other"]}]
                }
            },
            "default",
            True,
        ),
        ({"objectSelector": {"matchLabels": {"app": "web"}}}, "default", True),
        ({"objectSelector": {"matchLabels": {"app": "db"}}}, "default", False),
        ({"objectSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}}, "default", True),
    ],
)
async def test_selectors(served: Served, spec: dict[str, Any], namespace: str, expected: bool) -> None:
    invocation = await should_call(hook_with(rule(), **spec), request(namespace=namespace), served.catalog)
    assert (invocation is not None) is expected


async def test_object_selector_also_matches_the_old_object(served: Served) -> None:
    attrs = request(op="UPDATE")
    attrs.object = {"metadata": {"name": "x", "labels": {}}}
    attrs.old_object = {"metadata": {"name": "x", "labels": {"app": "web"}}}
    selected = hook_with(rule(), objectSelector={"matchLabels": {"app": "web"}})
    assert await should_call(selected, attrs, served.catalog) is not None
    attrs.old_object = None
    assert await should_call(selected, attrs, served.catalog) is None


async def test_namespace_selector_on_namespaces_reads_the_object(served: Served) -> None:
    selected = hook_with(rule(), namespaceSelector={"matchLabels": {"env": "prod"}})
    assert NAMESPACES is not None
    attrs = Attributes(Operation.CREATE, NAMESPACES, "", "", "new", {"metadata": {"labels": {"env": "prod"}}})
    assert await should_call(selected, attrs, served.catalog) is not None
    attrs.object = {"metadata": {"labels": {"env": "dev"}}}
    assert await should_call(selected, attrs, served.catalog) is None


async def test_cluster_scoped_requests_ignore_the_namespace_selector(served: Served) -> None:
    selected = hook_with(rule(), namespaceSelector={"matchLabels": {"team": "nobody"}})
    assert await should_call(selected, request(NODES, namespace=""), served.catalog) is not None


async def test_missing_namespace_is_a_404_only_for_matching_webhooks(served: Served) -> None:
    selected = hook_with(rule(), namespaceSelector={"matchLabels": {"team": "x"}})
    with pytest.raises(errors.ApiError) as caught:
        await should_call(selected, request(namespace="gone"), served.catalog)
    assert caught.value.code == 404 and caught.value.message == 'namespaces "gone" not found'
    other = hook_with(rule(apiGroups=["apps"]), namespaceSelector={"matchLabels": {"team": "x"}})
    assert await should_call(other, request(namespace="gone"), served.catalog) is None

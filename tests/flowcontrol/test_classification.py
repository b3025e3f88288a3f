"""Classification over upstream's bootstrap configuration: which FlowSchema (and so which
priority level) a request matches, its flow, and each level's share of the concurrency."""

from __future__ import annotations

import pytest

from apiserver.flowcontrol.controller import PriorityAndFairness
from apiserver.flowcontrol.match import matches_flow_schema
from apiserver.flowcontrol.schema import ALL, FlowSchema, NonResourceRule, PolicyRules, Subject
from apiserver.request.info import request_info
from apiserver.request.user import ANONYMOUS_USER, UserInfo

AUTH = "system:authenticated"
ADMIN = UserInfo("kubernetes-admin", ("system:masters", AUTH))
ALICE = UserInfo("alice", (AUTH,))
NODE = UserInfo("system:node:n1", ("system:nodes", AUTH))
KCM = UserInfo("system:kube-controller-manager", (AUTH,))
KUBE_SYSTEM_SA = UserInfo(
    "system:serviceaccount:kube-system:replicaset-controller", ("system:serviceaccounts", AUTH)
)
DEFAULT_SA = UserInfo("system:serviceaccount:default:default", ("system:serviceaccounts", AUTH))


def classify(user: UserInfo, method: str, path: str, query: str = "") -> tuple[str, str, str]:
    controller = PriorityAndFairness(150)
    params = dict(part.split("=") for part in query.split("&") if part)
    classification, flow = controller.classify(user, request_info(method, path, params))
    return classification.flow_schema.name, classification.queue_set.level.name, flow


@pytest.mark.parametrize(
    ("user", "method", "path", "expected"),
    [
        (ADMIN, "DELETE", "/api/v1/namespaces/default/pods/p", ("exempt", "exempt", "")),
        (ADMIN, "GET", "/metrics", ("exempt", "exempt", "")),
        (ANONYMOUS_USER, "GET", "/readyz", ("probes", "exempt", "")),
        (ALICE, "GET", "/livez", ("probes", "exempt", "")),
        (ANONYMOUS_USER, "GET", "/version", ("global-default", "global-default", "system:anonymous")),
        (ALICE, "GET", "/api/v1/namespaces/default/pods", ("global-default", "global-default", "alice")),
        (
            ALICE,
            "POST",
            "/apis/apps/v1/namespaces/x/deployments",
            ("global-default", "global-default", "alice"),
        ),
        (NODE, "PUT", "/api/v1/nodes/n1/status", ("system-node-high", "node-high", "system:node:n1")),
        (
            NODE,
            "PUT",
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1",
            ("system-node-high", "node-high", "system:node:n1"),
        ),
        (NODE, "GET", "/api/v1/pods", ("system-nodes", "system", "system:node:n1")),
        (
            KCM,
            "PUT",
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kcm",
            ("system-leader-election", "leader-election", "system:kube-controller-manager"),
        ),
        (KCM, "GET", "/api/v1/namespaces/ns1/pods", ("kube-controller-manager", "workload-high", "ns1")),
        (
            KUBE_SYSTEM_SA,
            "GET",
            "/apis/apps/v1/replicasets",
            ("kube-system-service-accounts", "workload-high", ""),
        ),
        (
            DEFAULT_SA,
            "GET",
            "/api/v1/namespaces/default/configmaps",
            ("service-accounts", "workload-low", DEFAULT_SA.name),
        ),
    ],
)
def test_bootstrap_classification(
    user: UserInfo, method: str, path: str, expected: tuple[str, str, str]
) -> None:
    assert classify(user, method, path) == expected


def test_leases_delete_by_the_controller_manager_is_not_leader_election() -> None:
    # system-leader-election covers get, create and update of leases only.
    path = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kcm"
    assert classify(KCM, "DELETE", path)[0] == "kube-controller-manager"


def test_a_user_in_no_matching_group_falls_to_catch_all() -> None:
    assert classify(UserInfo("odd", ()), "GET", "/api/v1/pods")[:2] == ("catch-all", "catch-all")


def test_each_limited_level_gets_its_share_of_the_server_limit() -> None:
    limits = {
        name: qs.limit for name, qs in PriorityAndFairness(600).queue_sets.items() if not qs.level.exempt
    }
    # upstream's nominal limits with the default 400 + 200: ceil(600 * shares / 245)
    assert limits == {
        "catch-all": 13,
        "system": 74,
        "node-high": 98,
        "leader-election": 25,
        "workload-high": 98,
        "workload-low": 245,
        "global-default": 49,
    }
    assert PriorityAndFairness(6).queue_sets["global-default"].limit == 1


def test_non_resource_urls_match_exactly_or_by_prefix() -> None:
    schema = FlowSchema(
        "fs",
        "global-default",
        1,
        None,
        (PolicyRules((Subject("User", ALL),), (), (NonResourceRule(("get",), ("/healthz", "/apis/*")),)),),
    )

    def matches(path: str, method: str = "GET") -> bool:
        return matches_flow_schema(schema, ALICE, request_info(method, path, {}))

    assert matches("/healthz") and matches("/healthz/etcd") and matches("/apis/")
    assert not matches("/healthzz") and not matches("/apis") and not matches("/healthz", "POST")

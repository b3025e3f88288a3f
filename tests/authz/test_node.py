"""The node authorizer: a node reaches its own objects and those its pods reference."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.authz.attributes import Attributes
from apiserver.authz.node import NodeAuthorizer
from apiserver.authz.nodegraph import NodeGraph
from apiserver.request.user import UserInfo

NODE = UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))


class Pods:
    resource_version = 1

    def __init__(self, pods: list[dict[str, Any]]) -> None:
        self.pods = pods

    def objects(self, prefix: str = "") -> list[dict[str, Any]]:
        return self.pods


POD = {
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "nodeName": "n1",
        "volumes": [{"name": "v", "secret": {"secretName": "tls"}}],
        "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "settings"}}]}],
    },
}
OTHER = {"metadata": {"name": "db", "namespace": "default"}, "spec": {"nodeName": "n2"}}


def ask(
    verb: str, resource: str, name: str = "", ns: str = "default", sub: str = "", group: str = "", **kw: Any
) -> bool:
    authorizer = NodeAuthorizer(NodeGraph(Pods([POD, OTHER])))
    attrs = Attributes(
        kw.get("user", NODE),
        verb,
        True,
        ns,
        group,
        "v1",
        resource,
        sub,
        name,
        field_selector=kw.get("fields", {}),
    )
    return authorizer.authorize(attrs).allowed


@pytest.mark.parametrize(
    ("verb", "resource", "name", "ns", "sub", "group", "fields", "allowed"),
    [
        ("get", "secrets", "tls", "default", "", "", {}, True),
        ("get", "secrets", "other", "default", "", "", {}, False),
        ("list", "secrets", "", "default", "", "", {}, False),
        ("get", "configmaps", "settings", "default", "", "", {}, True),
        # one referenced object watched by name (the name comes from metadata.name=)
        ("watch", "configmaps", "settings", "default", "", "", {}, True),
        ("list", "secrets", "tls", "default", "", "", {}, True),
        ("watch", "secrets", "other", "default", "", "", {}, False),
        ("update", "secrets", "tls", "default", "", "", {}, False),
        ("create", "serviceaccounts", "default", "default", "token", "", {}, True),
        ("get", "pods", "web", "default", "", "", {}, True),
        ("get", "pods", "db", "default", "", "", {}, False),
        ("update", "pods", "web", "default", "status", "", {}, True),
        ("list", "pods", "", "", "", "", {"spec.nodeName": "n1"}, True),
        ("list", "pods", "", "", "", "", {}, False),
        ("get", "nodes", "n1", "", "", "", {}, True),
        ("patch", "nodes", "n1", "", "status", "", {}, True),
        ("get", "nodes", "n2", "", "", "", {}, False),
        ("update", "leases", "n1", "kube-node-lease", "", "coordination.k8s.io", {}, True),
        ("update", "leases", "n2", "kube-node-lease", "", "coordination.k8s.io", {}, False),
        ("create", "events", "", "default", "", "", {}, True),
        ("delete", "deployments", "x", "default", "", "apps", {}, False),
    ],
)
def test_node_access(
    verb: str, resource: str, name: str, ns: str, sub: str, group: str, fields: dict[str, str], allowed: bool
) -> None:
    assert ask(verb, resource, name, ns, sub, group, fields=fields) is allowed


def test_other_users_get_no_opinion() -> None:
    assert not ask("get", "secrets", "tls", user=UserInfo("system:node:n1", ("system:authenticated",)))

"""NodeRestriction, table-driven: what a node user may and may not change."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.plugins.noderestriction import NodeRestriction
from apiserver.authn.user import UserInfo
from minikube_py.api import errors
from minikube_py.api.builtin import builtin_scheme

NODE = UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))
ADMIN = UserInfo("admin", ("system:masters",))


def rt(resource: str, group: str = "") -> Any:
    return next(r for r in builtin_scheme() if (r.group, r.resource) == (group, resource))


def bound(node: str, **meta: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p", **meta}, "spec": {"nodeName": node}}


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        (
            Attributes(
                Operation.UPDATE, rt("nodes"), "status", "", "n1", {"metadata": {"name": "n1"}}, {}, user=NODE
            ),
            None,
        ),
        (
            Attributes(
                Operation.UPDATE, rt("nodes"), "", "", "n2", {"metadata": {"name": "n2"}}, {}, user=NODE
            ),
            'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
        ),
        (
            Attributes(
                Operation.UPDATE,
                rt("nodes"),
                "",
                "",
                "n1",
                {"metadata": {"name": "n1"}, "spec": {"taints": [{"key": "k"}]}},
                {"metadata": {}},
                user=NODE,
            ),
            'nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
        ),
        (
            Attributes(
                Operation.UPDATE, rt("pods"), "status", "ns", "p", bound("n1"), bound("n1"), user=NODE
            ),
            None,
        ),
        (
            Attributes(
                Operation.UPDATE, rt("pods"), "status", "ns", "p", bound("n2"), bound("n2"), user=NODE
            ),
            'pods "p" is forbidden: node "n1" can only update pod status for pods with '
            "spec.nodeName set to itself",
        ),
        (
            Attributes(Operation.DELETE, rt("pods"), "", "ns", "p", None, bound("n2"), user=NODE),
            'pods "p" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself',
        ),
        (
            Attributes(Operation.CREATE, rt("pods"), "", "ns", "p", bound("n1"), user=NODE),
            'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, '
            'node "n1" can only create mirror pods',
        ),
        (
            Attributes(
                Operation.CREATE,
                rt("pods"),
                "",
                "ns",
                "p",
                bound("n1", annotations={"kubernetes.io/config.mirror": "x"}),
                user=NODE,
            ),
            None,
        ),
        (
            Attributes(
                Operation.UPDATE,
                rt("leases", "coordination.k8s.io"),
                "",
                "kube-node-lease",
                "n2",
                {"metadata": {"name": "n2"}},
                {},
                user=NODE,
            ),
            'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the '
            "same name as the requesting node",
        ),
        (
            Attributes(
                Operation.UPDATE, rt("nodes"), "", "", "n2", {"metadata": {"name": "n2"}}, {}, user=ADMIN
            ),
            None,
        ),
    ],
)
async def test_node_restriction(attrs: Attributes, message: str | None) -> None:
    plugin = NodeRestriction()
    if message is None:
        await plugin.admit(attrs)
        return
    with pytest.raises(errors.ApiError) as refused:
        await plugin.admit(attrs)
    assert refused.value.code == 403 and refused.value.status()["message"] == message

"""NodeRestriction, table-driven: what a node user may and may not change."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.admission.attributes import Attributes, Operation
from apiserver.admission.plugins.noderestriction import NodeRestriction
from apiserver.request.user import UserInfo
from minikube_py.api import errors
from minikube_py.api.builtin import builtin_scheme

NODE = UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))
ADMIN = UserInfo("admin", ("system:masters",))


def rt(resource: str, group: str = "") -> Any:
    return next(r for r in builtin_scheme() if (r.group, r.resource) == (group, resource))


def bound(node: str, **meta: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p", **meta}, "spec": {"nodeName": node}}


OWNER = {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "u1", "controller": True}


def mirror(node: str, owners: Any = (OWNER,), **spec: Any) -> dict[str, Any]:
    """A mirror pod as a node agent creates it: the annotation and the Node as controller."""
    pod = bound(node, annotations={"kubernetes.io/config.mirror": "x"}, ownerReferences=list(owners))
    pod["spec"].update(spec)
    return pod


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
                mirror("n1"),
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


FORBIDDEN_MIRRORS = [
    (mirror("n1", owners=()), 'node "n1" can only create pods with an owner reference set to itself'),
    (mirror("n1", owners=(OWNER, OWNER)), "can only create pods with a single owner reference set to itself"),
    (mirror("n1", owners=({**OWNER, "name": "n2"},)), "can only create pods with an owner reference set"),
    (mirror("n1", owners=({**OWNER, "kind": "Pod"},)), "can only create pods with an owner reference set"),
    (
        mirror("n1", owners=({**OWNER, "controller": False},)),
        "with a controller owner reference set to itself",
    ),
    (mirror("n1", owners=({**OWNER, "blockOwnerDeletion": True},)), "must not set blockOwnerDeletion"),
    (mirror("n2"), "can only create pods with spec.nodeName set to itself"),
    (mirror("n1", serviceAccountName="default"), "can not create pods that reference a service account"),
    (mirror("n1", volumes=[{"name": "v", "secret": {"secretName": "s"}}]), "reference secrets"),
    (
        mirror("n1", containers=[{"name": "c", "envFrom": [{"configMapRef": {"name": "cm"}}]}]),
        "reference configmaps",
    ),
    (
        mirror("n1", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]),
        "reference persistentvolumeclaims",
    ),
    (
        mirror("n1", volumes=[{"name": "v", "projected": {"sources": [{"clusterTrustBundle": {}}]}}]),
        "reference clustertrustbundles",
    ),
]


@pytest.mark.parametrize(("pod", "message"), FORBIDDEN_MIRRORS)
async def test_mirror_pods_must_belong_to_the_node_and_reference_nothing(pod: Any, message: str) -> None:
    attrs = Attributes(Operation.CREATE, rt("pods"), "", "ns", "p", pod, user=NODE)
    with pytest.raises(errors.ApiError) as refused:
        await NodeRestriction().admit(attrs)
    assert refused.value.code == 403 and message in refused.value.status()["message"]


async def test_a_mirror_pod_owner_must_carry_the_nodes_uid() -> None:
    class Nodes:
        async def get(self, namespace: str, name: str, *, fresh: bool = False) -> Any:
            return {"metadata": {"name": name, "uid": "u1"}} if name == "n1" else None

    class OneNode:
        def lister(self, group: str, version: str, resource: str) -> Nodes:
            assert (group, version, resource) == ("", "v1", "nodes")
            return Nodes()

    plugin = NodeRestriction(lookup=OneNode())  # type: ignore[arg-type]
    await plugin.admit(Attributes(Operation.CREATE, rt("pods"), "", "ns", "p", mirror("n1"), user=NODE))
    stale = mirror("n1", owners=({**OWNER, "uid": "old"},))
    with pytest.raises(errors.ApiError, match="node n1 UID mismatch: expected old got u1"):
        await plugin.admit(Attributes(Operation.CREATE, rt("pods"), "", "ns", "p", stale, user=NODE))

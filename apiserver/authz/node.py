"""The node authorizer (upstream's ``plugin/pkg/auth/authorizer/node``, simplified): what a
kubelet (user ``system:node:<name>`` in group ``system:nodes``) may do, by its relationship to
the objects. Placed before RBAC (``--authorization-mode=Node,RBAC``); for anyone else, and for
what it does not cover, it has no opinion.

A node may:
- create Nodes; get, list/watch (``metadata.name=<node>``), update, patch, delete its own Node
  and its ``status``;
- get, create, update, patch, delete its Lease in ``kube-node-lease`` (create: any name);
- get the pods bound to it, list/watch pods with ``fieldSelector=spec.nodeName=<node>``,
  create (mirror pods), delete and evict its pods, get/update/patch their status;
- create, update, patch events;
- get, and list/watch one by one (``metadata.name=<name>``), the secrets, configmaps and
  persistentvolumeclaims its pods reference (volume refreshes watch them), the
  persistentvolumes those claims are bound to, and create tokens
  for its pods' service accounts;
- the rest of upstream's node rules: read services, get endpoints, create token and access
  reviews, read runtime classes and CSI drivers.
"""

from __future__ import annotations

from apiserver.authz.attributes import NO_OPINION, Attributes, Decision, Result
from apiserver.authz.nodegraph import NodeGraph
from apiserver.authz.rules import PolicyRule, rules_allow
from apiserver.request.user import UserInfo

NODE_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"
LEASE_NAMESPACE = "kube-node-lease"
ALLOW = Result(Decision.ALLOW)
READ = ("get", "list", "watch")
GRAPH_RESOURCES = ("secrets", "configmaps", "persistentvolumeclaims", "persistentvolumes")
OTHER_RULES = (
    PolicyRule(READ, ("",), ("services",)),
    PolicyRule(("get",), ("",), ("endpoints",)),
    PolicyRule(("create",), ("authentication.k8s.io",), ("tokenreviews",)),
    PolicyRule(("create",), ("authorization.k8s.io",), ("subjectaccessreviews", "localsubjectaccessreviews")),
    PolicyRule(("create", "update", "patch"), ("", "events.k8s.io"), ("events",)),
    PolicyRule(READ, ("node.k8s.io",), ("runtimeclasses",)),
    PolicyRule(READ, ("storage.k8s.io",), ("csidrivers",)),
)


def node_name(user: UserInfo) -> str | None:
    """The node a user is (upstream's ``NodeIdentity``), None for non-nodes."""
    name = user.name
    if not name.startswith(NODE_PREFIX) or NODES_GROUP not in user.groups:
        return None
    return name[len(NODE_PREFIX) :] or None


def no_relationship(node: str) -> Result:
    return Result(Decision.NO_OPINION, f"no relationship found between node '{node}' and this object")


class NodeAuthorizer:
    def __init__(self, graph: NodeGraph) -> None:
        self.graph = graph

    def authorize(self, attrs: Attributes) -> Result:
        node = node_name(attrs.user)
        if node is None or not attrs.resource_request:
            return NO_OPINION
        if attrs.api_group == "":
            if attrs.resource == "nodes":
                return self._node(node, attrs)
            if attrs.resource == "pods":
                return self._pod(node, attrs)
            if attrs.resource in GRAPH_RESOURCES and not attrs.subresource:
                return self._referenced(node, attrs)
            if attrs.combined_resource == "serviceaccounts/token" and attrs.verb == "create":
                return self._related(node, attrs)
        if attrs.api_group == "coordination.k8s.io" and attrs.resource == "leases":
            return self._lease(node, attrs)
        return ALLOW if rules_allow(OTHER_RULES, attrs) else NO_OPINION

    def _node(self, node: str, attrs: Attributes) -> Result:
        if attrs.subresource not in ("", "status"):
            return NO_OPINION
        if attrs.verb == "create" and not attrs.subresource:
            return ALLOW
        if attrs.name == node and attrs.verb in ("get", "list", "watch", "update", "patch", "delete"):
            return ALLOW
        return Result(Decision.NO_OPINION, f"node '{node}' can only access its own Node object")

    def _lease(self, node: str, attrs: Attributes) -> Result:
        if attrs.verb not in ("get", "create", "update", "patch", "delete"):
            return Result(Decision.NO_OPINION, "can only get, create, update, patch, or delete a node lease")
        if attrs.namespace != LEASE_NAMESPACE:
            return Result(
                Decision.NO_OPINION, f'can only access leases in the "{LEASE_NAMESPACE}" system namespace'
            )
        if attrs.verb != "create" and attrs.name != node:
            return Result(
                Decision.NO_OPINION, "can only access node lease with the same name as the requesting node"
            )
        return ALLOW

    def _pod(self, node: str, attrs: Attributes) -> Result:
        sub, verb = attrs.subresource, attrs.verb
        if not sub and verb in ("list", "watch"):
            if attrs.field_selector.get("spec.nodeName") == node:
                return ALLOW
            return Result(Decision.NO_OPINION, "can only list/watch pods with spec.nodeName field selector")
        if not sub and verb == "create":
            return ALLOW  # mirror pods (upstream leaves their checks to NodeRestriction admission)
        allowed = {"": ("get", "delete"), "status": ("get", "update", "patch"), "eviction": ("create",)}
        if verb not in allowed.get(sub, ()):
            return NO_OPINION
        if (attrs.namespace, attrs.name) in self.graph.refs(node).pods:
            return ALLOW
        return no_relationship(node)

    def _referenced(self, node: str, attrs: Attributes) -> Result:
        # upstream's authorizeReadNamespacedObject: get, and list/watch of one object (its
        # name from a metadata.name field selector), which the agent's per-object watches use
        if attrs.verb not in READ:
            return Result(Decision.NO_OPINION, "can only read resources of this type")
        if not attrs.name:
            return Result(Decision.NO_OPINION, "can only get individual resources of this type")
        return self._related(node, attrs)

    def _related(self, node: str, attrs: Attributes) -> Result:
        if (attrs.resource, attrs.namespace, attrs.name) in self.graph.refs(node).refs:
            return ALLOW
        return no_relationship(node)

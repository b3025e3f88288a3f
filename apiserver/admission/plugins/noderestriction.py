"""NodeRestriction: a node (user ``system:node:<name>`` in group ``system:nodes``) may only
change its own Node (and not its taints), its own Lease, the status of pods bound to it, and
create (mirror pods) or delete pods bound to it. Everyone else passes.

A mirror pod a node creates must, as upstream requires, be bound to that node, have exactly one
owner reference, the node itself as controller (apiVersion v1, kind Node, its name and, when
the Node can be looked up, its uid; no ``blockOwnerDeletion``), and reference no other API
object (service account, secret, config map, persistent volume claim, cluster trust bundle)."""

from __future__ import annotations

from apiserver.admission.attributes import Attributes, Operation, forbidden
from apiserver.admission.interfaces import Plugin
from apiserver.authz.nodegraph import pod_references
from apiserver.lookup import Lookup
from minikube_py.api.unstructured import Object

NAME = "NodeRestriction"
NODES_GROUP = "system:nodes"
NODE_PREFIX = "system:node:"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
LEASES = ("coordination.k8s.io", "leases")
RESTRICTED_LABEL_PREFIX = "node-restriction.kubernetes.io/"


def node_identity(attrs: Attributes) -> tuple[str, bool]:
    """(node name, is a node): upstream's default ``NodeIdentifier``."""
    user = attrs.user
    if NODES_GROUP not in user.groups or not user.name.startswith(NODE_PREFIX):
        return "", False
    return user.name[len(NODE_PREFIX) :], True


def _node_of(obj: Object | None) -> str:
    return str(((obj or {}).get("spec") or {}).get("nodeName") or "")


class NodeRestriction(Plugin):
    name = NAME

    def __init__(self, lookup: Lookup | None = None) -> None:
        super().__init__()
        self.lookup = lookup  # None (unit tests): owner uids are not checked

    async def admit(self, attrs: Attributes) -> None:
        if NODES_GROUP in attrs.user.groups and not attrs.user.name.startswith(NODE_PREFIX):
            raise forbidden(attrs, f'could not determine node from user "{attrs.user.name}"')
        node, is_node = node_identity(attrs)
        if not is_node:
            return
        rt = attrs.resource
        if (rt.group, rt.resource) == ("", "pods"):
            self._pod(attrs, node)
            if attrs.operation == Operation.CREATE and not attrs.subresource:
                await self._mirror_pod(attrs, node, attrs.object or {})
        elif (rt.group, rt.resource) == ("", "nodes"):
            self._node(attrs, node)
        elif (
            (rt.group, rt.resource) == LEASES and attrs.namespace == "kube-node-lease" and attrs.name != node
        ):
            raise forbidden(attrs, "can only access node lease with the same name as the requesting node")

    def _pod(self, attrs: Attributes, node: str) -> None:
        op = attrs.operation
        if attrs.subresource == "status":
            if op != Operation.UPDATE:
                raise forbidden(attrs, f'unexpected operation "{op}"')
            if _node_of(attrs.old_object) != node:
                raise forbidden(
                    attrs,
                    f'node "{node}" can only update pod status for pods with spec.nodeName set to itself',
                )
            return
        if attrs.subresource:
            return
        if op == Operation.CREATE:
            pod = attrs.object or {}
            if MIRROR_POD_ANNOTATION not in (pod.get("metadata", {}).get("annotations") or {}):
                raise forbidden(
                    attrs,
                    f'pod does not have "{MIRROR_POD_ANNOTATION}" annotation, '
                    f'node "{node}" can only create mirror pods',
                )
            if _node_of(pod) != node:
                raise forbidden(attrs, f'node "{node}" can only create pods with spec.nodeName set to itself')
        elif op == Operation.DELETE:
            if _node_of(attrs.old_object) != node:
                raise forbidden(attrs, f'node "{node}" can only delete pods with spec.nodeName set to itself')
        else:
            raise forbidden(
                attrs, f'unexpected operation "{op}", node "{node}" can only create and delete mirror pods'
            )

    def _node(self, attrs: Attributes, node: str) -> None:
        requested = attrs.name or ((attrs.object or {}).get("metadata") or {}).get("name", "")
        if requested != node:
            raise forbidden(attrs, f'node "{node}" is not allowed to modify node "{requested}"')
        new = attrs.object or {}
        old = attrs.old_object or {}
        taints_changed = (new.get("spec") or {}).get("taints") != (old.get("spec") or {}).get("taints")
        if attrs.operation == Operation.UPDATE and attrs.subresource == "" and taints_changed:
            raise forbidden(attrs, f'node "{node}" is not allowed to modify taints')
        if attrs.operation in (Operation.CREATE, Operation.UPDATE):
            labels = (new.get("metadata") or {}).get("labels") or {}
            old_labels = (old.get("metadata") or {}).get("labels") or {}
            bad = sorted(
                k
                for k in set(labels) | set(old_labels)
                if k.startswith(RESTRICTED_LABEL_PREFIX) and labels.get(k) != old_labels.get(k)
            )
            if bad:
                verb = "set" if attrs.operation == Operation.CREATE else "modify"
                raise forbidden(
                    attrs, f'node "{node}" is not allowed to {verb} the following labels: {", ".join(bad)}'
                )

    async def _mirror_pod(self, attrs: Attributes, node: str, pod: Object) -> None:
        owners = (pod.get("metadata") or {}).get("ownerReferences") or []
        if len(owners) != 1:
            which = "a single owner reference" if owners else "an owner reference"
            raise forbidden(attrs, f'node "{node}" can only create pods with {which} set to itself')
        owner = owners[0]
        if (owner.get("apiVersion"), owner.get("kind"), owner.get("name")) != ("v1", "Node", node):
            raise forbidden(
                attrs, f'node "{node}" can only create pods with an owner reference set to itself'
            )
        if owner.get("controller") is not True:
            raise forbidden(
                attrs, f'node "{node}" can only create pods with a controller owner reference set to itself'
            )
        if owner.get("blockOwnerDeletion"):
            raise forbidden(attrs, f'node "{node}" must not set blockOwnerDeletion on an owner reference')
        if self.lookup is not None:
            found = await self.lookup.lister("", "v1", "nodes").get("", node, fresh=True)
            uid = (found or {}).get("metadata", {}).get("uid")
            if uid != owner.get("uid"):
                raise forbidden(attrs, f"node {node} UID mismatch: expected {owner.get('uid')} got {uid}")
        spec = pod.get("spec") or {}
        kinds = {kind for kind, _ in pod_references(pod) if kind != "serviceaccounts"}
        if spec.get("serviceAccountName"):
            kinds.add("a service account")
        for volume in spec.get("volumes") or []:
            if any("clusterTrustBundle" in s for s in (volume.get("projected") or {}).get("sources") or []):
                kinds.add("clustertrustbundles")
        for kind in (
            "a service account",
            "secrets",
            "configmaps",
            "clustertrustbundles",
            "persistentvolumeclaims",
        ):
            if kind in kinds:
                raise forbidden(attrs, f'node "{node}" can not create pods that reference {kind}')

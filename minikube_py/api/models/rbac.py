"""rbac.authorization.k8s.io/v1: roles, cluster roles and their bindings."""

from __future__ import annotations

from minikube_py.api.models.base import K8sModel
from minikube_py.api.models.meta import LabelSelector, ObjectMeta, TypeMeta
from minikube_py.api.models.tags import tag
from minikube_py.api.scheme import Served

OPENAPI_PACKAGE = "io.k8s.api.rbac.v1"
GROUP = "rbac.authorization.k8s.io"


class PolicyRule(K8sModel):
    """What a rule allows: verbs on resources or on non-resource URLs."""

    required_fields = ("verbs",)

    verbs: list[str] | None = tag(1)
    """Verbs allowed on the matching resources or URLs; ``*`` means all."""
    api_groups: list[str] | None = tag(2, "omitempty")
    """API groups of the resources; ``""`` is the core group and ``*`` all groups."""
    resources: list[str] | None = tag(3, "omitempty")
    """Resources the rule applies to; ``*`` means all."""
    resource_names: list[str] | None = tag(4, "omitempty")
    """Optional allow list of object names; empty means every object."""
    non_resource_urls: list[str] | None = tag(5, "omitempty")
    """Partial URLs (``/healthz``, ``/api/*``) a user may reach; only in cluster roles bound by
    cluster role bindings, and not together with resources."""


class AggregationRule(K8sModel):
    """How a cluster role collects the rules of other cluster roles."""

    cluster_role_selectors: list[LabelSelector] | None = tag(1, "omitempty")
    """Selectors of the cluster roles whose rules are aggregated; one match is enough."""


class Role(TypeMeta):
    """A namespaced set of policy rules, referenced by a RoleBinding."""

    kinds = (Served(GROUP, "v1", "roles", True),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    rules: list[PolicyRule] | None = tag(2)
    """All the policy rules of this role."""


class ClusterRole(TypeMeta):
    """A cluster-wide set of policy rules, referenced by a RoleBinding or ClusterRoleBinding."""

    kinds = (Served(GROUP, "v1", "clusterroles", False),)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    rules: list[PolicyRule] | None = tag(2)
    """All the policy rules of this cluster role."""
    aggregation_rule: AggregationRule | None = tag(3, "*", "omitempty")
    """When set, the controller manages ``rules`` by aggregating other cluster roles."""


class Subject(K8sModel):
    """A user, group or service account a binding grants a role to."""

    required_fields = ("kind", "name")

    kind: str | None = tag(1)
    """``User``, ``Group`` or ``ServiceAccount``."""
    api_group: str | None = tag(2, "omitempty")
    """API group of the subject: empty for service accounts, ``rbac.authorization.k8s.io``
    for users and groups."""
    name: str | None = tag(3)
    """Name of the subject."""
    namespace: str | None = tag(4, "omitempty")
    """Namespace of a service account subject."""


class RoleRef(K8sModel):
    """The role a binding grants."""

    required_fields = ("apiGroup", "kind", "name")

    api_group: str | None = tag(1)
    """API group of the role."""
    kind: str | None = tag(2)
    """``Role`` or ``ClusterRole``."""
    name: str | None = tag(3)
    """Name of the role."""


class RoleBinding(TypeMeta):
    """Grants the permissions of a Role or ClusterRole to subjects within one namespace."""

    kinds = (Served(GROUP, "v1", "rolebindings", True),)

    required_fields = ("roleRef",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    subjects: list[Subject] | None = tag(2, "omitempty")
    """The subjects the role applies to."""
    role_ref: RoleRef | None = tag(3)
    """The Role in this namespace or the ClusterRole granted. Cannot be updated."""


class ClusterRoleBinding(TypeMeta):
    """Grants the permissions of a ClusterRole to subjects cluster-wide."""

    kinds = (Served(GROUP, "v1", "clusterrolebindings", False),)

    required_fields = ("roleRef",)

    metadata: ObjectMeta | None = tag(1, "omitempty")
    """Standard object metadata."""
    subjects: list[Subject] | None = tag(2, "omitempty")
    """The subjects the role applies to."""
    role_ref: RoleRef | None = tag(3)
    """The ClusterRole granted. Cannot be updated."""

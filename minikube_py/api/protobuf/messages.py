"""Every described message, and which top-level message decodes each ``(apiVersion, kind)``.

The kinds are every one real kubectl (>= 1.32) writes as protobuf: each ``kubectl create <kind>``
generator, ``auth can-i`` (SelfSubjectAccessReview; ``--list``: SelfSubjectRulesReview), ``auth whoami``
(SelfSubjectReview, in all three versions) and ``create token`` (TokenRequest). A few relatives cost
nothing more and serve other protobuf clients: SubjectAccessReview, LocalSubjectAccessReview,
TokenReview and Eviction (kubectl's drain still sends JSON), and what client-go's typed clients send
to subresources: Binding (a scheduler), Scale (``UpdateScale``).

``DeleteOptions`` is not here: upstream decodes it in any group version (an unversioned kind of its
option scheme), so DELETE bodies look it up by kind (``apiserver/endpoints/body.py``).
"""

from __future__ import annotations

from minikube_py.api.protobuf import (
    messages_auth,
    messages_container,
    messages_core,
    messages_meta,
    messages_misc,
    messages_pod,
    messages_volume,
    messages_workloads,
)
from minikube_py.api.protobuf.schema import Message, build_registry

REGISTRY: dict[str, Message] = build_registry(
    module.SCHEMA
    for module in (
        messages_meta,
        messages_core,
        messages_pod,
        messages_container,
        messages_volume,
        messages_workloads,
        messages_auth,
        messages_misc,
    )
)

_AUTHZ = "authorization.k8s.io/v1"
_AUTHN = "authentication.k8s.io/v1"
_RBAC = "rbac.authorization.k8s.io/v1"

MESSAGES: dict[tuple[str, str], str] = {
    ("v1", "Namespace"): "Namespace",
    ("v1", "ConfigMap"): "ConfigMap",
    ("v1", "Secret"): "Secret",
    ("v1", "ServiceAccount"): "ServiceAccount",
    ("v1", "Service"): "Service",
    ("v1", "ResourceQuota"): "ResourceQuota",
    ("apps/v1", "Deployment"): "Deployment",
    ("batch/v1", "Job"): "Job",
    ("batch/v1", "CronJob"): "CronJob",
    (_AUTHZ, "SelfSubjectAccessReview"): "SelfSubjectAccessReview",
    (_AUTHZ, "SelfSubjectRulesReview"): "SelfSubjectRulesReview",
    (_AUTHZ, "SubjectAccessReview"): "SubjectAccessReview",
    (_AUTHZ, "LocalSubjectAccessReview"): "LocalSubjectAccessReview",
    (_AUTHN, "SelfSubjectReview"): "SelfSubjectReview",
    ("authentication.k8s.io/v1beta1", "SelfSubjectReview"): "SelfSubjectReview",  # same fields
    ("authentication.k8s.io/v1alpha1", "SelfSubjectReview"): "SelfSubjectReview",
    (_AUTHN, "TokenRequest"): "TokenRequest",
    (_AUTHN, "TokenReview"): "TokenReview",
    (_RBAC, "Role"): "Role",
    (_RBAC, "ClusterRole"): "ClusterRole",
    (_RBAC, "RoleBinding"): "RoleBinding",
    (_RBAC, "ClusterRoleBinding"): "ClusterRoleBinding",
    ("policy/v1", "PodDisruptionBudget"): "PodDisruptionBudget",
    ("policy/v1", "Eviction"): "Eviction",
    ("policy/v1beta1", "Eviction"): "Eviction",  # same fields; upstream's eviction takes both
    ("v1", "Binding"): "Binding",
    ("autoscaling/v1", "Scale"): "Scale",
    ("scheduling.k8s.io/v1", "PriorityClass"): "PriorityClass",
    ("networking.k8s.io/v1", "Ingress"): "Ingress",
}

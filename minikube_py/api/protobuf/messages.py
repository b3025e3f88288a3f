"""Every described message, and which top-level message decodes each ``(apiVersion, kind)``.

The messages are derived from the models' field tags (``from_models.py``, notation in
``minikube_py/api/models/tags.py``): ``REGISTRY`` is every message reachable from the kinds below.

The kinds are every one real kubectl (>= 1.32) writes as protobuf: each ``kubectl create <kind>``
generator, ``auth can-i`` (SelfSubjectAccessReview; ``--list``: SelfSubjectRulesReview), ``auth whoami``
(SelfSubjectReview, in all three versions) and ``create token`` (TokenRequest). A few relatives cost
nothing more and serve other protobuf clients: SubjectAccessReview, LocalSubjectAccessReview,
TokenReview and Eviction (kubectl's drain still sends JSON), what client-go's typed clients send
to subresources: Binding (a scheduler), Scale (``UpdateScale``), and the Pods and workloads of
client-go's typed ``Create`` (ReplicaSet, DaemonSet, StatefulSet). A kind whose model is
fully tagged must be listed here (the guard test ``tests/api/test_field_tags.py`` checks both ways).

``DeleteOptions`` is not a kind here: upstream decodes it in any group version (an unversioned kind
of its option scheme), so DELETE bodies look it up by name (``apiserver/endpoints/body.py``).
"""

from __future__ import annotations

from minikube_py.api.models import (
    apps_deployment,
    apps_sets,
    authentication,
    authorization,
    autoscaling,
    batch,
    core_objects,
    core_pod,
    core_service,
    meta,
    networking,
    policy,
    rbac,
    scheduling,
)
from minikube_py.api.models.base import K8sModel
from minikube_py.api.protobuf.from_models import build_registry_from_models, message_name
from minikube_py.api.protobuf.schema import Message

_AUTHZ = "authorization.k8s.io/v1"
_AUTHN = "authentication.k8s.io/v1"
_RBAC = "rbac.authorization.k8s.io/v1"

DECODABLE: dict[tuple[str, str], type[K8sModel]] = {
    ("v1", "Namespace"): core_objects.Namespace,
    ("v1", "ConfigMap"): core_objects.ConfigMap,
    ("v1", "Secret"): core_objects.Secret,
    ("v1", "ServiceAccount"): core_objects.ServiceAccount,
    ("v1", "Service"): core_service.Service,
    ("v1", "ResourceQuota"): core_objects.ResourceQuota,
    ("v1", "Pod"): core_pod.Pod,
    ("apps/v1", "Deployment"): apps_deployment.Deployment,
    ("apps/v1", "ReplicaSet"): apps_deployment.ReplicaSet,
    ("apps/v1", "DaemonSet"): apps_sets.DaemonSet,
    ("apps/v1", "StatefulSet"): apps_sets.StatefulSet,
    ("batch/v1", "Job"): batch.Job,
    ("batch/v1", "CronJob"): batch.CronJob,
    (_AUTHZ, "SelfSubjectAccessReview"): authorization.SelfSubjectAccessReview,
    (_AUTHZ, "SelfSubjectRulesReview"): authorization.SelfSubjectRulesReview,
    (_AUTHZ, "SubjectAccessReview"): authorization.SubjectAccessReview,
    (_AUTHZ, "LocalSubjectAccessReview"): authorization.LocalSubjectAccessReview,
    (_AUTHN, "SelfSubjectReview"): authentication.SelfSubjectReview,
    ("authentication.k8s.io/v1beta1", "SelfSubjectReview"): authentication.SelfSubjectReview,  # same fields
    ("authentication.k8s.io/v1alpha1", "SelfSubjectReview"): authentication.SelfSubjectReview,
    (_AUTHN, "TokenRequest"): authentication.TokenRequest,
    (_AUTHN, "TokenReview"): authentication.TokenReview,
    (_RBAC, "Role"): rbac.Role,
    (_RBAC, "ClusterRole"): rbac.ClusterRole,
    (_RBAC, "RoleBinding"): rbac.RoleBinding,
    (_RBAC, "ClusterRoleBinding"): rbac.ClusterRoleBinding,
    ("policy/v1", "PodDisruptionBudget"): policy.PodDisruptionBudget,
    ("policy/v1", "Eviction"): policy.Eviction,
    ("policy/v1beta1", "Eviction"): policy.Eviction,  # same fields; upstream's eviction takes both
    ("v1", "Binding"): core_pod.Binding,
    ("autoscaling/v1", "Scale"): autoscaling.Scale,
    ("scheduling.k8s.io/v1", "PriorityClass"): scheduling.PriorityClass,
    ("networking.k8s.io/v1", "Ingress"): networking.Ingress,
}
"""The model whose message decodes each ``(apiVersion, kind)``."""

REGISTRY: dict[str, Message] = build_registry_from_models([*DECODABLE.values(), meta.DeleteOptions])

MESSAGES: dict[tuple[str, str], str] = {key: message_name(model) for key, model in DECODABLE.items()}
"""The top-level message name of each decodable ``(apiVersion, kind)``."""

"""``MODELS``: the model of every built-in kind, by (apiVersion, kind)."""

from __future__ import annotations

from minikube_py.api.models import (
    admissionregistration,
    apps_deployment,
    apps_sets,
    authentication,
    authorization,
    autoscaling,
    batch,
    coordination,
    core_claim,
    core_node,
    core_objects,
    core_pod,
    core_service,
    discovery,
    events,
    meta,
    metrics,
    policy,
    rbac,
    scheduling,
)
from minikube_py.api.models.base import K8sModel

MODELS: dict[tuple[str, str], type[K8sModel]] = {
    ("v1", "Namespace"): core_objects.Namespace,
    ("v1", "ConfigMap"): core_objects.ConfigMap,
    ("v1", "Secret"): core_objects.Secret,
    ("v1", "ServiceAccount"): core_objects.ServiceAccount,
    ("v1", "Event"): core_objects.Event,
    ("v1", "LimitRange"): core_objects.LimitRange,
    ("v1", "ResourceQuota"): core_objects.ResourceQuota,
    ("v1", "Pod"): core_pod.Pod,
    ("v1", "Binding"): core_pod.Binding,
    ("v1", "Node"): core_node.Node,
    ("v1", "Service"): core_service.Service,
    ("v1", "Endpoints"): core_service.Endpoints,
    ("v1", "PersistentVolumeClaim"): core_claim.PersistentVolumeClaim,
    ("v1", "Status"): meta.Status,
    ("meta.k8s.io/v1", "DeleteOptions"): meta.DeleteOptions,
    ("apps/v1", "Deployment"): apps_deployment.Deployment,
    ("apps/v1", "ReplicaSet"): apps_deployment.ReplicaSet,
    ("apps/v1", "DaemonSet"): apps_sets.DaemonSet,
    ("apps/v1", "StatefulSet"): apps_sets.StatefulSet,
    ("batch/v1", "Job"): batch.Job,
    ("batch/v1", "CronJob"): batch.CronJob,
    ("coordination.k8s.io/v1", "Lease"): coordination.Lease,
    ("discovery.k8s.io/v1", "EndpointSlice"): discovery.EndpointSlice,
    ("events.k8s.io/v1", "Event"): events.Event,
    ("scheduling.k8s.io/v1", "PriorityClass"): scheduling.PriorityClass,
    ("rbac.authorization.k8s.io/v1", "Role"): rbac.Role,
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): rbac.ClusterRole,
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): rbac.RoleBinding,
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): rbac.ClusterRoleBinding,
    ("policy/v1", "Eviction"): policy.Eviction,
    ("metrics.k8s.io/v1beta1", "NodeMetrics"): metrics.NodeMetrics,
    ("metrics.k8s.io/v1beta1", "PodMetrics"): metrics.PodMetrics,
    ("autoscaling/v1", "Scale"): autoscaling.Scale,
    ("authentication.k8s.io/v1", "TokenReview"): authentication.TokenReview,
    ("authentication.k8s.io/v1", "SelfSubjectReview"): authentication.SelfSubjectReview,
    ("authentication.k8s.io/v1beta1", "SelfSubjectReview"): authentication.SelfSubjectReview,
    ("authentication.k8s.io/v1", "TokenRequest"): authentication.TokenRequest,
    ("authorization.k8s.io/v1", "SubjectAccessReview"): authorization.SubjectAccessReview,
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): authorization.SelfSubjectAccessReview,
    ("authorization.k8s.io/v1", "LocalSubjectAccessReview"): authorization.LocalSubjectAccessReview,
    ("authorization.k8s.io/v1", "SelfSubjectRulesReview"): authorization.SelfSubjectRulesReview,
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"): (
        admissionregistration.MutatingWebhookConfiguration
    ),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"): (
        admissionregistration.ValidatingWebhookConfiguration
    ),
}


def model_for(api_version: str, kind: str) -> type[K8sModel] | None:
    """The model of ``kind`` in ``api_version``, or None for kinds without one."""
    return MODELS.get((api_version, kind))


def group_version_kinds(model: type[K8sModel]) -> list[tuple[str, str, str]]:
    """Every (group, version, kind) ``model`` is registered under."""
    out = []
    for (api_version, kind), registered in MODELS.items():
        if registered is model:
            group, _, version = api_version.rpartition("/")
            out.append((group, version, kind))
    return out

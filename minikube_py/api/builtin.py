"""The built-in resource types, with upstream's names, scopes, short names, categories,
verbs and subresources (as ``kubectl api-resources`` shows them on a real cluster)."""

from __future__ import annotations

from minikube_py.api.scheme import ResourceType, Scheme, Subresource

NO_COLLECTION = ("create", "delete", "get", "list", "patch", "update", "watch")
STATUS = Subresource("status", "", ("get", "patch", "update"))
SCALE = Subresource("scale", "Scale", ("get", "patch", "update"), "autoscaling", "v1")
_all = ("all",)

CORE = [
    ResourceType(
        "",
        "v1",
        "Namespace",
        "namespaces",
        False,
        ("ns",),
        (),
        NO_COLLECTION,
        (Subresource("finalize", "", ("update",)), STATUS),
    ),
    ResourceType("", "v1", "ConfigMap", "configmaps", True, ("cm",)),
    ResourceType("", "v1", "Secret", "secrets", True),
    ResourceType(
        "",
        "v1",
        "ServiceAccount",
        "serviceaccounts",
        True,
        ("sa",),
        subresources=(Subresource("token", "TokenRequest", ("create",), "authentication.k8s.io", "v1"),),
    ),
    ResourceType(
        "",
        "v1",
        "Pod",
        "pods",
        True,
        ("po",),
        _all,
        subresources=(
            STATUS,
            Subresource("binding", "Binding", ("create",)),
            Subresource("eviction", "Eviction", ("create",), "policy", "v1"),
            Subresource("log", "Pod", ("get",)),
            Subresource("exec", "PodExecOptions", ("create", "get")),
            Subresource("attach", "PodAttachOptions", ("create", "get")),
            Subresource("portforward", "PodPortForwardOptions", ("create", "get")),
            Subresource("ephemeralcontainers", "Pod", ("get", "patch", "update")),
        ),
    ),
    ResourceType("", "v1", "Node", "nodes", False, ("no",), subresources=(STATUS,)),
    ResourceType("", "v1", "Service", "services", True, ("svc",), _all, subresources=(STATUS,)),
    ResourceType("", "v1", "Endpoints", "endpoints", True, ("ep",), singular="endpoints"),
    ResourceType("", "v1", "Event", "events", True, ("ev",)),
    ResourceType("", "v1", "LimitRange", "limitranges", True, ("limits",)),
    ResourceType("", "v1", "ResourceQuota", "resourcequotas", True, ("quota",), subresources=(STATUS,)),
]

GROUPS = [
    ResourceType(
        "apps", "v1", "Deployment", "deployments", True, ("deploy",), _all, subresources=(STATUS, SCALE)
    ),
    ResourceType(
        "apps", "v1", "ReplicaSet", "replicasets", True, ("rs",), _all, subresources=(STATUS, SCALE)
    ),
    ResourceType("apps", "v1", "DaemonSet", "daemonsets", True, ("ds",), _all, subresources=(STATUS,)),
    ResourceType(
        "apps", "v1", "StatefulSet", "statefulsets", True, ("sts",), _all, subresources=(STATUS, SCALE)
    ),
    ResourceType("batch", "v1", "Job", "jobs", True, (), _all, subresources=(STATUS,)),
    ResourceType("coordination.k8s.io", "v1", "Lease", "leases", True),
    ResourceType("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", True),
    ResourceType("events.k8s.io", "v1", "Event", "events", True, ("ev",)),
    ResourceType("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", False, ("pc",)),
    ResourceType("rbac.authorization.k8s.io", "v1", "Role", "roles", True),
    ResourceType("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", True),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False),
    ResourceType("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False),
    # authentication.k8s.io: create-only reviews, stored nowhere (apiserver/registry/reviews.py)
    ResourceType("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", False, verbs=("create",)),
    ResourceType(
        "authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", False, verbs=("create",)
    ),
    ResourceType(
        "authentication.k8s.io",
        "v1beta1",
        "SelfSubjectReview",
        "selfsubjectreviews",
        False,
        verbs=("create",),
    ),
    # authorization.k8s.io: create-only access reviews, stored nowhere (apiserver/registry/reviews.py)
    *(
        ResourceType(
            "authorization.k8s.io",
            "v1",
            kind,
            kind.lower() + "s",
            kind.startswith("Local"),
            verbs=("create",),
        )
        for kind in (
            "SubjectAccessReview",
            "SelfSubjectAccessReview",
            "LocalSubjectAccessReview",
            "SelfSubjectRulesReview",
        )
    ),
    # metrics.k8s.io: read-only usage, computed from the node agents on every request and stored
    # nowhere (apiserver/endpoints/metrics.py; upstream: metrics-server behind the aggregator)
    ResourceType("metrics.k8s.io", "v1beta1", "NodeMetrics", "nodes", False, verbs=("get", "list")),
    ResourceType("metrics.k8s.io", "v1beta1", "PodMetrics", "pods", True, verbs=("get", "list")),
    ResourceType(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        False,
        categories=("api-extensions",),
    ),
    ResourceType(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        False,
        categories=("api-extensions",),
    ),
]


def builtin_scheme() -> Scheme:
    return Scheme(CORE + GROUPS)

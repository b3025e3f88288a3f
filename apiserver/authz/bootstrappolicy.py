"""Upstream's bootstrap RBAC policy (``plugin/pkg/auth/authorizer/rbac/bootstrappolicy``):
the default ClusterRoles and ClusterRoleBindings every cluster starts with, for the kinds this
cluster serves (rules for resources it does not serve are kept, as upstream's)."""

from __future__ import annotations

from minikube_py.api.unstructured import Object

READ = ("get", "list", "watch")
WRITE = ("create", "delete", "deletecollection", "patch", "update")
READ_WRITE = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
BOOTSTRAP_LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-"
RBAC = "rbac.authorization.k8s.io"


def rule(
    verbs: tuple[str, ...] | str,
    groups: tuple[str, ...] | str = (),
    resources: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
    urls: tuple[str, ...] = (),
) -> Object:
    verbs = (verbs,) if isinstance(verbs, str) else verbs
    groups = (groups,) if isinstance(groups, str) else groups
    out: Object = {"verbs": list(verbs)}
    if urls:
        out["nonResourceURLs"] = list(urls)
    else:
        out["apiGroups"], out["resources"] = list(groups), list(resources)
    if names:
        out["resourceNames"] = list(names)
    return out


def events_rule() -> Object:
    return rule(("create", "update", "patch"), ("", "events.k8s.io"), ("events",))


NODE_RULES = [
    rule("create", "authentication.k8s.io", ("tokenreviews",)),
    rule("create", "authorization.k8s.io", ("subjectaccessreviews", "localsubjectaccessreviews")),
    rule(READ, "", ("services",)),
    rule(("create", "get", "list", "watch"), "", ("nodes",)),
    rule(("update", "patch"), "", ("nodes/status",)),
    rule(("update", "patch"), "", ("nodes",)),
    rule(("create", "update", "patch"), "", ("events",)),
    rule(READ, "", ("pods",)),
    rule(("create", "delete"), "", ("pods",)),
    rule(("update", "patch"), "", ("pods/status",)),
    rule("create", "", ("pods/eviction",)),
    rule("get", "", ("secrets", "configmaps")),
    rule("get", "", ("persistentvolumeclaims", "persistentvolumes")),
    rule("get", "", ("endpoints",)),
    rule(("create", "get", "list", "watch"), "certificates.k8s.io", ("certificatesigningrequests",)),
    rule(("get", "create", "update", "patch", "delete"), "coordination.k8s.io", ("leases",)),
    rule("get", "storage.k8s.io", ("volumeattachments",)),
    rule(("get", "update", "patch"), "", ("persistentvolumeclaims/status",)),
    rule("create", "", ("serviceaccounts/token",)),
    rule(READ, "storage.k8s.io", ("csidrivers",)),
    rule(("get", "create", "update", "patch", "delete"), "storage.k8s.io", ("csinodes",)),
    rule(READ, "node.k8s.io", ("runtimeclasses",)),
]

SCHEDULER_RULES = [
    events_rule(),
    rule("create", "coordination.k8s.io", ("leases",)),
    rule(("get", "update"), "coordination.k8s.io", ("leases",), ("kube-scheduler",)),
    rule("create", "", ("endpoints",)),
    rule(("get", "update"), "", ("endpoints",), ("kube-scheduler",)),
    rule(READ, "", ("nodes",)),
    rule(("get", "list", "watch", "delete"), "", ("pods",)),  # delete: preemption
    rule("create", "", ("pods/binding", "bindings")),
    rule(("patch", "update"), "", ("pods/status",)),
    rule(READ, "", ("replicationcontrollers", "services")),
    rule(READ, ("apps", "extensions"), ("replicasets",)),
    rule(READ, "apps", ("statefulsets",)),
    rule(READ, "policy", ("poddisruptionbudgets",)),
    rule(("get", "list", "watch", "update"), "", ("persistentvolumeclaims", "persistentvolumes")),
    # upstream's system:volume-scheduler, bound to the scheduler
    rule(("patch",), "", ("persistentvolumeclaims", "persistentvolumes")),
    rule(READ, "storage.k8s.io", ("storageclasses",)),
    rule("create", "authentication.k8s.io", ("tokenreviews",)),
    rule("create", "authorization.k8s.io", ("subjectaccessreviews",)),
    rule(READ, "storage.k8s.io", ("csinodes",)),
    rule(READ, "", ("namespaces",)),
    rule(READ, "storage.k8s.io", ("csidrivers", "csistoragecapacities")),
]

CONTROLLER_MANAGER_RULES = [
    events_rule(),
    rule("create", "coordination.k8s.io", ("leases",)),
    rule(("get", "update"), "coordination.k8s.io", ("leases",), ("kube-controller-manager",)),
    rule("create", "", ("secrets", "serviceaccounts")),
    rule("delete", "", ("secrets",)),
    rule("get", "", ("namespaces", "secrets", "serviceaccounts", "configmaps")),
    rule("update", "", ("secrets", "serviceaccounts")),
    rule("create", "authentication.k8s.io", ("tokenreviews",)),
    rule("create", "authorization.k8s.io", ("subjectaccessreviews",)),
    rule(("list", "watch"), "*", ("*",)),
    rule("create", "", ("serviceaccounts/token",)),
]

VIEW_RULES = [
    rule(
        READ,
        "",
        (
            "pods",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/status",
            "endpoints",
            "persistentvolumeclaims",
            "persistentvolumeclaims/status",
            "configmaps",
        ),
    ),
    rule(
        READ,
        "",
        (
            "limitranges",
            "resourcequotas",
            "bindings",
            "events",
            "pods/status",
            "resourcequotas/status",
            "namespaces/status",
            "replicationcontrollers/status",
            "pods/log",
        ),
    ),
    rule(READ, "", ("namespaces",)),
    rule(READ, "discovery.k8s.io", ("endpointslices",)),
    rule(
        READ,
        "apps",
        (
            "controllerrevisions",
            "statefulsets",
            "statefulsets/status",
            "statefulsets/scale",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/status",
            "deployments/scale",
            "replicasets",
            "replicasets/status",
            "replicasets/scale",
        ),
    ),
    rule(READ, "autoscaling", ("horizontalpodautoscalers", "horizontalpodautoscalers/status")),
    rule(READ, "batch", ("jobs", "cronjobs", "cronjobs/status", "jobs/status")),
    rule(
        READ,
        "extensions",
        (
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "ingresses",
            "ingresses/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "replicationcontrollers/scale",
            "networkpolicies",
        ),
    ),
    rule(READ, "policy", ("poddisruptionbudgets", "poddisruptionbudgets/status")),
    rule(READ, "networking.k8s.io", ("networkpolicies", "ingresses", "ingresses/status")),
]

EDIT_RULES = [
    rule(
        READ, "", ("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy")
    ),
    rule("impersonate", "", ("serviceaccounts",)),
    rule(WRITE, "", ("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward")),
    rule("create", "", ("pods/eviction",)),
    rule(("patch", "update"), "", ("pods/ephemeralcontainers",)),
    rule(
        WRITE,
        "",
        (
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/proxy",
            "persistentvolumeclaims",
            "configmaps",
            "secrets",
            "events",
        ),
    ),
    rule("create", "", ("serviceaccounts/token",)),
    rule(
        WRITE,
        "apps",
        (
            "statefulsets",
            "statefulsets/scale",
            "daemonsets",
            "deployments",
            "deployments/scale",
            "deployments/rollback",
            "replicasets",
            "replicasets/scale",
        ),
    ),
    rule(WRITE, "autoscaling", ("horizontalpodautoscalers",)),
    rule(WRITE, "batch", ("jobs", "cronjobs")),
    rule(
        WRITE,
        "extensions",
        (
            "daemonsets",
            "deployments",
            "deployments/scale",
            "deployments/rollback",
            "ingresses",
            "replicasets",
            "replicasets/scale",
            "replicationcontrollers/scale",
            "networkpolicies",
        ),
    ),
    rule(WRITE, "policy", ("poddisruptionbudgets",)),
    rule(WRITE, "networking.k8s.io", ("networkpolicies", "ingresses")),
    rule(WRITE, "coordination.k8s.io", ("leases",)),
]

ADMIN_RULES = [
    rule("create", "authorization.k8s.io", ("localsubjectaccessreviews",)),
    rule(READ_WRITE, RBAC, ("roles", "rolebindings")),
]


def _selector(target: str) -> Object:
    return {"clusterRoleSelectors": [{"matchLabels": {AGGREGATE + target: "true"}}]}


def role(
    name: str, rules: list[Object] | None = None, *, aggregate_from: str = "", aggregate_to: str = ""
) -> Object:
    labels = dict(BOOTSTRAP_LABELS)
    if aggregate_to:
        labels[AGGREGATE + aggregate_to] = "true"
    out: Object = {
        "apiVersion": f"{RBAC}/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name, "labels": labels, "annotations": {AUTOUPDATE: "true"}},
    }
    if aggregate_from:
        out["aggregationRule"] = _selector(aggregate_from)
    else:
        out["rules"] = rules or []
    return out


def metrics_reader() -> Object:
    """metrics-server's ``system:aggregated-metrics-reader``, aggregated into view, edit and
    admin (here metrics.k8s.io is served by the apiserver itself, so the role is bootstrapped)."""
    reader = role("system:aggregated-metrics-reader", [rule(READ, "metrics.k8s.io", ("pods", "nodes"))])
    for target in ("view", "edit", "admin"):
        reader["metadata"]["labels"][AGGREGATE + target] = "true"
    return reader


def cluster_roles() -> list[Object]:
    return [
        role("cluster-admin", [rule("*", "*", ("*",)), rule("*", urls=("*",))]),
        role(
            "system:discovery",
            [
                rule(
                    "get",
                    urls=(
                        "/livez",
                        "/readyz",
                        "/healthz",
                        "/version",
                        "/version/",
                        "/openapi",
                        "/openapi/*",
                        "/api",
                        "/api/*",
                        "/apis",
                        "/apis/*",
                    ),
                )
            ],
        ),
        role(
            "system:basic-user",
            [
                rule(
                    "create", "authorization.k8s.io", ("selfsubjectaccessreviews", "selfsubjectrulesreviews")
                ),
                rule("create", "authentication.k8s.io", ("selfsubjectreviews",)),
            ],
        ),
        role(
            "system:public-info-viewer",
            [rule("get", urls=("/livez", "/readyz", "/healthz", "/version", "/version/"))],
        ),
        role("admin", aggregate_from="admin"),
        role("edit", aggregate_from="edit", aggregate_to="admin"),
        role("view", aggregate_from="view", aggregate_to="edit"),
        role("system:aggregate-to-admin", ADMIN_RULES, aggregate_to="admin"),
        role("system:aggregate-to-edit", EDIT_RULES, aggregate_to="edit"),
        role("system:aggregate-to-view", VIEW_RULES, aggregate_to="view"),
        metrics_reader(),
        role("system:node", NODE_RULES),
        role(
            "system:node-proxier",
            [
                rule(("list", "watch"), "", ("services", "endpoints")),
                rule(READ, "", ("nodes",)),
                events_rule(),
                rule(("list", "watch"), "discovery.k8s.io", ("endpointslices",)),
            ],
        ),
        # full access to the node agents' API through nodes/proxy and the rest (upstream's role)
        role(
            "system:kubelet-api-admin",
            [
                rule(("get", "list", "watch"), "", ("nodes",)),
                rule("proxy", "", ("nodes",)),
                rule("*", "", ("nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log")),
            ],
        ),
        role("system:kube-scheduler", SCHEDULER_RULES),
        role("system:kube-controller-manager", CONTROLLER_MANAGER_RULES),
    ]


def binding(role_name: str, subjects: list[tuple[str, str]]) -> Object:
    out: Object = {
        "apiVersion": f"{RBAC}/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {
            "name": role_name,
            "labels": dict(BOOTSTRAP_LABELS),
            "annotations": {AUTOUPDATE: "true"},
        },
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role_name},
    }
    if subjects:
        out["subjects"] = [{"apiGroup": RBAC, "kind": kind, "name": name} for kind, name in subjects]
    return out


def cluster_role_bindings() -> list[Object]:
    everyone = [("Group", "system:authenticated"), ("Group", "system:unauthenticated")]
    return [
        binding("cluster-admin", [("Group", "system:masters")]),
        binding("system:discovery", [("Group", "system:authenticated")]),
        binding("system:basic-user", [("Group", "system:authenticated")]),
        binding("system:public-info-viewer", everyone),
        binding("system:node", []),
        binding("system:node-proxier", [("User", "system:kube-proxy")]),
        binding("system:kube-scheduler", [("User", "system:kube-scheduler")]),
        binding("system:kube-controller-manager", [("User", "system:kube-controller-manager")]),
    ]

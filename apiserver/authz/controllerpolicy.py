"""The controllers' own roles (upstream's ``controller_policy.go``): each controller of the
controller-manager acts as the service account ``kube-system/<controller SA>`` (the
controller-manager's ``--use-service-account-credentials``), bound to the ClusterRole
``system:controller:<controller SA>`` with only what that controller writes. Informers read
with the controller-manager's own identity (``list``/``watch`` on everything)."""

from __future__ import annotations

from apiserver.authz.bootstrappolicy import AUTOUPDATE, BOOTSTRAP_LABELS, RBAC, events_rule, rule
from minikube_py.api.unstructured import Object

APPS = "apps"
PREFIX = "system:controller:"

CONTROLLER_RULES: dict[str, list[Object]] = {
    "replicaset-controller": [
        rule(("get", "list", "watch", "update"), APPS, ("replicasets",)),
        rule("update", APPS, ("replicasets/status", "replicasets/finalizers")),
        rule(("list", "watch", "patch", "create", "delete"), "", ("pods",)),
        events_rule(),
    ],
    "deployment-controller": [
        rule(("get", "list", "watch", "update"), APPS, ("deployments",)),
        rule("update", APPS, ("deployments/status", "deployments/finalizers")),
        rule(("get", "list", "watch", "create", "update", "patch", "delete"), APPS, ("replicasets",)),
        rule(("get", "list", "watch", "update"), "", ("pods",)),
        events_rule(),
    ],
    "generic-garbage-collector": [
        rule(("get", "list", "watch", "patch", "update", "delete"), "*", ("*",)),
    ],
    "namespace-controller": [
        rule(("get", "list", "watch", "delete"), "", ("namespaces",)),
        rule("update", "", ("namespaces/finalize", "namespaces/status")),
        rule(("get", "list", "delete", "deletecollection"), "*", ("*",)),
    ],
    "service-account-controller": [
        rule("create", "", ("serviceaccounts",)),
        events_rule(),
    ],
    "root-ca-cert-publisher": [
        rule(("create", "update"), "", ("configmaps",)),
        events_rule(),
    ],
    "node-controller": [
        rule(("get", "list", "update", "delete", "patch"), "", ("nodes",)),
        rule(("patch", "update"), "", ("nodes/status", "pods/status")),
        rule(("list", "delete"), "", ("pods",)),
        events_rule(),
    ],
    "taint-eviction-controller": [
        rule(("patch", "update"), "", ("pods/status",)),
        rule(("list", "get", "delete"), "", ("pods",)),
        events_rule(),
    ],
    # the three endpoints controllers (upstream's roles of the same names)
    "endpoint-controller": [
        rule(("get", "list", "watch"), "", ("services", "pods")),
        rule(("get", "list", "create", "update", "delete"), "", ("endpoints",)),
        rule("create", "", ("endpoints/restricted",)),
        events_rule(),
    ],
    "endpointslice-controller": [
        rule(("get", "list", "watch"), "", ("services", "pods", "nodes")),
        rule("update", "", ("services/finalizers",)),
        rule(("get", "list", "create", "update", "delete"), "discovery.k8s.io", ("endpointslices",)),
        events_rule(),
    ],
    "endpointslicemirroring-controller": [
        rule(("get", "list", "watch"), "", ("services", "endpoints")),
        rule("update", "", ("endpoints/finalizers",)),
        rule(("get", "list", "create", "update", "delete"), "discovery.k8s.io", ("endpointslices",)),
        events_rule(),
    ],
    "horizontal-pod-autoscaler": [
        rule(("get", "list", "watch"), "autoscaling", ("horizontalpodautoscalers",)),
        rule("update", "autoscaling", ("horizontalpodautoscalers/status",)),
        rule(("get", "update"), "*", ("*/scale",)),
        rule("list", "", ("pods",)),
        # resource, custom and external metrics, as upstream grants them
        rule("list", "metrics.k8s.io", ("pods",)),
        rule(("get", "list"), "custom.metrics.k8s.io", ("*",)),
        rule(("get", "list"), "external.metrics.k8s.io", ("*",)),
        events_rule(),
    ],
    "disruption-controller": [
        rule(("get", "list", "watch"), ("extensions", APPS), ("deployments",)),
        rule(("get", "list", "watch"), (APPS, "extensions"), ("replicasets",)),
        rule(("get", "list", "watch"), "", ("replicationcontrollers",)),
        rule(("get", "list", "watch"), "policy", ("poddisruptionbudgets",)),
        rule(("get", "list", "watch"), APPS, ("statefulsets",)),
        rule("update", "policy", ("poddisruptionbudgets/status",)),
        rule(("patch", "update"), "", ("pods/status",)),
        rule("get", "*", ("*/scale",)),
        events_rule(),
    ],
    "job-controller": [
        rule(("get", "list", "watch", "update", "patch"), "batch", ("jobs",)),
        rule("update", "batch", ("jobs/status", "jobs/finalizers")),
        rule(("list", "watch", "create", "delete", "patch"), "", ("pods",)),
        events_rule(),
    ],
    "ttl-after-finished-controller": [
        rule(("get", "list", "watch", "delete"), "batch", ("jobs",)),
        events_rule(),
    ],
    "cronjob-controller": [
        rule(("get", "list", "watch", "update"), "batch", ("cronjobs",)),
        rule(("get", "list", "watch", "create", "update", "delete", "patch"), "batch", ("jobs",)),
        rule("update", "batch", ("cronjobs/status",)),
        rule("update", "batch", ("cronjobs/finalizers",)),
        rule(("list", "delete"), "", ("pods",)),
        events_rule(),
    ],
    "replication-controller": [
        rule(("get", "list", "watch", "update"), "", ("replicationcontrollers",)),
        rule("update", "", ("replicationcontrollers/status",)),
        rule("update", "", ("replicationcontrollers/finalizers",)),
        rule(("list", "watch", "patch", "create", "delete"), "", ("pods",)),
        events_rule(),
    ],
    # the volume controllers (upstream's persistent-volume-binder and protection roles)
    "persistent-volume-binder": [
        rule(("get", "list", "watch", "update", "create", "delete"), "", ("persistentvolumes",)),
        rule("update", "", ("persistentvolumes/status",)),
        rule(("get", "list", "watch", "update"), "", ("persistentvolumeclaims",)),
        rule("update", "", ("persistentvolumeclaims/status",)),
        rule(("list", "watch", "get", "create", "delete"), "", ("pods",)),
        rule(("get", "list", "watch"), "storage.k8s.io", ("storageclasses",)),
        rule(("get", "create", "delete"), "", ("endpoints", "services")),
        rule("get", "", ("secrets",)),
        rule(("get", "list"), "", ("nodes",)),
        events_rule(),
    ],
    "pvc-protection-controller": [
        rule(("get", "list", "watch", "update"), "", ("persistentvolumeclaims",)),
        rule(("get", "list", "watch"), "", ("pods",)),
        events_rule(),
    ],
    "pv-protection-controller": [
        rule(("get", "list", "watch", "update"), "", ("persistentvolumes",)),
        events_rule(),
    ],
    # minikube-py's local-path provisioner (rancher local-path-provisioner's role, plus
    # creating the default class it serves)
    "local-path-provisioner": [
        rule(("get", "list", "watch"), "", ("nodes",)),
        rule(("get", "list", "watch", "create", "patch", "update", "delete"), "", ("persistentvolumes",)),
        rule(("get", "list", "watch", "update"), "", ("persistentvolumeclaims",)),
        rule(("get", "list", "watch", "create"), "storage.k8s.io", ("storageclasses",)),
        events_rule(),
    ],
    "statefulset-controller": [
        rule(("list", "watch"), "", ("pods",)),
        rule(("get", "list", "watch"), APPS, ("statefulsets",)),
        rule("update", APPS, ("statefulsets/status", "statefulsets/finalizers")),
        rule(("get", "create", "delete", "update", "patch"), "", ("pods",)),
        rule(("get", "create", "delete", "update", "patch", "list", "watch"), APPS, ("controllerrevisions",)),
        rule(("get", "create", "update", "delete"), "", ("persistentvolumeclaims",)),
        events_rule(),
    ],
    "daemon-set-controller": [
        rule(("get", "list", "watch"), ("extensions", APPS), ("daemonsets",)),
        rule("update", ("extensions", APPS), ("daemonsets/status",)),
        rule("update", ("extensions", APPS), ("daemonsets/finalizers",)),
        rule(("list", "watch"), "", ("nodes",)),
        rule(("list", "watch", "create", "delete", "patch"), "", ("pods",)),
        rule("create", "", ("pods/binding",)),
        rule(("get", "list", "watch", "create", "delete", "update", "patch"), APPS, ("controllerrevisions",)),
        events_rule(),
    ],
}


def controller_roles() -> list[Object]:
    return [
        {
            "apiVersion": f"{RBAC}/v1",
            "kind": "ClusterRole",
            "metadata": {
                "name": PREFIX + name,
                "labels": dict(BOOTSTRAP_LABELS),
                "annotations": {AUTOUPDATE: "true"},
            },
            "rules": rules,
        }
        for name, rules in CONTROLLER_RULES.items()
    ]


def controller_role_bindings() -> list[Object]:
    return [
        {
            "apiVersion": f"{RBAC}/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {
                "name": PREFIX + name,
                "labels": dict(BOOTSTRAP_LABELS),
                "annotations": {AUTOUPDATE: "true"},
            },
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": PREFIX + name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": "kube-system"}],
        }
        for name in CONTROLLER_RULES
    ]

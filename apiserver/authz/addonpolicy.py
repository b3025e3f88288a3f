"""The roles of the cluster's networking add-ons, which upstream's clusters get from their
add-on manifests (kubeadm's CoreDNS, ingress-nginx's chart) or a cloud controller, bootstrapped
here beside upstream's policy (``bootstrappolicy``) because ``up`` runs the add-ons itself:
the service proxy's LoadBalancer status, the cluster DNS server, the ingress controller."""

from __future__ import annotations

from apiserver.authz.bootstrappolicy import READ, binding, events_rule, role, rule
from minikube_py.api.unstructured import Object

# ours: the service proxy writes LoadBalancer ingress (upstream: the cloud controller)
SERVICE_LB_ROLE = "minikube-py:service-load-balancer"

# The built-in ingress controller (``nodeagent.ingress``): ingress-nginx's ClusterRole for what
# it reads and writes, plus create on ingressclasses: it ensures its own class (ingress-nginx's
# chart creates it instead).
INGRESS_CONTROLLER_RULES = [
    rule(("list", "watch"), "", ("configmaps", "endpoints", "nodes", "pods", "secrets", "namespaces")),
    rule(READ, "", ("services",)),
    rule(READ, "networking.k8s.io", ("ingresses",)),
    rule("update", "networking.k8s.io", ("ingresses/status",)),
    rule(("get", "list", "watch", "create"), "networking.k8s.io", ("ingressclasses",)),
    rule(READ, "discovery.k8s.io", ("endpointslices",)),
    events_rule(),
]


def addon_roles() -> list[Object]:
    return [
        role(SERVICE_LB_ROLE, [rule(("get", "patch", "update"), "", ("services/status",))]),
        role("system:ingress-controller", INGRESS_CONTROLLER_RULES),
        *kube_dns_roles(),
    ]


def kube_dns_roles() -> list[Object]:
    """kubeadm's ``system:coredns`` (what CoreDNS reads), and what our DNS component also does
    that upstream's addon manager does for CoreDNS: write the ``kube-dns`` Service and its
    Endpoints (``create`` cannot be limited to a name: RBAC sees no name on a create)."""
    return [
        role(
            "system:coredns",
            [
                rule(("list", "watch"), "", ("endpoints", "services", "pods", "namespaces")),
                rule(("list", "watch"), "discovery.k8s.io", ("endpointslices",)),
            ],
        ),
        role(
            "system:minikube-py:kube-dns",
            [
                rule("get", "", ("services",), names=("kubernetes", "kube-dns")),
                rule(("get", "update", "patch"), "", ("services", "endpoints"), names=("kube-dns",)),
                rule("create", "", ("services", "endpoints")),
            ],
        ),
    ]


def addon_role_bindings() -> list[Object]:
    return [
        binding(SERVICE_LB_ROLE, [("User", "system:kube-proxy")]),
        binding("system:coredns", [("User", "system:kube-dns")]),
        binding("system:minikube-py:kube-dns", [("User", "system:kube-dns")]),
        binding("system:ingress-controller", [("User", "system:ingress-controller")]),
    ]

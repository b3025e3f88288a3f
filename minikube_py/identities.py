"""Component identities (ARCHITECTURE §1: one kubeconfig per component identity): client
certificates from the cluster CA with upstream's user and group names, and their kubeconfigs
in the data dir. Node identities are minted on demand (``ensure_node_identity``)."""

from __future__ import annotations

from pathlib import Path

from minikube_py.kubeconfig import write_client_kubeconfig
from minikube_py.pki import ClusterPKI, ensure_client_certificate

CONTROLLER_MANAGER = ("controller-manager", "system:kube-controller-manager", ())
SCHEDULER = ("scheduler", "system:kube-scheduler", ())
# the cluster DNS server (``minikube-py dns``), bound to kubeadm's ``system:coredns`` role
KUBE_DNS = ("kube-dns", "system:kube-dns", ())
NODE_GROUP = "system:nodes"
NODE_USER_PREFIX = "system:node:"


def node_user(node_name: str) -> str:
    return NODE_USER_PREFIX + node_name


def ensure_identity(
    data_dir: Path, pki: ClusterPKI, name: str, user: str, groups: tuple[str, ...], server: str
) -> Path:
    """``pki/<name>.crt``/``.key`` for ``user`` in ``groups`` and ``<name>.kubeconfig``
    reaching ``server`` with them; returns the kubeconfig path."""
    pair = ensure_client_certificate(pki, name, user=user, groups=groups)
    path = data_dir / f"{name}.kubeconfig"
    write_client_kubeconfig(path, server=server, ca_cert=pki.ca.cert, client=pair, user=user)
    return path


def ensure_component_identities(data_dir: Path, pki: ClusterPKI, server: str) -> dict[str, Path]:
    """The controller-manager's and scheduler's kubeconfigs, by component name."""
    return {
        name: ensure_identity(data_dir, pki, name, user, groups, server)
        for name, user, groups in (CONTROLLER_MANAGER, SCHEDULER)
    }


def ensure_node_identity(data_dir: Path, pki: ClusterPKI, node_name: str, server: str) -> Path:
    """``system:node:<name>`` in ``system:nodes`` (what the Node authorizer expects)."""
    return ensure_identity(data_dir, pki, f"node-{node_name}", node_user(node_name), (NODE_GROUP,), server)


FAKE_NODES_USER = "minikube-py:fake-nodes"


def ensure_fake_nodes_identity(data_dir: Path, pki: ClusterPKI, server: str) -> Path:
    """The agent that simulates many nodes acts for all of them, so it cannot be one node's
    ``system:node:<name>`` (the Node authorizer and NodeRestriction would stop it at its own
    node): like kwok's controller it is an administrator (``system:masters``). Simulated nodes
    are for demos and scale tests, not a security boundary."""
    return ensure_identity(data_dir, pki, "fake-nodes", FAKE_NODES_USER, ("system:masters",), server)


KUBE_PROXY = ("kube-proxy", "system:kube-proxy", ())


def ensure_proxy_identity(data_dir: Path, pki: ClusterPKI, server: str) -> Path:
    """The service proxy's ``system:kube-proxy`` (bound to ``system:node-proxier``)."""
    name, user, groups = KUBE_PROXY
    return ensure_identity(data_dir, pki, name, user, groups, server)


def ensure_dns_identity(data_dir: Path, pki: ClusterPKI, server: str) -> Path:
    """The cluster DNS server's kubeconfig (``system:kube-dns``; see ``KUBE_DNS``)."""
    name, user, groups = KUBE_DNS
    return ensure_identity(data_dir, pki, name, user, groups, server)


INGRESS_CONTROLLER = ("ingress-controller", "system:ingress-controller", ())


def ensure_ingress_controller_identity(data_dir: Path, pki: ClusterPKI, server: str) -> Path:
    """The built-in ingress controller's kubeconfig (bound to the ``system:ingress-controller``
    ClusterRole, ingress-nginx's rules)."""
    name, user, groups = INGRESS_CONTROLLER
    return ensure_identity(data_dir, pki, name, user, groups, server)

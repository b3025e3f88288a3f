"""What ``up`` runs besides the apiserver (``Components``), and the node side of it: the node
agents, the service proxy, the cluster DNS server and the ingress controller, all from the node
agent's façade (``nodeagent.app``), imported only when ``up`` runs nodes.

The pod network (``--cluster-cidr``, ``--node-cidr-mask-size``) is carved here into one range
per node; the cluster DNS address follows from the service range (``cluster_dns_ip``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import controllers.app
import scheduler.app
from minikube_py.network import DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_CIDR_MASK_SIZE, node_cidr_count, node_cidrs
from minikube_py.pki import ClusterPKI, load_certificate_authority

# the cluster domain (kubelet's --cluster-domain, the DNS server's zone)
CLUSTER_DOMAIN = "cluster.local"


class PodNetworkError(Exception):
    """The nodes asked for do not fit the pod network (``--cluster-cidr``). One line."""


@dataclass(frozen=True)
class Components:
    """What ``up`` runs besides the apiserver: the controller-manager's and the scheduler's
    options, ``nodes`` process-runtime node agents and ``fake_nodes`` simulated ones, each node
    with a range of ``cluster_cidr`` (``/node_cidr_mask_size``), process nodes first."""

    manager: controllers.app.ManagerOptions = field(default_factory=controllers.app.ManagerOptions)
    scheduling: scheduler.app.SchedulerOptions = field(default_factory=scheduler.app.SchedulerOptions)
    nodes: int = 0
    fake_nodes: int = 0
    cluster_cidr: str = DEFAULT_CLUSTER_CIDR
    node_cidr_mask_size: int = DEFAULT_NODE_CIDR_MASK_SIZE
    # the kube-dns Service's ClusterIP, the pods' nameserver: the service range's tenth
    # address, as kubeadm's (``up`` sets it from --service-cluster-ip-range)
    cluster_dns_ip: str = "127.96.0.10"
    ingress_port: int | None = 80  # the built-in ingress controller's port (None: not run)
    ingress_tls_port: int | None = 443  # its TLS port (None: no TLS)

    def pod_cidrs(self) -> list[str]:
        """The nodes' ranges in order (``node-1..N``, then ``fake-1..M``); ``PodNetworkError``
        when they do not fit."""
        wanted = self.nodes + self.fake_nodes
        prefix = int(self.cluster_cidr.rsplit("/", 1)[1])
        if wanted and self.node_cidr_mask_size < prefix:
            raise PodNetworkError(
                f"--node-cidr-mask-size {self.node_cidr_mask_size} is shorter than the prefix of "
                f"--cluster-cidr {self.cluster_cidr}: a node's range must fit in the pod network"
            )
        room = max_nodes(self.cluster_cidr, self.node_cidr_mask_size)
        if wanted > room:
            raise PodNetworkError(
                f"--cluster-cidr {self.cluster_cidr} with --node-cidr-mask-size {self.node_cidr_mask_size} "
                f"has room for {room} nodes, but --nodes {self.nodes} and --fake-nodes {self.fake_nodes} "
                f"ask for {wanted}"
            )
        ranges = node_cidrs(self.cluster_cidr, self.node_cidr_mask_size)
        return [next(ranges) for _ in range(wanted)]


def max_nodes(cluster_cidr: str, mask_size: int) -> int:
    """How many nodes (process or simulated) the pod network has ranges for."""
    return node_cidr_count(cluster_cidr, mask_size)


async def node_components(
    data_dir: Path, pki: ClusterPKI, server: str, components: Components
) -> list[Coroutine[Any, Any, None]]:
    """The node side's coroutines: the node agents, one service proxy for the cluster, the
    cluster DNS server and the ingress controller. None without nodes: the control plane alone
    (``--nodes 0``) imports no node code. The node agent is imported in a thread: the apiserver
    listens by now and keeps answering meanwhile."""
    if not (components.nodes or components.fake_nodes):
        return []
    await asyncio.to_thread(_import_node_agent)
    return [
        *node_agents(data_dir, pki, server, components),
        *cluster_dns(data_dir, pki, server),
        *ingress_controller(data_dir, pki, server, components),
    ]


def cluster_dns(data_dir: Path, pki: ClusterPKI, server: str) -> list[Coroutine[Any, Any, None]]:
    """The cluster DNS server (``nodeagent.app.cluster_dns``)."""
    import nodeagent.app  # imported by node_components, in a thread

    return [nodeagent.app.cluster_dns(data_dir, pki, server, CLUSTER_DOMAIN)]


def node_agents(
    data_dir: Path, pki: ClusterPKI, server: str, components: Components
) -> list[Coroutine[Any, Any, None]]:
    """The node agents (process nodes first, each with its range of the pod network) and the
    service proxy: one for the whole cluster, since its nodes share this machine's loopback."""
    import nodeagent.app  # imported by node_components, in a thread

    ca = load_certificate_authority(pki.ca)
    agents = nodeagent.app.cluster_agents(
        data_dir,
        pki,
        ca,
        server,
        components.nodes,
        components.fake_nodes,
        pod_cidrs=components.pod_cidrs(),
        cluster_dns=(components.cluster_dns_ip,),
    )
    agents.append(nodeagent.app.cluster_proxy(data_dir, pki, server, components.nodes))
    return agents


def ingress_controller(
    data_dir: Path, pki: ClusterPKI, server: str, components: Components
) -> list[Coroutine[Any, Any, None]]:
    """The built-in ingress controller (a part of the node agent's package, like minikube's
    ingress addon it is on by default), announced as ``ingress: http://127.0.0.1:PORT`` (and
    ``https://`` for its TLS port)."""
    if components.ingress_port is None:
        return []
    import nodeagent.app  # imported by node_components, in a thread

    def announce(port: int, tls_port: int | None) -> None:
        print(f"ingress: http://127.0.0.1:{port}", flush=True)
        if tls_port is not None:
            print(f"ingress: https://127.0.0.1:{tls_port}", flush=True)

    return [
        nodeagent.app.cluster_ingress_controller(
            data_dir, pki, server, components.ingress_port, components.ingress_tls_port, announce
        )
    ]


def _import_node_agent() -> None:
    import nodeagent.app  # noqa: F401  (the import is the point)

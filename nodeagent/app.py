"""The node agent's façade, what the command line calls (and nothing inside ``nodeagent``
imports): its flags into options and one agent run from them (``minikube-py node-agent``), or
the agents of ``up``: ``node-1..N`` on the process runtime and ``fake-1..M`` simulated by one
agent, each with its own identity, over HTTPS on loopback like separate processes would."""

from __future__ import annotations

import argparse
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from minikube_py.client.config import load_kubeconfig
from minikube_py.gctuning import tune_gc
from minikube_py.identities import ensure_dns_identity, ensure_fake_nodes_identity, ensure_node_identity
from minikube_py.pki import CertificateAuthority, ClusterPKI
from nodeagent.agent import AgentOptions, ServingTLS, node_root, process_pod_cidr, run_node_agent
from nodeagent.dns import options as dns_options
from nodeagent.dns.app import DNSConfigError, run_dns
from nodeagent.fakenodes import run_fake_nodes
from nodeagent.options import add_flags, agent_options

__all__ = [
    "CONFIG_ERRORS",
    "add_dns_flags",
    "add_flags",
    "cluster_agents",
    "cluster_dns",
    "run_command",
    "run_dns_command",
]

# errors of bad input, reported as one line (exit 2) without a traceback: the shared library's
# (kubeconfig, PKI) are the command line's own
CONFIG_ERRORS: tuple[type[Exception], ...] = (DNSConfigError,)


async def run_command(args: argparse.Namespace) -> None:
    """``minikube-py node-agent``: one agent until cancelled."""
    tune_gc()
    config = load_kubeconfig(args.kubeconfig)
    options, tls = agent_options(args)
    await run_node_agent(config, options, tls)


def cluster_agents(
    data_dir: Path,
    pki: ClusterPKI,
    ca: CertificateAuthority,
    server: str,
    nodes: int,
    fake_nodes: int,
    *,
    cluster_dns: tuple[str, ...] = (),
) -> list[Coroutine[Any, Any, None]]:
    """``up``'s agents: ``nodes`` on the process runtime, ``fake_nodes`` simulated by one;
    ``cluster_dns``: the kubelet's ``--cluster-dns`` of the process nodes."""
    agents = [
        run_node_agent(
            load_kubeconfig(ensure_node_identity(data_dir, pki, name, server)),
            AgentOptions(
                name, data_dir, "process", port=0, pod_cidr=process_pod_cidr(index), cluster_dns=cluster_dns
            ),
            ServingTLS.issued_by(ca, node_root(data_dir, name) / "pki"),
        )
        for index, name in ((i, f"node-{i}") for i in range(1, nodes + 1))
    ]
    if fake_nodes:
        names = [f"fake-{i}" for i in range(1, fake_nodes + 1)]
        agents.append(
            run_fake_nodes(
                load_kubeconfig(ensure_fake_nodes_identity(data_dir, pki, server)),
                names,
                data_dir,
                ServingTLS.issued_by(ca, data_dir / "nodes" / "fake-pki"),
            )
        )
    return agents


# -- the cluster DNS server (``minikube-py dns``; ``nodeagent/dns``) ---------------------------

add_dns_flags = dns_options.add_flags


async def run_dns_command(args: argparse.Namespace) -> None:
    """``minikube-py dns``: the cluster DNS server until cancelled."""
    tune_gc()
    await run_dns(load_kubeconfig(args.kubeconfig), dns_options.dns_options(args))


def cluster_dns(data_dir: Path, pki: ClusterPKI, server: str, domain: str) -> Coroutine[Any, Any, None]:
    """``up``'s DNS server: its own identity (``system:kube-dns``), a free port on 127.0.0.1
    (the kube-dns Endpoints name it) and the host's resolv.conf nameservers upstream."""
    options = dns_options.DNSOptions(port=0, domain=domain, metrics_port=0)
    return run_dns(load_kubeconfig(ensure_dns_identity(data_dir, pki, server)), options)

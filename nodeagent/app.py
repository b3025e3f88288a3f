"""The node agent's façade, what the command line calls (and nothing inside ``nodeagent``
imports): its flags into options and one agent run from them (``minikube-py node-agent``), or
the agents of ``up``: ``node-1..N`` on the process runtime and ``fake-1..M`` simulated by one
agent, each with its own identity, over HTTPS on loopback like separate processes would."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from minikube_py.client.config import load_kubeconfig
from minikube_py.gctuning import tune_gc
from minikube_py.identities import (
    ensure_dns_identity,
    ensure_fake_nodes_identity,
    ensure_ingress_controller_identity,
    ensure_node_identity,
    ensure_proxy_identity,
)
from minikube_py.pki import CertificateAuthority, ClusterPKI
from nodeagent.agent import AgentOptions, ServingTLS, node_root, run_node_agent
from nodeagent.dns import options as dns_options
from nodeagent.dns.app import DNSConfigError, run_dns
from nodeagent.fakenodes import run_fake_nodes
from nodeagent.options import add_flags as add_agent_flags
from nodeagent.options import agent_options
from nodeagent.proxy.app import ProxyOptions, run_proxy
from nodeagent.proxy.options import add_node_agent_proxy_flags, add_proxy_flags, proxy_options
from nodeagent.proxy.proxier import ProxyConfig

__all__ = [
    "CONFIG_ERRORS",
    "add_dns_flags",
    "add_flags",
    "add_ingress_flags",
    "add_proxy_flags",
    "cluster_agents",
    "cluster_dns",
    "cluster_ingress_controller",
    "cluster_proxy",
    "run_command",
    "run_dns_command",
    "run_ingress_command",
    "run_proxy_command",
]

# errors of bad input, reported as one line (exit 2) without a traceback: the shared library's
# (kubeconfig, PKI) are the command line's own
CONFIG_ERRORS: tuple[type[Exception], ...] = (DNSConfigError,)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """``minikube-py node-agent``'s flags, with those of the node's service proxy."""
    add_agent_flags(parser)
    add_node_agent_proxy_flags(parser)


async def run_command(args: argparse.Namespace) -> None:
    """``minikube-py node-agent``: one agent until cancelled; on the process runtime with its
    node's service proxy beside it (unless ``--no-proxy``)."""
    tune_gc()
    config = load_kubeconfig(args.kubeconfig)
    options, tls = agent_options(args)
    if args.runtime != "process" or args.no_proxy:
        await run_node_agent(config, options, tls)
        return
    proxy = proxy_options(args, "proxy-", node_names=frozenset([args.node_name]))
    proxy_config = load_kubeconfig(args.proxy_kubeconfig) if args.proxy_kubeconfig else config
    async with asyncio.TaskGroup() as tasks:
        tasks.create_task(run_node_agent(config, options, tls))
        tasks.create_task(run_proxy(proxy_config, proxy))


async def run_proxy_command(args: argparse.Namespace) -> None:
    """``minikube-py proxy``: one service proxy until cancelled."""
    tune_gc()
    await run_proxy(load_kubeconfig(args.kubeconfig), proxy_options(args))


def cluster_proxy(data_dir: Path, pki: ClusterPKI, server: str, nodes: int) -> Coroutine[Any, Any, None]:
    """``up``'s one service proxy, as ``system:kube-proxy``, for the process nodes
    ``node-1..N`` (they share this machine's loopback; simulated nodes run nothing to reach).
    Its HTTP endpoints take free ports (logged): several clusters may run on one machine."""
    options = ProxyOptions(
        # simulated nodes' addresses are not served: nothing runs behind them
        ProxyConfig(node_names=frozenset(f"node-{i}" for i in range(1, nodes + 1))),
        healthz_bind_address="127.0.0.1:0",
        metrics_bind_address="127.0.0.1:0",
    )
    return run_proxy(load_kubeconfig(ensure_proxy_identity(data_dir, pki, server)), options)


def cluster_agents(
    data_dir: Path,
    pki: ClusterPKI,
    ca: CertificateAuthority,
    server: str,
    nodes: int,
    fake_nodes: int,
    pod_cidrs: Sequence[str],
    *,
    cluster_dns: tuple[str, ...] = (),
) -> list[Coroutine[Any, Any, None]]:
    """``up``'s agents: ``nodes`` on the process runtime, ``fake_nodes`` simulated by one; the
    nodes' pod ranges are ``pod_cidrs`` in order (process nodes first), a process node's
    address and API at the first address of its range; ``cluster_dns``: the kubelet's
    ``--cluster-dns`` of the process nodes."""
    agents = []
    for index in range(nodes):
        name = f"node-{index + 1}"
        options = AgentOptions(
            name, data_dir, "process", port=0, pod_cidr=pod_cidrs[index], cluster_dns=cluster_dns
        )
        agents.append(
            run_node_agent(
                load_kubeconfig(ensure_node_identity(data_dir, pki, name, server)),
                options,
                ServingTLS.issued_by(ca, node_root(data_dir, name) / "pki", options.address),
            )
        )
    if fake_nodes:
        names = [f"fake-{i}" for i in range(1, fake_nodes + 1)]
        agents.append(
            run_fake_nodes(
                load_kubeconfig(ensure_fake_nodes_identity(data_dir, pki, server)),
                names,
                data_dir,
                ServingTLS.issued_by(ca, data_dir / "nodes" / "fake-pki"),
                pod_cidrs=pod_cidrs[nodes:],
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


# The built-in ingress controller (``minikube-py ingress-controller``; in ``up``).


def add_ingress_flags(parser: argparse.ArgumentParser) -> None:
    """``minikube-py ingress-controller``'s flags."""
    from nodeagent.ingress import options

    options.add_flags(parser)


async def run_ingress_command(args: argparse.Namespace) -> None:
    """``minikube-py ingress-controller``: serve the Ingresses of class ``minikube-py`` until
    cancelled."""
    from nodeagent.ingress import options, run

    await run.run_ingress_controller(load_kubeconfig(args.kubeconfig), options.ingress_options(args))


def cluster_ingress_controller(
    data_dir: Path,
    pki: ClusterPKI,
    server: str,
    port: int,
    tls_port: int | None,
    on_listening: Callable[[int, int | None], None],
) -> Coroutine[Any, Any, None]:
    """``up``'s ingress controller on ``127.0.0.1:port`` (and ``tls_port``, None: no TLS) with
    its own identity; ``on_listening(port, tls_port)`` once it listens."""
    from nodeagent.ingress.run import IngressOptions, run_ingress_controller

    config = load_kubeconfig(ensure_ingress_controller_identity(data_dir, pki, server))
    return run_ingress_controller(config, IngressOptions(port=port, tls_port=tls_port), on_listening)

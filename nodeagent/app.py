"""The node agent's façade, what the command line calls (and nothing inside ``nodeagent``
imports): its flags into options and one agent run from them (``minikube-py node-agent``), or
the agents of ``up``: ``node-1..N`` on the process runtime and ``fake-1..M`` simulated by one
agent, each with its own identity, over HTTPS on loopback like separate processes would."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from minikube_py.client.config import load_kubeconfig
from minikube_py.gctuning import tune_gc
from minikube_py.identities import (
    ensure_fake_nodes_identity,
    ensure_ingress_controller_identity,
    ensure_node_identity,
)
from minikube_py.pki import CertificateAuthority, ClusterPKI
from nodeagent.agent import AgentOptions, ServingTLS, node_root, process_pod_cidr, run_node_agent
from nodeagent.fakenodes import run_fake_nodes
from nodeagent.options import add_flags, agent_options

__all__ = [
    "CONFIG_ERRORS",
    "add_flags",
    "add_ingress_flags",
    "cluster_agents",
    "cluster_ingress_controller",
    "run_command",
    "run_ingress_command",
]

# errors of bad input, reported as one line (exit 2) without a traceback: the shared library's
# (kubeconfig, PKI) are the command line's own
CONFIG_ERRORS: tuple[type[Exception], ...] = ()


async def run_command(args: argparse.Namespace) -> None:
    """``minikube-py node-agent``: one agent until cancelled."""
    tune_gc()
    config = load_kubeconfig(args.kubeconfig)
    options, tls = agent_options(args)
    await run_node_agent(config, options, tls)


def cluster_agents(
    data_dir: Path, pki: ClusterPKI, ca: CertificateAuthority, server: str, nodes: int, fake_nodes: int
) -> list[Coroutine[Any, Any, None]]:
    """``up``'s agents: ``nodes`` on the process runtime, ``fake_nodes`` simulated by one."""
    agents = [
        run_node_agent(
            load_kubeconfig(ensure_node_identity(data_dir, pki, name, server)),
            AgentOptions(name, data_dir, "process", port=0, pod_cidr=process_pod_cidr(index)),
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


# The built-in ingress controller (``minikube-py ingress-controller``; in ``up``).


def add_ingress_flags(parser: argparse.ArgumentParser) -> None:
    """``minikube-py ingress-controller``'s flags."""
    from nodeagent.ingress import options

    options.add_flags(parser)


async def run_ingress_command(args: argparse.Namespace) -> None:
    """``minikube-py ingress-controller``: serve the Ingresses of class ``minikube-py`` until
    cancelled."""
    from nodeagent.ingress import options, run

    tune_gc()
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

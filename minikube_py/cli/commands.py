"""The subcommands: each one's name, one-line help and description, and where its flags and
its run come from. A subcommand's flags are added when it is parsed (or its help is shown), so
``minikube-py --help`` and every other command import no component: a component's façade is
imported when its command runs.

The four component commands are the components' façades (``apiserver.app``,
``controllers.app``, ``scheduler.app``, ``nodeagent.app``); ``up`` assembles them
(``minikube_py.cli.up``); ``kubeconfig`` and ``token`` are the command line's own.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Command:
    """``configure`` adds the command's flags to its parser and sets its defaults ``run``
    (``args -> coroutine``) and ``config_errors`` (the exceptions reported as one line)."""

    name: str
    help: str
    description: str | None
    configure: Callable[[argparse.ArgumentParser], None]


def _facade(app: ModuleType, parser: argparse.ArgumentParser) -> None:
    """A component's command: its façade's flags, run and config errors (every façade has the
    same three names)."""
    app.add_flags(parser)
    parser.set_defaults(run=app.run_command, config_errors=app.CONFIG_ERRORS)


def _up(parser: argparse.ArgumentParser) -> None:
    from minikube_py.cli import up

    up.add_flags(parser)


def _apiserver(parser: argparse.ArgumentParser) -> None:
    import apiserver.app as app

    _facade(app, parser)


def _controller_manager(parser: argparse.ArgumentParser) -> None:
    import controllers.app as app

    _facade(app, parser)


def _scheduler(parser: argparse.ArgumentParser) -> None:
    import scheduler.app as app

    _facade(app, parser)


def _node_agent(parser: argparse.ArgumentParser) -> None:
    import nodeagent.app as app

    _facade(app, parser)


def _proxy(parser: argparse.ArgumentParser) -> None:
    import nodeagent.app as app

    app.add_proxy_flags(parser)
    parser.set_defaults(run=app.run_proxy_command, config_errors=app.CONFIG_ERRORS)


def _dns(parser: argparse.ArgumentParser) -> None:
    import nodeagent.app as app

    app.add_dns_flags(parser)
    parser.set_defaults(run=app.run_dns_command, config_errors=app.CONFIG_ERRORS)


def _ingress_controller(parser: argparse.ArgumentParser) -> None:
    import nodeagent.app as app

    app.add_ingress_flags(parser)
    parser.set_defaults(run=app.run_ingress_command, config_errors=app.CONFIG_ERRORS)


def _kubeconfig(parser: argparse.ArgumentParser) -> None:
    from minikube_py.cli import kubeconfig_cmd

    kubeconfig_cmd.add_flags(parser)


def _token(parser: argparse.ArgumentParser) -> None:
    from minikube_py.cli import token

    token.add_flags(parser)


COMMANDS = (
    Command(
        "up",
        "run the whole cluster in one process",
        "Run the whole cluster in one process, in the foreground. "
        "Ctrl-C or SIGTERM stops it; state survives a restart.",
        _up,
    ),
    Command(
        "apiserver",
        "run the apiserver alone",
        "Run the apiserver alone over HTTPS, in the foreground.",
        _apiserver,
    ),
    Command(
        "controller-manager",
        "run the controllers (leader-elected)",
        "Run the controllers against an apiserver, with leader election.",
        _controller_manager,
    ),
    Command(
        "scheduler",
        "run the scheduler (leader-elected)",
        "Run the scheduler against an apiserver, with leader election.",
        _scheduler,
    ),
    Command(
        "node-agent",
        "run one node agent (a miniature kubelet)",
        "Register a node and run the pods bound to it on a process or simulated runtime.",
        _node_agent,
    ),
    Command(
        "proxy",
        "run a service proxy (a miniature kube-proxy)",
        "Serve every Service's ClusterIP, NodePorts and LoadBalancer address on loopback, "
        "forwarding to ready endpoints from EndpointSlices.",
        _proxy,
    ),
    Command(
        "dns",
        "run the cluster DNS server (the kube-dns/CoreDNS contract)",
        "Serve <svc>.<ns>.svc.cluster.local and the rest of the Kubernetes DNS specification from "
        "Services and EndpointSlices, forward other names upstream, and keep the kube-system/kube-dns "
        "Service and Endpoints pointing at it.",
        _dns,
    ),
    Command(
        "ingress-controller",
        "run the built-in ingress controller",
        "Serve the Ingresses of IngressClass minikube-py over HTTP on 127.0.0.1, "
        "straight to their Services' ready endpoints.",
        _ingress_controller,
    ),
    Command(
        "kubeconfig",
        "write a kubeconfig for a user, with a client certificate from the cluster CA",
        "Mint a client certificate (CN=user, O=groups) and write a kubeconfig for it.",
        _kubeconfig,
    ),
    Command(
        "token",
        "manage bootstrap tokens",
        None,
        _token,
    ),
)

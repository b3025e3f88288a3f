"""Where the apiserver serves and stores: the ``apiserver`` command's ``--store``,
``--bind-address``, ``--secure-port`` and TLS files, with its gates', request limits' and
Service address flags, into ``ServerRunOptions``; and ``up``'s ``--port``, ``--store``,
Service address flags and ``--audit-policy-file`` into ``ClusterOptions`` (``up`` configures
the rest from the data dir)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from apiserver.audit.policy import Policy
from apiserver.options.audit import add_up_audit_flag
from apiserver.options.security import add_security_flags, security_from_args
from apiserver.options.services import add_service_network_flags, service_network_from_args
from apiserver.options.serving import add_serving_flags, serving_from_args
from apiserver.registry.resources.serviceallocator import ServiceNetwork
from apiserver.security import SecurityConfig
from apiserver.serving import ServingOptions
from minikube_py.flags import port_number

DEFAULT_SECURE_PORT = 6443
LOOPBACK = "127.0.0.1"
STORE_HELP = "store URL: sqlite:///PATH, memory:// or etcd://HOST:PORT[,HOST:PORT...]"


@dataclass(frozen=True)
class ServerRunOptions:
    """The ``apiserver`` command: the store, the address and the TLS files it serves with."""

    store_url: str
    bind_address: str
    port: int
    cert_file: Path
    key_file: Path
    client_ca_file: Path
    security: SecurityConfig | None = None
    serving: ServingOptions | None = None
    service_network: ServiceNetwork = field(default_factory=ServiceNetwork)


@dataclass(frozen=True)
class ClusterOptions:
    """The apiserver of ``up``, on ``127.0.0.1:port``: ``store_url`` None is sqlite in the data
    dir; ``audit_policy`` None the default policy; ``serving`` None upstream's request limits."""

    port: int = DEFAULT_SECURE_PORT
    store_url: str | None = None
    audit_policy: Policy | None = None
    serving: ServingOptions | None = None
    service_network: ServiceNetwork = field(default_factory=ServiceNetwork)


def add_server_run_flags(parser: argparse.ArgumentParser) -> None:
    """The ``apiserver`` command's flags."""
    parser.add_argument("--store", metavar="URL", required=True, help=STORE_HELP)
    parser.add_argument(
        "--bind-address", default=LOOPBACK, metavar="IP", help="address to listen on (default %(default)s)"
    )
    parser.add_argument(
        "--secure-port",
        type=port_number,
        default=DEFAULT_SECURE_PORT,
        metavar="PORT",
        help="HTTPS port (default %(default)s)",
    )
    for flag, help_text in (
        ("--tls-cert-file", "serving certificate (PEM)"),
        ("--tls-private-key-file", "its private key (PEM)"),
        ("--client-ca-file", "CA that client certificates must chain to (PEM)"),
    ):
        parser.add_argument(flag, type=Path, required=True, metavar="FILE", help=help_text)
    add_security_flags(parser)
    add_serving_flags(parser)
    add_service_network_flags(parser)


def server_run_options(args: argparse.Namespace) -> ServerRunOptions:
    return ServerRunOptions(
        store_url=args.store,
        bind_address=args.bind_address,
        port=args.secure_port,
        cert_file=args.tls_cert_file,
        key_file=args.tls_private_key_file,
        client_ca_file=args.client_ca_file,
        security=security_from_args(args),
        serving=serving_from_args(args),
        service_network=service_network_from_args(args),
    )


def add_cluster_flags(parser: argparse.ArgumentParser) -> None:
    """``up``'s apiserver flags: the port and the store."""
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_SECURE_PORT,
        help="apiserver HTTPS port on 127.0.0.1 (default %(default)s)",
    )
    parser.add_argument("--store", metavar="URL", help=f"{STORE_HELP} (default sqlite:///DIR/store.db)")
    add_service_network_flags(parser)


def add_cluster_gate_flags(parser: argparse.ArgumentParser) -> None:
    """``up``'s flags for the audit policy and the request limits."""
    add_up_audit_flag(parser)
    add_serving_flags(parser)


def cluster_options(args: argparse.Namespace) -> ClusterOptions:
    return ClusterOptions(
        port=args.port,
        store_url=args.store,
        audit_policy=args.audit_policy_file,
        serving=serving_from_args(args),
        service_network=service_network_from_args(args),
    )

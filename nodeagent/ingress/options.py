"""``minikube-py ingress-controller --kubeconfig F --port P --tls-port T``: the flags, into
``IngressOptions``."""

from __future__ import annotations

import argparse
from pathlib import Path

from nodeagent.ingress.run import DEFAULT_PORT, DEFAULT_TLS_PORT, IngressOptions


def port_number(text: str) -> int:
    """0-65535 (0 picks a free port)."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (want 0-65535; 0 picks a free port)")
    return int(text)


def optional_port(text: str) -> int:
    """A port, or -1 for none."""
    return -1 if text == "-1" else port_number(text)


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kubeconfig", type=Path, required=True, metavar="FILE", help="the controller's identity"
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help="the HTTP port on 127.0.0.1 (default %(default)s; 0 picks a free port)",
    )
    parser.add_argument(
        "--tls-port",
        type=optional_port,
        default=DEFAULT_TLS_PORT,
        help="the HTTPS port on 127.0.0.1 (default %(default)s; 0 picks a free port; -1 none)",
    )


def ingress_options(args: argparse.Namespace) -> IngressOptions:
    return IngressOptions(port=args.port, tls_port=None if args.tls_port < 0 else args.tls_port)

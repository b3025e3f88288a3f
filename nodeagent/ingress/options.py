"""``minikube-py ingress-controller --kubeconfig F --port P``: the flags, into ``IngressOptions``."""

from __future__ import annotations

import argparse
from pathlib import Path

from nodeagent.ingress.run import DEFAULT_PORT, IngressOptions


def port_number(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (want 0-65535; 0 picks a free port)")
    return int(text)


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


def ingress_options(args: argparse.Namespace) -> IngressOptions:
    return IngressOptions(port=args.port)

"""Authorization flags of ``minikube-py apiserver`` (upstream's ``--authorization-mode``) and
what ``up`` runs with (``Node,RBAC``, as kubeadm)."""

from __future__ import annotations

import argparse

from apiserver.authz.factory import MODES, check_modes

UP_AUTHORIZATION_MODES = ("Node", "RBAC")


def _modes(text: str) -> tuple[str, ...]:
    try:
        return check_modes([m.strip() for m in text.split(",") if m.strip()])
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_authorization_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("authorization")
    group.add_argument(
        "--authorization-mode",
        type=_modes,
        default=("AlwaysAllow",),
        metavar="MODES",
        help=f"comma-separated authorizers, asked in order: {', '.join(MODES)} (default AlwaysAllow)",
    )


def authorization_from_args(args: argparse.Namespace) -> tuple[str, ...]:
    modes: tuple[str, ...] = args.authorization_mode
    return modes

"""The admission gate's command line: upstream's ``--enable-admission-plugins`` and
``--disable-admission-plugins`` for ``minikube-py apiserver``, and what ``up`` admits with."""

from __future__ import annotations

import argparse
import sys

from apiserver.admission.registry import AdmissionConfigError, enabled_plugins

# ``up``: upstream's default-on plugins (ServiceAccount among them: ``up`` runs the
# service-account controller that creates ``default`` in every namespace) plus
# NodeRestriction, as kubeadm enables it.
UP_ENABLE = ("NodeRestriction",)
UP_DISABLE: tuple[str, ...] = ()


def up_admission() -> tuple[str, ...]:
    return enabled_plugins(UP_ENABLE, UP_DISABLE)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def add_admission_flags(parser: argparse.ArgumentParser) -> None:
    admission = parser.add_argument_group("admission")
    admission.add_argument(
        "--enable-admission-plugins",
        type=_names,
        default=[],
        metavar="NAMES",
        help="admission plugins to enable besides the default ones (comma-separated)",
    )
    admission.add_argument(
        "--disable-admission-plugins",
        type=_names,
        default=[],
        metavar="NAMES",
        help="admission plugins to disable, even default ones (comma-separated)",
    )


def admission_from_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The enabled plugins in order; bad names end the process (one line each, exit 2)."""
    try:
        return enabled_plugins(args.enable_admission_plugins, args.disable_admission_plugins)
    except AdmissionConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        raise SystemExit(2) from None

"""The gates' configuration from the command line: ``up`` derives it from the data dir (every
gate on, upstream's defaults); ``minikube-py apiserver`` takes upstream-named flags."""

from __future__ import annotations

import argparse
from pathlib import Path

from apiserver.audit.policy import Policy
from apiserver.security import SecurityConfig
from minikube_py.cli.admission_flags import add_admission_flags, admission_from_args, up_admission
from minikube_py.cli.auditflags import add_audit_flags, audit_from_args, up_audit
from minikube_py.cli.authn_flags import add_authentication_flags, authentication_from_args, up_authentication
from minikube_py.cli.authz_flags import (
    UP_AUTHORIZATION_MODES,
    add_authorization_flags,
    authorization_from_args,
)
from minikube_py.cli.flowcontrol_flags import add_flow_control_flags, flow_control_from_args, up_flow_control
from minikube_py.pki import ClusterPKI


def up_security(data_dir: Path, pki: ClusterPKI, audit_policy: Policy | None = None) -> SecurityConfig:
    """What ``up`` runs with: every gate configured from the data dir (``audit_policy``: the
    ``--audit-policy-file`` given to ``up``, if any)."""
    return SecurityConfig(
        **up_authentication(data_dir, pki),
        authorization_modes=UP_AUTHORIZATION_MODES,
        admission_plugins=up_admission(),
        **up_flow_control(),
        audit=up_audit(data_dir, audit_policy),
    )


def add_security_flags(parser: argparse.ArgumentParser) -> None:
    """The ``apiserver`` subcommand's authentication, authorization, admission, audit and
    flow-control flags (upstream's names)."""
    add_authentication_flags(parser, flag_bool)
    add_authorization_flags(parser)
    add_audit_flags(parser)
    add_admission_flags(parser)
    add_flow_control_flags(parser, flag_bool)


def security_from_args(args: argparse.Namespace) -> SecurityConfig:
    return SecurityConfig(
        **flow_control_from_args(args),
        **authentication_from_args(args),
        audit=audit_from_args(args),
        admission_plugins=admission_from_args(args),
        authorization_modes=authorization_from_args(args),
    )


def flag_bool(text: str) -> bool:
    """A Go-style boolean flag value (``--flag``, ``--flag=false``)."""
    value = {"true": True, "1": True, "t": True, "false": False, "0": False, "f": False}.get(text.lower())
    if value is None:
        raise argparse.ArgumentTypeError(f"invalid boolean {text!r}")
    return value

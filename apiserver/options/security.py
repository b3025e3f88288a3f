"""The gates' configuration from the command line (authentication, authorization, admission,
audit, flow control): ``up`` derives it from the data dir (every gate on, upstream's
defaults); ``minikube-py apiserver`` takes upstream-named flags."""

from __future__ import annotations

import argparse
from pathlib import Path

from apiserver.audit.policy import Policy
from apiserver.options.admission import add_admission_flags, admission_from_args, up_admission
from apiserver.options.audit import add_audit_flags, audit_from_args, up_audit
from apiserver.options.authn import add_authentication_flags, authentication_from_args, up_authentication
from apiserver.options.authz import (
    UP_AUTHORIZATION_MODES,
    add_authorization_flags,
    authorization_from_args,
)
from apiserver.options.flowcontrol import add_flow_control_flags, flow_control_from_args, up_flow_control
from apiserver.security import SecurityConfig
from minikube_py.flags import flag_bool
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

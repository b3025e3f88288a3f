"""The cluster's data directory (``~/.minikube-py`` unless told otherwise): ``up`` prepares it,
the node agents keep their files under it, and the commands that act on a running cluster
read from it the cluster PKI and the apiserver URL of ``admin.kubeconfig``."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from minikube_py.kubeconfig import ADMIN_KUBECONFIG

DEFAULT_DATA_DIR = Path("~/.minikube-py")


class DataDirError(Exception):
    """The data directory cannot be created or written. One-line message."""


class ClusterAccessError(Exception):
    """The data dir does not hold a usable cluster (one line)."""


def prepare_data_dir(path: Path) -> Path:
    """Create the data directory (0700) if needed; return it absolute. Raises DataDirError."""
    path = path.expanduser().absolute()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        reason = (err.strerror or str(err)).lower()
        raise DataDirError(f"cannot create data directory {path}: {reason}") from err
    if not os.access(path, os.W_OK | os.X_OK):
        raise DataDirError(f"data directory {path} is not writable")
    return path


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

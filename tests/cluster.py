"""A running ``minikube-py`` process for end-to-end tests, and real kubectl against it.

The process side (``Cluster``, ``start_up``, ``running_up``, ``free_port``...) lives in
``minikube_py.testing.cluster`` so that benchmarks use it without pytest; it is re-exported
here for the tests.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from minikube_py.testing.cluster import (
    CLI,
    READY_TIMEOUT,
    STOP_TIMEOUT,
    Cluster,
    ClusterError,
    free_port,
    home_env,
    running_up,
    start,
    start_up,
)

__all__ = [
    "CLI",
    "KUBECTL",
    "KUBECTL_DIR",
    "KUBECTL_MINORS",
    "READY_TIMEOUT",
    "SKEW_WARNING",
    "STOP_TIMEOUT",
    "Cluster",
    "ClusterError",
    "eventually",
    "free_port",
    "home_env",
    "kubectl",
    "kubectl_json",
    "kubectl_ok",
    "run_cli",
    "running_up",
    "start",
    "start_up",
]

KUBECTL = shutil.which("kubectl") or "kubectl"
# gcloud installs kubectl.1.27 ... kubectl.1.33 beside the kubectl on PATH.
KUBECTL_DIR = Path(KUBECTL).resolve().parent
KUBECTL_MINORS = range(27, 34)
SKEW_WARNING = "exceeds the supported minor version skew"


def kubectl(
    cluster: Cluster, *args: str, binary: str = KUBECTL, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    cache = cluster.data_dir.parent / "kube-cache"
    command = [binary, "--kubeconfig", str(cluster.kubeconfig), "--cache-dir", str(cache), *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=60)


def kubectl_ok(cluster: Cluster, *args: str, stdin: str | None = None) -> str:
    """kubectl's stdout; the test fails with its stderr unless it exits 0."""
    result = kubectl(cluster, *args, stdin=stdin)
    assert result.returncode == 0, result.stderr
    return result.stdout


def kubectl_json(cluster: Cluster, *args: str) -> Any:
    """``kubectl get -o json ARGS``, decoded."""
    return json.loads(kubectl_ok(cluster, "get", "-o", "json", *args))


def eventually(check: Callable[[], Any], what: str, timeout: float = 30.0, interval: float = 0.1) -> Any:
    """Poll ``check`` until it returns something truthy (a failed assertion or a missing key
    counts as not yet); fail naming ``what`` and the last answer."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except (AssertionError, KeyError, IndexError) as err:
            last = err
        else:
            if last:
                return last
        time.sleep(interval)
    pytest.fail(f"timed out waiting for {what}; last: {last}")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=30)

"""``minikube-py up`` merges its context into the user's kubeconfig, so plain ``kubectl`` works.

Every process here runs with ``HOME`` in a tmp dir and ``KUBECONFIG`` unset.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from tests.cluster import KUBECTL, Cluster, free_port, home_env, start_up

pytestmark = pytest.mark.e2e


def plain_kubectl(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """kubectl with no ``--kubeconfig`` and no ``KUBECONFIG``: it reads ``home/.kube/config``."""
    return subprocess.run([KUBECTL, *args], capture_output=True, text=True, timeout=30, env=home_env(home))


def run(tmp: Path, home: Path, port: int, *flags: str) -> Cluster:
    cluster = start_up(tmp, port, data_dir=tmp / "data", home=home, flags=flags)
    cluster.wait_ready()
    return cluster


def test_plain_kubectl_reaches_the_cluster_after_up(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cluster = run(tmp_path, home, free_port())
    try:
        result = plain_kubectl(home, "get", "ns", "-o", "name")
        assert result.returncode == 0, result.stderr
        assert "namespace/default" in result.stdout.split()
        first, *rest = cluster.stdout.read_text().splitlines()  # then the ingress controller's lines
        assert first == f"export KUBECONFIG={cluster.kubeconfig}"
        assert all(line.startswith("ingress: http") for line in rest), rest
        config = home / ".kube" / "config"
        assert f"kubeconfig merged context minikube-py into {config}" in cluster.stderr.read_text()
    finally:
        cluster.stop()


def test_a_restart_on_another_port_replaces_the_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run(tmp_path, home, free_port()).stop()
    cluster = run(tmp_path, home, free_port())
    try:
        result = plain_kubectl(home, "get", "--raw", "/readyz")
        assert (result.returncode, result.stdout) == (0, "ok"), result.stderr
        config = yaml.safe_load((home / ".kube" / "config").read_text())
        assert [c["cluster"]["server"] for c in config["clusters"]] == [cluster.url]
    finally:
        cluster.stop()


def test_no_kubeconfig_merge_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    cluster = run(tmp_path, home, free_port(), "--no-kubeconfig-merge")
    cluster.stop()
    assert list(home.iterdir()) == []
    assert not [line for line in cluster.stderr.read_text().splitlines() if line.startswith("kubeconfig ")]


def test_an_invalid_kubeconfig_is_reported_left_untouched_and_up_keeps_running(tmp_path: Path) -> None:
    config = tmp_path / "home" / ".kube" / "config"
    config.parent.mkdir(parents=True)
    config.write_text("clusters: [oops\n")
    cluster = run(tmp_path, tmp_path / "home", free_port())
    try:
        errors = [line for line in cluster.stderr.read_text().splitlines() if line.startswith("kubeconfig")]
        assert len(errors) == 1
        assert errors[0].startswith(
            f"kubeconfig error: cannot merge context minikube-py: {config}: invalid YAML"
        )
        assert config.read_text() == "clusters: [oops\n"
        assert sorted(p.name for p in config.parent.iterdir()) == ["config"]
    finally:
        cluster.stop()

"""``minikube-py dns`` refuses bad input with one line and exit code 2: an address that is not
one, an upstream that is not one, a DNS port already taken."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from minikube_py.kubeconfig import write_client_kubeconfig
from minikube_py.pki import ensure_cluster_pki
from tests.cluster import run_cli

pytestmark = pytest.mark.e2e  # starts minikube-py processes


@pytest.fixture
def kubeconfig(tmp_path: Path) -> Path:
    pki = ensure_cluster_pki(tmp_path / "pki")
    path = tmp_path / "dns.kubeconfig"
    write_client_kubeconfig(
        path, server="https://127.0.0.1:1", ca_cert=pki.ca.cert, client=pki.admin, user="x"
    )
    return path


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--listen", "127.0.0.1:port"], "argument --listen: invalid address '127.0.0.1:port'"),
        (["--upstream", "127.0.0.1:99999"], "argument --upstream: invalid address '127.0.0.1:99999'"),
    ],
)
def test_bad_flags_are_usage_errors(kubeconfig: Path, flags: list[str], message: str) -> None:
    result = run_cli("dns", "--kubeconfig", str(kubeconfig), *flags)
    assert result.returncode == 2 and message in result.stderr


def test_a_taken_port_is_one_line(kubeconfig: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        result = run_cli(
            "dns", "--kubeconfig", str(kubeconfig), "--listen", f"127.0.0.1:{port}", "--metrics-port", "0"
        )
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"minikube-py: error: cannot serve DNS on 127.0.0.1:{port}: ")
    assert "Address already in use" in line

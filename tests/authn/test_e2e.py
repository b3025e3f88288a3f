"""End to end against ``minikube-py up`` with real kubectl: ``create token`` + a bearer
request, ``auth whoami`` with the admin certificate, a bootstrap token from ``minikube-py
token create``, and a kubeconfig from ``minikube-py kubeconfig``."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster import KUBECTL, Cluster, free_port, kubectl, run_cli, start_up

pytestmark = pytest.mark.e2e
SSR = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    tmp = tmp_path_factory.mktemp("authn")
    running = start_up(tmp, free_port())
    running.wait_ready()
    yield running
    running.stop()


def whoami_with(cluster: Cluster, token: str) -> dict[str, object]:
    with cluster.client() as client:
        response = client.post(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            json=SSR,
            headers={"Authorization": f"Bearer {token}"},
        )
    assert response.status_code == 201, response.text
    info: dict[str, object] = response.json()["status"]["userInfo"]
    return info


def test_kubectl_create_token_then_bearer_is_the_service_account(cluster: Cluster) -> None:
    kubectl(cluster, "create", "serviceaccount", "default", "-n", "default")  # no controller creates it yet
    created = kubectl(cluster, "create", "token", "default", "-n", "default")
    assert created.returncode == 0, created.stderr
    info = whoami_with(cluster, created.stdout.strip())
    assert info["username"] == "system:serviceaccount:default:default"
    assert info["groups"] == [
        "system:serviceaccounts",
        "system:serviceaccounts:default",
        "system:authenticated",
    ]


def test_a_bad_bearer_token_is_401(cluster: Cluster) -> None:
    with cluster.client() as client:
        response = client.get("/api/v1/namespaces", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["reason"] == "Unauthorized"


def test_whoami_with_the_admin_certificate(cluster: Cluster) -> None:
    result = kubectl(cluster, "auth", "whoami")
    assert result.returncode == 0, result.stderr
    assert "kubernetes-admin" in result.stdout
    assert "[system:masters system:authenticated]" in result.stdout


def test_bootstrap_token_from_the_cli_authenticates(cluster: Cluster) -> None:
    created = run_cli("token", "create", "--data-dir", str(cluster.data_dir))
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    assert len(token) == 23 and token[6] == "."
    info = whoami_with(cluster, token)
    assert info["username"] == f"system:bootstrap:{token[:6]}"
    assert "system:bootstrappers:kubeadm:default-node-token" in info["groups"]  # type: ignore[operator]


def test_minted_kubeconfig_is_that_user(cluster: Cluster, tmp_path: Path) -> None:
    out = tmp_path / "alice.kubeconfig"
    minted = run_cli(
        "kubeconfig",
        "--user",
        "alice",
        "--group",
        "devs",
        "--data-dir",
        str(cluster.data_dir),
        "--out",
        str(out),
    )
    assert minted.returncode == 0, minted.stderr
    result = subprocess.run(
        [KUBECTL, "--kubeconfig", str(out), "auth", "whoami"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert "alice" in result.stdout
    assert "[devs system:authenticated]" in result.stdout


def test_component_kubeconfigs_are_written(cluster: Cluster) -> None:
    for name, user in (
        ("controller-manager", "system:kube-controller-manager"),
        ("scheduler", "system:kube-scheduler"),
    ):
        path = cluster.data_dir / f"{name}.kubeconfig"
        result = subprocess.run(
            [KUBECTL, "--kubeconfig", str(path), "auth", "whoami"], capture_output=True, text=True, timeout=30
        )
        assert result.returncode == 0, result.stderr
        assert user in result.stdout

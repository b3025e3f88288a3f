"""End to end: the apiserver with ``--authorization-mode=Node,RBAC``; real kubectl as the admin, as a minted
non-admin user (a client certificate from the cluster CA), anonymous, and impersonating."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from minikube_py.pki import (
    CertKeyPair,
    ensure_cluster_pki,
    issue_client_certificate,
    load_certificate_authority,
)
from tests.cluster import KUBECTL, Cluster, free_port, kubectl, start

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """``minikube-py apiserver --authorization-mode=Node,RBAC`` with the cluster PKI and an
    admin kubeconfig (``up`` switches RBAC on once every suite authenticates: see the README)."""
    tmp = tmp_path_factory.mktemp("rbac")
    data_dir, port = tmp / "data", free_port()
    pki = ensure_cluster_pki(data_dir / "pki")
    write_kubeconfig(
        data_dir / "admin.kubeconfig", f"https://127.0.0.1:{port}", pki.ca.cert, pki.admin, "admin"
    )
    running = start(
        "apiserver",
        "--store=memory://",
        f"--secure-port={port}",
        f"--tls-cert-file={pki.apiserver.cert}",
        f"--tls-private-key-file={pki.apiserver.key}",
        f"--client-ca-file={pki.ca.cert}",
        "--authorization-mode=Node,RBAC",
        logs=tmp / "logs",
        data_dir=data_dir,
        port=port,
    )
    running.wait_ready()
    yield running
    running.stop()


def write_kubeconfig(path: Path, server: str, ca: Path, pair: CertKeyPair, user: str) -> None:
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {{server: "{server}", certificate-authority: "{ca}"}}
users:
- name: {user}
  user: {{client-certificate: "{pair.cert}", client-key: "{pair.key}"}}
contexts:
- name: c
  context: {{cluster: c, user: {user}}}
current-context: c
"""
    )


def user_kubeconfig(cluster: Cluster, user: str, groups: tuple[str, ...] = ()) -> Path:
    """A kubeconfig for ``user`` with a client certificate the cluster CA signed."""
    pki = cluster.data_dir / "pki"
    ca = load_certificate_authority(CertKeyPair(pki / "ca.crt", pki / "ca.key"))
    certificate, key = issue_client_certificate(ca, user=user, groups=groups)
    directory = cluster.data_dir.parent / f"user-{user}"
    directory.mkdir(exist_ok=True)
    pair = CertKeyPair(directory / "client.crt", directory / "client.key")
    pair.cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    write_kubeconfig(directory / "kubeconfig", cluster.url, cluster.ca_file, pair, user)
    return directory / "kubeconfig"


def as_user(cluster: Cluster, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cache = cluster.data_dir.parent / "kube-cache-user"
    command = [KUBECTL, "--kubeconfig", str(config), "--cache-dir", str(cache), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


def test_anonymous_is_forbidden_to_list_namespaces(cluster: Cluster) -> None:
    with cluster.client() as anonymous:
        response = anonymous.get("/api/v1/namespaces")
        assert anonymous.get("/healthz").status_code == 200
    assert response.status_code == 403
    assert response.json()["message"] == (
        'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" '
        'in API group "" at the cluster scope'
    )


def test_user_forbidden_until_bound_to_edit(cluster: Cluster) -> None:
    carol = user_kubeconfig(cluster, "carol")
    result = as_user(cluster, carol, "get", "pods", "-n", "default")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'Error from server (Forbidden): pods is forbidden: User "carol" cannot list resource "pods" '
        'in API group "" in the namespace "default"'
    )
    assert kubectl(cluster, "auth", "can-i", "create", "pods", "--as", "carol").stdout.strip() == "no"
    bound = kubectl(
        cluster, "create", "rolebinding", "carol-edit", "--clusterrole=edit", "--user=carol", "-n", "default"
    )
    assert bound.returncode == 0, bound.stderr
    result = as_user(cluster, carol, "get", "pods", "-n", "default")
    assert result.returncode == 0, result.stderr
    assert as_user(cluster, carol, "auth", "can-i", "create", "pods").stdout.strip() == "yes"
    assert (
        as_user(cluster, carol, "auth", "can-i", "create", "pods", "-n", "kube-system").stdout.strip() == "no"
    )
    assert (
        kubectl(
            cluster, "auth", "can-i", "create", "deployments", "--as", "carol", "-n", "default"
        ).stdout.strip()
        == "yes"
    )
    listed = as_user(cluster, carol, "auth", "can-i", "--list", "-n", "default")
    assert listed.returncode == 0, listed.stderr
    assert (
        "deployments.apps" in listed.stdout
        and "selfsubjectaccessreviews.authorization.k8s.io" in listed.stdout
    )


def test_impersonation_shows_the_users_403(cluster: Cluster) -> None:
    result = kubectl(cluster, "--as", "dave", "get", "pods", "-n", "default")
    assert result.returncode == 1
    assert 'User "dave" cannot list resource "pods"' in result.stderr
    dave = user_kubeconfig(cluster, "dave")
    assert as_user(cluster, dave, "api-resources").returncode == 0  # discovery cached as dave himself
    result = as_user(cluster, dave, "--as", "erin", "get", "pods")
    assert result.stderr.strip() == (
        'Error from server (Forbidden): users "erin" is forbidden: User "dave" cannot impersonate resource '
        '"users" in API group "" at the cluster scope'
    )


def test_escalation_is_refused(cluster: Cluster) -> None:
    frank = user_kubeconfig(cluster, "frank")
    kubectl(cluster, "create", "namespace", "frank")
    assert (
        kubectl(
            cluster,
            "create",
            "rolebinding",
            "frank-admin",
            "--clusterrole=admin",
            "--user=frank",
            "-n",
            "frank",
        ).returncode
        == 0
    )
    ok = as_user(cluster, frank, "create", "role", "reader", "--verb=get", "--resource=pods", "-n", "frank")
    assert ok.returncode == 0, ok.stderr
    refused = as_user(
        cluster, frank, "create", "role", "nodes", "--verb=get", "--resource=nodes", "-n", "frank"
    )
    assert refused.returncode == 1
    assert "is attempting to grant RBAC permissions not currently held" in refused.stderr
    refused = as_user(
        cluster,
        frank,
        "create",
        "rolebinding",
        "root",
        "--clusterrole=cluster-admin",
        "--user=frank",
        "-n",
        "frank",
    )
    assert refused.returncode == 1
    assert 'rolebindings.rbac.authorization.k8s.io "root" is forbidden' in refused.stderr

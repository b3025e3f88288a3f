"""Kubeconfig loading: the data and file variants, named contexts, tokens, and clear errors;
the loaded TLS material is proven by a real handshake (the server sees the admin identity)."""

from __future__ import annotations

import base64
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from minikube_py.client import ClientConfig, ConnectionFailure, KubeconfigError, RESTClient, load_kubeconfig
from minikube_py.jsonutil import dumps
from minikube_py.pki import ClusterPKI, ensure_cluster_pki
from tests.client.apiserver import RunningApiserver

REVIEW = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
REVIEWS = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


def b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def kubeconfig(
    clusters: list[dict[str, Any]],
    users: list[dict[str, Any]],
    contexts: list[dict[str, Any]],
    current: str | None = "main",
) -> dict[str, Any]:
    doc: dict[str, Any] = {"apiVersion": "v1", "kind": "Config", "clusters": clusters, "users": users}
    doc["contexts"] = contexts
    if current is not None:
        doc["current-context"] = current
    return doc


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(doc))
    return path


def context(name: str, cluster: str, user: str) -> dict[str, Any]:
    return {"name": name, "context": {"cluster": cluster, "user": user}}


async def whoami(rest: RESTClient) -> str:
    review = await rest.request("POST", REVIEWS, body=dumps(REVIEW), content_type="application/json")
    return str(review["status"]["userInfo"]["username"])


def test_data_variant_is_decoded(apiserver: RunningApiserver) -> None:
    config = load_kubeconfig(apiserver.kubeconfig)
    assert config.server == apiserver.url
    assert config.ca_data == apiserver.pki.ca.cert.read_bytes()
    assert config.cert_data == apiserver.pki.admin.cert.read_bytes()
    assert config.key_data == apiserver.pki.admin.key.read_bytes()
    assert config.ca_file is None and config.cert_file is None and config.token is None
    assert "PRIVATE KEY" not in repr(config)  # secrets stay out of logs


async def test_data_variant_presents_the_client_certificate(apiserver: RunningApiserver) -> None:
    async with RESTClient.from_kubeconfig(apiserver.kubeconfig) as rest:
        assert await whoami(rest) == "kubernetes-admin"


async def test_file_variant_resolves_relative_paths(apiserver: RunningApiserver, tmp_path: Path) -> None:
    conf_dir = tmp_path / "conf"
    (conf_dir / "certs").mkdir(parents=True)
    pki = apiserver.pki
    for src, name in ((pki.ca.cert, "ca.crt"), (pki.admin.cert, "admin.crt"), (pki.admin.key, "admin.key")):
        shutil.copy(src, conf_dir / "certs" / name)
    path = write(
        conf_dir / "config",
        kubeconfig(
            [{"name": "c", "cluster": {"server": apiserver.url, "certificate-authority": "certs/ca.crt"}}],
            [
                {
                    "name": "u",
                    "user": {"client-certificate": "certs/admin.crt", "client-key": "certs/admin.key"},
                }
            ],
            [context("main", "c", "u")],
        ),
    )
    config = load_kubeconfig(path)
    assert config.ca_file == conf_dir / "certs" / "ca.crt"
    assert config.cert_file == conf_dir / "certs" / "admin.crt"
    assert config.key_file == conf_dir / "certs" / "admin.key"
    async with RESTClient(config) as rest:
        assert await whoami(rest) == "kubernetes-admin"


async def test_without_client_certificate_the_request_is_anonymous(
    apiserver: RunningApiserver, tmp_path: Path
) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(
            [
                {
                    "name": "c",
                    "cluster": {
                        "server": apiserver.url,
                        "certificate-authority-data": b64(apiserver.pki.ca.cert),
                    },
                }
            ],
            [{"name": "u", "user": {}}],
            [context("main", "c", "u")],
        ),
    )
    async with RESTClient.from_kubeconfig(path) as rest:
        assert await whoami(rest) == "system:anonymous"


async def test_an_unknown_ca_fails_the_handshake(apiserver: RunningApiserver, tmp_path: Path) -> None:
    other = ensure_cluster_pki(tmp_path / "other")
    async with RESTClient(ClientConfig(server=apiserver.url, ca_file=other.ca.cert)) as rest:
        with pytest.raises(ConnectionFailure, match="CERTIFICATE_VERIFY_FAILED"):
            await rest.request("GET", "/version")


def test_named_context_and_overrides(tmp_path: Path, cluster_pki: ClusterPKI) -> None:
    ca = b64(cluster_pki.ca.cert)
    path = write(
        tmp_path / "config",
        kubeconfig(
            [
                {"name": "one", "cluster": {"server": "https://one:6443", "certificate-authority-data": ca}},
                {"name": "two", "cluster": {"server": "https://two:6443/", "insecure-skip-tls-verify": True}},
            ],
            [
                {"name": "alice", "user": {"token": "alice-token"}},
                {"name": "bob", "user": {"tokenFile": "bob.token"}},
            ],
            [context("main", "one", "alice"), context("other", "two", "bob")],
        ),
    )
    (tmp_path / "bob.token").write_text("bob-token\n")
    main = load_kubeconfig(path)
    assert (main.server, main.token, main.ca_data) == (
        "https://one:6443",
        "alice-token",
        cluster_pki.ca.cert.read_bytes(),
    )
    other = load_kubeconfig(path, context="other")
    assert (other.server, other.token, other.insecure_skip_tls_verify) == (
        "https://two:6443",
        "bob-token",
        True,
    )
    assert "alice-token" not in repr(main)
    rest = RESTClient.from_kubeconfig(path, context="other", qps=7.0, burst=9, user_agent="agent/1")
    assert (rest.config.qps, rest.config.burst, rest.config.user_agent) == (7.0, 9, "agent/1")


def test_defaults() -> None:
    config = ClientConfig(server="https://x")
    assert (config.qps, config.burst) == (50.0, 100)
    assert config.user_agent.startswith("minikube-py/")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("clusters: [", "invalid YAML at line"),
        ("- a\n- b\n", "not a mapping"),
        (yaml.safe_dump(kubeconfig([], [], [], current=None)), "current-context is not set"),
        (yaml.safe_dump(kubeconfig([], [], [context("x", "c", "u")])), 'context "main" not found'),
        (
            yaml.safe_dump(kubeconfig([], [], [context("main", "c", "")])),
            'cluster "c" of context "main" not found',
        ),
        (
            yaml.safe_dump(
                kubeconfig(
                    [{"name": "c", "cluster": {"server": "https://x"}}], [], [context("main", "c", "u")]
                )
            ),
            'user "u" of context "main" not found',
        ),
        (
            yaml.safe_dump(kubeconfig([{"name": "c", "cluster": {}}], [], [context("main", "c", "")])),
            'cluster "c" has no server',
        ),
        (
            yaml.safe_dump(
                kubeconfig(
                    [
                        {
                            "name": "c",
                            "cluster": {"server": "https://x", "certificate-authority-data": "not base64!"},
                        }
                    ],
                    [],
                    [context("main", "c", "")],
                )
            ),
            "certificate-authority-data is not valid base64",
        ),
    ],
)
def test_bad_kubeconfig_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "config"
    path.write_text(content)
    with pytest.raises(KubeconfigError, match=message) as err:
        load_kubeconfig(path)
    assert str(err.value).startswith(f"{path}: ")
    assert "\n" not in str(err.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(KubeconfigError, match=r"no such file or directory"):
        load_kubeconfig(tmp_path / "absent")


def test_unloadable_certificate_is_a_clear_error(tmp_path: Path, cluster_pki: ClusterPKI) -> None:
    bad = ClientConfig(server="https://x", cert_data=b"garbage", key_data=cluster_pki.admin.key.read_bytes())
    with pytest.raises(KubeconfigError, match="cannot load the client certificate and key"):
        bad.ssl_context()
    with pytest.raises(KubeconfigError, match="needs both a certificate and a key"):
        ClientConfig(server="https://x", cert_data=b"x").ssl_context()
    with pytest.raises(KubeconfigError, match="cannot load the certificate authority"):
        ClientConfig(server="https://x", ca_file=tmp_path / "absent.crt").ssl_context()


def test_inline_key_material_is_not_left_on_disk(
    tmp_path: Path, cluster_pki: ClusterPKI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where a fallback temp file would go
    config = ClientConfig(
        server="https://x",
        cert_data=cluster_pki.admin.cert.read_bytes(),
        key_data=cluster_pki.admin.key.read_bytes(),
    )
    config.ssl_context()
    assert list(tmp_path.iterdir()) == []

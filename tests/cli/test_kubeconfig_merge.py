"""Merging the ``minikube-py`` context into the user's kubeconfig, checked with real kubectl.

Every test works in its own tmp dir: HOME and KUBECONFIG are passed explicitly and never
read from this process's environment.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from minikube_py.kubeconfig import KubeconfigError, default_kubeconfig_path, merge_kubeconfig
from minikube_py.pki import ClusterPKI, ensure_cluster_pki
from tests.cluster import KUBECTL

SERVER = "https://127.0.0.1:6443"

OTHERS = """\
apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://prod.example.com
    insecure-skip-tls-verify: true
users:
- name: alice
  user:
    token: s3cret
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: get-token
      args: [--cluster, prod]
contexts:
- name: prod
  context:
    cluster: prod
    user: alice
    namespace: shop
current-context: prod
preferences:
  colors: true
x-team-notes:
  owner: platform
"""


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> ClusterPKI:
    return ensure_cluster_pki(tmp_path_factory.mktemp("pki"))


def merge(pki: ClusterPKI, path: Path, server: str = SERVER) -> bool:
    return merge_kubeconfig(path, server=server, ca_cert=pki.ca.cert, client=pki.admin)


def load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text())
    return loaded


def named(config: dict[str, Any], section: str, name: str) -> list[dict[str, Any]]:
    return [entry for entry in config[section] if entry["name"] == name]


def kubectl_config(home: Path, kubeconfig: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    """``kubectl config ...`` with ``HOME=home`` and ``KUBECONFIG`` as given (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | {"HOME": str(home)}
    if kubeconfig is not None:
        env["KUBECONFIG"] = kubeconfig
    return subprocess.run([KUBECTL, "config", *args], capture_output=True, text=True, env=env, timeout=30)


@pytest.mark.e2e
def test_merge_into_a_missing_file_creates_it_private(pki: ClusterPKI, tmp_path: Path) -> None:
    path = default_kubeconfig_path({"HOME": str(tmp_path)})
    assert path == tmp_path / ".kube" / "config"

    assert merge(pki, path) is True

    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["config"]  # no temp or lock file left
    view = json.loads(kubectl_config(tmp_path, None, "view", "--raw", "-o", "json").stdout)
    assert view["current-context"] == "minikube-py"
    assert view["contexts"] == [
        {"name": "minikube-py", "context": {"cluster": "minikube-py", "user": "minikube-py"}}
    ]
    cluster = view["clusters"][0]["cluster"]
    assert cluster["server"] == SERVER
    assert base64.b64decode(cluster["certificate-authority-data"]) == pki.ca.cert.read_bytes()
    user = view["users"][0]["user"]
    assert base64.b64decode(user["client-certificate-data"]) == pki.admin.cert.read_bytes()
    assert base64.b64decode(user["client-key-data"]) == pki.admin.key.read_bytes()


@pytest.mark.e2e
def test_merge_keeps_other_entries_and_keys_and_switches_current_context(
    pki: ClusterPKI, tmp_path: Path
) -> None:
    path = tmp_path / "config"
    path.write_text(OTHERS)
    path.chmod(0o640)

    assert merge(pki, path) is True

    before, after = yaml.safe_load(OTHERS), load(path)
    assert after["current-context"] == "minikube-py"
    for section, other in [("clusters", "prod"), ("users", "alice"), ("contexts", "prod")]:
        assert after[section][0] == before[section][0]
        assert [entry["name"] for entry in after[section]] == [other, "minikube-py"]
    assert after["preferences"] == {"colors": True}
    assert after["x-team-notes"] == {"owner": "platform"}
    assert list(after) == list(before)  # key order kept too
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    contexts = kubectl_config(tmp_path, str(path), "get-contexts", "-o", "name").stdout.split()
    assert contexts == ["minikube-py", "prod"]


def test_merging_again_changes_nothing(pki: ClusterPKI, tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text(OTHERS)
    merge(pki, path)
    first, inode = path.read_bytes(), path.stat().st_ino

    assert merge(pki, path) is False

    assert path.read_bytes() == first
    assert path.stat().st_ino == inode  # not even rewritten
    assert len(named(load(path), "clusters", "minikube-py")) == 1


def test_a_new_port_replaces_the_whole_stale_entry(pki: ClusterPKI, tmp_path: Path) -> None:
    path = tmp_path / "config"
    stale = {"name": "minikube-py", "context": {"cluster": "old", "user": "old", "namespace": "x"}}
    config = yaml.safe_load(OTHERS)
    config["contexts"] += [stale, stale]  # duplicates, which client-go refuses to load
    path.write_text(yaml.safe_dump(config))
    merge(pki, path, server="https://127.0.0.1:6443")

    assert merge(pki, path, server="https://127.0.0.1:7443") is True

    after = load(path)
    assert [c["cluster"]["server"] for c in named(after, "clusters", "minikube-py")] == [
        "https://127.0.0.1:7443"
    ]
    assert named(after, "contexts", "minikube-py") == [
        {"name": "minikube-py", "context": {"cluster": "minikube-py", "user": "minikube-py"}}
    ]
    assert [entry["name"] for entry in after["contexts"]] == ["prod", "minikube-py"]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("clusters: [\n  - name: a\n users: b\n", "invalid YAML at line 2"),
        ("- just\n- a list\n", "not a kubeconfig: the document is a list"),
        ("apiVersion: v1\nkind: Pod\n", "kind is 'Pod'"),
        ("kind: Config\nclusters: prod\n", "clusters is not a list"),
        ("kind: Config\n---\nkind: Config\n", "invalid YAML"),
    ],
    ids=["broken YAML", "a list", "another kind", "clusters not a list", "two documents"],
)
def test_an_invalid_file_is_an_error_and_left_untouched(
    pki: ClusterPKI, tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "config"
    path.write_text(content)

    with pytest.raises(KubeconfigError) as raised:
        merge(pki, path)

    message = str(raised.value)
    assert says in message and str(path) in message and "\n" not in message
    assert path.read_text() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config"]


def test_an_unreadable_target_is_an_error(pki: ClusterPKI, tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.mkdir()
    with pytest.raises(KubeconfigError, match="is a directory"):
        merge(pki, path)
    assert list(path.iterdir()) == []


def test_a_kubectl_lock_is_respected(pki: ClusterPKI, tmp_path: Path) -> None:
    path, lock = tmp_path / "config", tmp_path / "config.lock"
    path.write_text(OTHERS)
    lock.touch()
    with pytest.raises(KubeconfigError, match="locked by"):
        merge(pki, path)
    assert path.read_text() == OTHERS
    assert lock.exists()  # someone else's lock is not ours to remove


def test_a_symlinked_kubeconfig_is_written_through_the_link(pki: ClusterPKI, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "kubeconfig"
    real.parent.mkdir()
    real.write_text(OTHERS)
    link = tmp_path / ".kube" / "config"
    link.parent.mkdir()
    link.symlink_to(real)

    merge(pki, link)

    assert link.is_symlink()
    assert load(real)["current-context"] == "minikube-py"


@pytest.mark.parametrize(
    ("kubeconfig", "existing", "target"),
    [
        (None, [], "home/.kube/config"),
        ("", [], "home/.kube/config"),
        ("a", [], "a"),
        ("a:b:c", [], "c"),
        ("a:b:c", ["c", "b"], "b"),
        ("a:b:c", ["a", "c"], "a"),
        ("::b:b:a", [], "a"),
        ("a:a", [], "a"),
    ],
    ids=[
        "unset",
        "empty",
        "one path",
        "none exists",
        "first existing",
        "first exists",
        "empty entries",
        "dup",
    ],
)
@pytest.mark.e2e
def test_the_target_is_the_file_kubectl_writes_to(
    tmp_path: Path, kubeconfig: str | None, existing: list[str], target: str
) -> None:
    """client-go's GetDefaultFilename: ``kubectl config set-context`` writes there too."""
    home = tmp_path / "home"
    home.mkdir()
    for name in existing:
        (tmp_path / name).write_text("")
    environ = {"HOME": str(home)}
    if kubeconfig is not None:
        environ["KUBECONFIG"] = ":".join(str(tmp_path / p) if p else "" for p in kubeconfig.split(":"))

    assert default_kubeconfig_path(environ) == tmp_path / target

    result = kubectl_config(home, environ.get("KUBECONFIG"), "set-context", "probe")
    assert result.returncode == 0, result.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "probe" in p.read_text()]
    assert written == [tmp_path / target]


@pytest.mark.e2e
def test_with_several_paths_kubectl_sees_the_merged_context_and_the_others(
    pki: ClusterPKI, tmp_path: Path
) -> None:
    first, second, third = tmp_path / "missing", tmp_path / "mine", tmp_path / "team"
    second.write_text("")
    third.write_text(OTHERS)
    kubeconfig = os.pathsep.join(map(str, [first, second, third]))
    path = default_kubeconfig_path({"HOME": str(tmp_path), "KUBECONFIG": kubeconfig})
    assert path == second

    merge(pki, path)

    assert not first.exists()
    assert third.read_text() == OTHERS
    assert kubectl_config(tmp_path, kubeconfig, "current-context").stdout == "minikube-py\n"
    contexts = kubectl_config(tmp_path, kubeconfig, "get-contexts", "-o", "name").stdout.split()
    assert contexts == ["minikube-py", "prod"]

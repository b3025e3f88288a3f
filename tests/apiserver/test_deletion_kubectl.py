"""``kubectl delete`` with cascading options and of namespaces, against a real cluster process.

The apiserver's side alone: ``up --controllers=`` runs no controllers (no garbage collector,
no namespace controller), so objects stay marked; the tests then play the controllers' last
step (remove the finalizer, finalize the namespace) and check that this removes them. With
the controllers: tests/controllers/e2e."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import KUBECTL, Cluster, kubectl, running_up

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("deletion"), flags=["--controllers="])


def ok(cluster: Cluster, *args: str) -> str:
    result = kubectl(cluster, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def get_json(cluster: Cluster, *args: str) -> dict[str, Any]:
    return json.loads(ok(cluster, "get", *args, "-o", "json"))  # type: ignore[no-any-return]


def kubectl_stdin(cluster: Cluster, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    cache = cluster.data_dir.parent / "kube-cache"
    command = [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "--cache-dir", str(cache), *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=30)


def absent(cluster: Cluster, *args: str) -> bool:
    result = kubectl(cluster, "get", *args)
    return result.returncode != 0 and "NotFound" in result.stderr


@pytest.mark.parametrize(
    ("cascade", "finalizer"), [("foreground", "foregroundDeletion"), ("orphan", "orphan")]
)
def test_cascade_leaves_the_deployment_marked_with_its_finalizer(
    cluster: Cluster, cascade: str, finalizer: str
) -> None:
    name = f"casc-{cascade}"
    ok(cluster, "create", "deployment", name, "--image=nginx")
    out = ok(cluster, "delete", "deployment", name, f"--cascade={cascade}", "--wait=false")
    assert out.strip() == f'deployment.apps "{name}" deleted'
    meta = get_json(cluster, "deployment", name)["metadata"]
    assert meta["finalizers"] == [finalizer]
    assert meta["deletionTimestamp"] and meta["deletionGracePeriodSeconds"] == 0
    # what the garbage collector does when it is done: drop its finalizer; that removes the object
    ok(
        cluster,
        "patch",
        "deployment",
        name,
        "--type=json",
        "-p",
        '[{"op":"remove","path":"/metadata/finalizers"}]',
    )
    assert absent(cluster, "deployment", name)


def test_default_cascade_deletes_the_deployment_at_once(cluster: Cluster) -> None:
    ok(cluster, "create", "deployment", "casc-bg", "--image=nginx")
    ok(cluster, "delete", "deployment", "casc-bg", "--timeout=10s")  # waits until it is gone
    assert absent(cluster, "deployment", "casc-bg")


def test_deleted_namespace_shows_terminating_until_finalized(cluster: Cluster) -> None:
    ok(cluster, "create", "namespace", "going")
    out = ok(cluster, "delete", "namespace", "going", "--wait=false")
    assert out.strip() == 'namespace "going" deleted'
    rows = {line.split()[0]: line.split()[1] for line in ok(cluster, "get", "ns").splitlines()[1:]}
    assert rows["going"] == "Terminating" and rows["default"] == "Active"
    refused = kubectl(cluster, "create", "configmap", "late", "-n", "going")
    assert refused.returncode != 0
    assert "because it is being terminated" in refused.stderr
    # what the namespace controller does once the namespace is empty: finalize it
    ns = get_json(cluster, "namespace", "going")
    ns["spec"]["finalizers"] = []
    result = kubectl_stdin(
        cluster, json.dumps(ns), "replace", "--raw", "/api/v1/namespaces/going/finalize", "-f", "-"
    )
    assert result.returncode == 0, result.stderr
    assert absent(cluster, "namespace", "going")

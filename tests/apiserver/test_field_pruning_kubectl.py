"""Unknown fields through real kubectl: ``--validate=false`` (Ignore) and ``--validate=warn``
(Warn) writes succeed and store nothing unknown; server-side apply refuses them as upstream."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import KUBECTL, Cluster, running_up

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("pruning"))


def kubectl(cluster: Cluster, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=30)


def manifest(name: str, image: str, **unknown: Any) -> str:
    container = {"name": "c", "image": image, **unknown}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"containers": [container], "bogusSpec": True},
    }
    return json.dumps(pod)


def stored(cluster: Cluster, name: str) -> dict[str, Any]:
    got = kubectl(cluster, "get", "pod", name, "-o", "json")
    assert got.returncode == 0, got.stderr
    obj: dict[str, Any] = json.loads(got.stdout)
    return obj


@pytest.mark.parametrize("validate", ["false", "warn"])
def test_client_side_apply_stores_no_unknown_field(cluster: Cluster, validate: str, tmp_path: Path) -> None:
    name = f"prune-{validate}"
    created = kubectl(
        cluster, "apply", f"--validate={validate}", "-f", "-", stdin=manifest(name, "nginx", imagee="x")
    )
    assert created.returncode == 0, created.stderr
    warned = 'unknown field "spec.containers[0].imagee"' in created.stderr
    assert warned == (validate == "warn")
    obj = stored(cluster, name)
    assert "bogusSpec" not in obj["spec"] and "imagee" not in obj["spec"]["containers"][0]
    assert obj["spec"]["containers"][0]["image"] == "nginx"

    changed = manifest(name, "nginx:1.27", imagePullPolicyy="Never")  # an update: a strategic patch
    patched = kubectl(cluster, "apply", f"--validate={validate}", "-f", "-", stdin=changed)
    assert patched.returncode == 0, patched.stderr
    container = stored(cluster, name)["spec"]["containers"][0]
    assert container["image"] == "nginx:1.27" and "imagePullPolicyy" not in container


def test_server_side_apply_refuses_undeclared_fields(cluster: Cluster) -> None:
    body = manifest("prune-ssa", "nginx", imagee="x")
    refused = kubectl(cluster, "apply", "--server-side", "--validate=false", "-f", "-", stdin=body)
    assert refused.returncode != 0
    assert "failed to create typed patch object (default/prune-ssa; /v1, Kind=Pod)" in refused.stderr
    assert '.spec.containers[name="c"].imagee: field not declared in schema' in refused.stderr
    missing = kubectl(cluster, "get", "pod", "prune-ssa")
    assert missing.returncode != 0 and "NotFound" in missing.stderr

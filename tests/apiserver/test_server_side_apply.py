"""``kubectl apply --server-side`` against a running minikube-py (kubectl 1.27, default, 1.33)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import KUBECTL, KUBECTL_DIR, Cluster, running_up

pytestmark = pytest.mark.e2e

VERSIONS = {
    "1.27": str(KUBECTL_DIR / "kubectl.1.27"),
    "1.32": KUBECTL,
    "1.33": str(KUBECTL_DIR / "kubectl.1.33"),
}
Kubectl = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("ssa"))


@pytest.fixture(params=list(VERSIONS))
def version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def k(cluster: Cluster, version: str) -> Kubectl:
    binary = VERSIONS[version]
    assert Path(binary).exists() or binary == KUBECTL, f"{binary} must ship beside kubectl"
    cache = cluster.data_dir.parent / f"kube-cache-{version}"

    def run(
        *args: str, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        command = [binary, "--kubeconfig", str(cluster.kubeconfig), "--cache-dir", str(cache), *args]
        environment = {**os.environ, **(env or {})}
        return subprocess.run(
            command, input=stdin, capture_output=True, text=True, timeout=30, env=environment
        )

    return run


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def deployment(name: str, image: str = "nginx:1.27", replicas: int = 2, **extra: Any) -> str:
    container: dict[str, Any] = {"name": "web", "image": image, **extra}
    return json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "labels": {"app": name}},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
            },
        }
    )


def get(k: Kubectl, name: str) -> dict[str, Any]:
    return dict(json.loads(ok(k("get", "deploy", name, "-o", "json", "--show-managed-fields"))))


def entries(obj: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(e["manager"], e["operation"]): e for e in obj["metadata"]["managedFields"]}


def name_for(version: str, what: str) -> str:
    return f"{what}-{version.replace('.', '-')}"


def test_apply_creates_updates_and_records_the_manager(k: Kubectl, version: str) -> None:
    name = name_for(version, "ssa")
    assert "serverside-applied" in ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name)))
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name, "nginx:1.28")))
    got = get(k, name)
    assert got["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert got["metadata"]["generation"] == 2
    entry = entries(got)[("kubectl", "Apply")]
    assert entry["apiVersion"] == "apps/v1" and entry["fieldsType"] == "FieldsV1"
    container = entry["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"web"}']
    assert container == {".": {}, "f:image": {}, "f:name": {}}
    assert "managedFields" not in json.loads(ok(k("get", "deploy", name, "-o", "json")))["metadata"]
    ok(k("delete", "deploy", name))


def test_a_conflicting_apply_fails_unless_forced(k: Kubectl, version: str) -> None:
    name = name_for(version, "conflict")
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name)))
    other = deployment(name, "nginx:1.29")
    refused = k("apply", "--server-side", "--field-manager=other", "-f", "-", stdin=other)
    assert refused.returncode != 0
    image = '.spec.template.spec.containers[name="web"].image'
    assert f'Apply failed with 1 conflict: conflict with "kubectl": {image}' in refused.stderr
    assert "--force-conflicts" in refused.stderr
    ok(k("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-", stdin=other))
    got = get(k, name)
    assert got["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.29"
    kubectl = entries(got)[("kubectl", "Apply")]["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert kubectl['k:{"name":"web"}'] == {".": {}, "f:name": {}}  # the image went to "other"
    ok(k("delete", "deploy", name))


def test_server_dry_run_persists_nothing(k: Kubectl, version: str) -> None:
    name = name_for(version, "dry")
    out = ok(k("apply", "--server-side", "--dry-run=server", "-f", "-", stdin=deployment(name)))
    assert "(server dry run)" in out
    missing = k("get", "deploy", name)
    assert missing.returncode != 0 and "not found" in missing.stderr
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name)))
    ok(k("apply", "--server-side", "--dry-run=server", "-f", "-", stdin=deployment(name, "nginx:9")))
    assert get(k, name)["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    ok(k("delete", "deploy", name))


def test_fields_removed_from_the_manifest_are_removed(k: Kubectl, version: str) -> None:
    name = name_for(version, "prune")
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name, env=env, workingDir="/srv")))
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name, env=env[:1])))
    (container,) = get(k, name)["spec"]["template"]["spec"]["containers"]
    assert container["env"] == [{"name": "A", "value": "1"}]
    assert "workingDir" not in container
    ok(k("delete", "deploy", name))


def test_apply_conflicts_with_edit_and_scale(k: Kubectl, version: str) -> None:
    name = name_for(version, "edited")
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name)))
    ok(k("edit", "deploy", name, env={"KUBE_EDITOR": "sed -i -e 's/replicas: 2/replicas: 4/'"}))
    assert get(k, name)["spec"]["replicas"] == 4
    refused = k("apply", "--server-side", "-f", "-", stdin=deployment(name))
    assert 'conflict with "kubectl-edit" using apps/v1: .spec.replicas' in refused.stderr
    ok(k("apply", "--server-side", "--force-conflicts", "-f", "-", stdin=deployment(name)))
    ok(k("scale", "deploy", name, "--replicas=5"))
    refused = k("apply", "--server-side", "-f", "-", stdin=deployment(name))
    assert 'with subresource "scale" using apps/v1: .spec.replicas' in refused.stderr
    # the same value is no conflict: co-ownership
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name, replicas=5)))
    ok(k("delete", "deploy", name))


def test_client_side_apply_upgrades_to_server_side_without_conflicts(k: Kubectl, version: str) -> None:
    name = name_for(version, "upgrade")
    ok(k("apply", "-f", "-", stdin=deployment(name)))
    assert ("kubectl-client-side-apply", "Update") in entries(get(k, name))
    ok(k("apply", "--server-side", "-f", "-", stdin=deployment(name, "nginx:1.28")))
    got = get(k, name)
    assert got["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert ("kubectl", "Apply") in entries(got)
    last = json.loads(got["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert last["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    ok(k("delete", "deploy", name))

"""``kubectl explain`` from the generated OpenAPI v3 schemas, and server-side field validation
through kubectl's ``--validate=strict|warn|ignore`` (1.27, the default 1.32, 1.33)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import KUBECTL, KUBECTL_DIR, KUBECTL_MINORS, Cluster, running_up

pytestmark = pytest.mark.e2e

VERSIONS = {
    "1.27": str(KUBECTL_DIR / "kubectl.1.27"),
    "1.32": KUBECTL,
    "1.33": str(KUBECTL_DIR / "kubectl.1.33"),
}


@dataclass
class Kubectl:
    """One kubectl binary against the cluster, with its own discovery and OpenAPI cache."""

    cluster: Cluster
    version: str

    def __call__(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        cache = self.cluster.data_dir.parent / f"kube-cache-{self.version}"
        command = [
            VERSIONS.get(self.version) or str(KUBECTL_DIR / f"kubectl.{self.version}"),
            "--kubeconfig",
            str(self.cluster.kubeconfig),
            "--cache-dir",
            str(cache),
        ]
        return subprocess.run([*command, *args], input=stdin, capture_output=True, text=True, timeout=30)

    def ok(self, *args: str, stdin: str | None = None) -> str:
        result = self(*args, stdin=stdin)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def name(self, prefix: str) -> str:
        return f"{prefix}-{self.version.replace('.', '-')}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("explain"))


@pytest.fixture(params=list(VERSIONS))
def kubectl(request: pytest.FixtureRequest, cluster: Cluster) -> Kubectl:
    assert Path(VERSIONS[request.param]).exists() or request.param == "1.32"
    return Kubectl(cluster, request.param)


def test_explain_field_of_a_field(kubectl: Kubectl) -> None:
    out = kubectl.ok("explain", "deployment.spec.strategy")
    assert "GROUP:      apps" in out and "KIND:       Deployment" in out and "VERSION:    v1" in out
    assert "FIELD: strategy <DeploymentStrategy>" in out
    assert "The deployment strategy to use to replace existing pods with new ones." in out
    assert "  rollingUpdate\t<RollingUpdateDeployment>" in out
    assert "  type\t<string>" in out


def test_explain_scalar_field(kubectl: Kubectl) -> None:
    out = kubectl.ok("explain", "pod.spec.containers.image")
    assert "KIND:       Pod" in out and "FIELD: image <string>" in out
    assert "Container image name." in out


def test_explain_kind(kubectl: Kubectl) -> None:
    out = kubectl.ok("explain", "configmap")
    assert "KIND:       ConfigMap" in out and "Configuration data for pods to consume." in out
    for field in (
        "apiVersion\t<string>",
        "data\t<map[string]string>",
        "immutable\t<boolean>",
        "metadata\t<ObjectMeta>",
    ):
        assert f"  {field}" in out


def test_explain_maps_of_quantities_lists_and_recursive(kubectl: Kubectl) -> None:
    assert "  limits\t<map[string]Quantity>" in kubectl.ok("explain", "pods.spec.containers.resources")
    assert "FIELD: containers <[]Container>" in kubectl.ok("explain", "deploy.spec.template.spec.containers")
    recursive = kubectl.ok("explain", "deployments.spec", "--recursive")
    assert "  strategy\t<DeploymentStrategy>\n    rollingUpdate\t<RollingUpdateDeployment>" in recursive


def test_explain_unknown_field_fails(kubectl: Kubectl) -> None:
    result = kubectl("explain", "deployment.spec.nope")
    assert result.returncode != 0 and 'field "nope" does not exist' in result.stderr


def deployment(name: str, **extra_spec: Any) -> str:
    container: dict[str, Any] = {"name": "c", "image": "nginx", "imagee": "typo"}
    return json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
                **extra_spec,
            },
        }
    )


def test_strict_create_fails_with_upstream_message(kubectl: Kubectl) -> None:
    name = kubectl.name("strict")
    result = kubectl("create", "-f", "-", stdin=deployment(name, foo="bar"))
    assert result.returncode != 0
    assert (
        'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be '
        'handled as a Deployment: strict decoding error: unknown field "spec.foo", '
        'unknown field "spec.template.spec.containers[0].imagee"'
    ) in result.stderr
    assert kubectl("get", "deployment", name).returncode != 0


def test_warn_creates_and_prints_one_warning_per_field(kubectl: Kubectl) -> None:
    name = kubectl.name("warn")
    result = kubectl("create", "-f", "-", "--validate=warn", stdin=deployment(name, foo="bar"))
    assert result.returncode == 0, result.stderr
    assert 'Warning: unknown field "spec.foo"' in result.stderr
    assert 'Warning: unknown field "spec.template.spec.containers[0].imagee"' in result.stderr
    kubectl.ok("delete", "deployment", name)


def test_ignore_creates_silently(kubectl: Kubectl) -> None:
    name = kubectl.name("ignore")
    result = kubectl("create", "-f", "-", "--validate=ignore", stdin=deployment(name, foo="bar"))
    assert result.returncode == 0, result.stderr
    assert "unknown field" not in result.stderr
    kubectl.ok("delete", "deployment", name)


def test_strict_apply_of_an_existing_object_checks_the_patch(kubectl: Kubectl) -> None:
    name = kubectl.name("apply")
    good = json.loads(deployment(name))
    del good["spec"]["template"]["spec"]["containers"][0]["imagee"]
    kubectl.ok("apply", "-f", "-", stdin=json.dumps(good))
    good["spec"]["replicas"] = 2
    good["spec"]["bogus"] = 1
    result = kubectl("apply", "-f", "-", stdin=json.dumps(good))
    assert result.returncode != 0
    assert "patch: Invalid value:" in result.stderr
    assert 'strict decoding error: unknown field "spec.bogus"' in result.stderr
    assert kubectl.ok("get", "deployment", name, "-o", "jsonpath={.spec.replicas}") == "1"
    kubectl.ok("delete", "deployment", name)


ALL_VERSIONS = [f"1.{minor}" for minor in KUBECTL_MINORS]


@pytest.fixture(params=ALL_VERSIONS)
def any_kubectl(request: pytest.FixtureRequest, cluster: Cluster) -> Kubectl:
    """Every kubectl beside the one on PATH (1.27 ... 1.33)."""
    binary = KUBECTL_DIR / f"kubectl.{request.param}"
    assert binary.exists(), binary
    return Kubectl(cluster, request.param)


def test_explain_from_openapi_v2(any_kubectl: Kubectl) -> None:
    """``--output=plaintext-openapiv2`` parses the protobuf ``/openapi/v2`` document."""
    out = any_kubectl.ok("explain", "pods.spec.containers.resources", "--output=plaintext-openapiv2")
    assert "KIND:     Pod" in out and "RESOURCE: resources <Object>" in out
    assert "limits\t<map[string]string>" in out


def test_apply_merges_lists_by_their_keys(any_kubectl: Kubectl) -> None:
    """Client-side apply of a changed manifest: kubectl computes the three-way strategic merge
    patch from the served schemas' patch strategies (v3 on >= 1.28, v2 on 1.27), so a list
    item another manager added survives, and items removed from the manifest are removed."""
    name = any_kubectl.name("merge")

    def manifest(image: str, env: list[dict[str, str]], ports: list[int]) -> str:
        container = {"name": "a", "image": image, "env": env, "ports": [{"containerPort": p} for p in ports]}
        return json.dumps(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": name},
                "spec": {
                    "selector": {"matchLabels": {"app": name}},
                    "template": {
                        "metadata": {"labels": {"app": name}},
                        "spec": {"containers": [container, {"name": "b", "image": "busybox"}]},
                    },
                },
            }
        )

    first = manifest("nginx", [{"name": "KEEP", "value": "1"}, {"name": "DROP", "value": "2"}], [80])
    any_kubectl.ok("apply", "-f", "-", stdin=first)
    live = {
        "spec": {
            "template": {"spec": {"containers": [{"name": "b", "env": [{"name": "LIVE", "value": "x"}]}]}}
        }
    }
    any_kubectl.ok("patch", "deployment", name, "--type=strategic", "-p", json.dumps(live))
    second = manifest("nginx:2", [{"name": "KEEP", "value": "3"}], [80, 81])
    result = any_kubectl("apply", "-f", "-", stdin=second)
    assert result.returncode == 0 and "warning" not in result.stderr.lower(), result.stderr
    got = json.loads(any_kubectl.ok("get", "deployment", name, "-o", "json"))
    a, b = got["spec"]["template"]["spec"]["containers"]
    assert (a["image"], a["env"]) == ("nginx:2", [{"name": "KEEP", "value": "3"}])
    assert [p["containerPort"] for p in a["ports"]] == [80, 81]
    assert b["env"] == [{"name": "LIVE", "value": "x"}]
    any_kubectl.ok("delete", "deployment", name)

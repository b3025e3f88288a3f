"""PodTemplate and StorageClass with real kubectl: ``api-resources`` lists them, create, get
(upstream's Table columns), describe, the immutable fields of a class, delete, and the
bootstrap roles granting neither to ``edit`` (as upstream's do not)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.cluster import Cluster, kubectl, kubectl_json, kubectl_ok, running_up

pytestmark = pytest.mark.e2e

TEMPLATE = {
    "apiVersion": "v1",
    "kind": "PodTemplate",
    "metadata": {"name": "web"},
    "template": {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
    },
}
CLASS = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "example.com/fast",
    "parameters": {"type": "ssd"},
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("newkinds"))


def test_api_resources_lists_both(cluster: Cluster) -> None:
    rows = {line.split()[0]: line.split() for line in kubectl_ok(cluster, "api-resources").splitlines()[1:]}
    assert rows["podtemplates"][1:] == ["v1", "true", "PodTemplate"]
    assert rows["storageclasses"][1:] == ["sc", "storage.k8s.io/v1", "false", "StorageClass"]


def test_podtemplate_lifecycle(cluster: Cluster) -> None:
    assert kubectl_ok(cluster, "create", "-f", "-", stdin=json.dumps(TEMPLATE)).strip() == (
        "podtemplate/web created"
    )
    table = kubectl_ok(cluster, "get", "podtemplates").splitlines()
    assert table[0].split() == ["NAME", "CONTAINERS", "IMAGES", "POD", "LABELS"]
    assert table[1].split() == ["web", "nginx", "nginx:1.27", "app=web"]
    got = kubectl_json(cluster, "podtemplate", "web")
    assert got["metadata"]["generation"] == 1
    assert got["template"]["spec"]["restartPolicy"] == "Always"
    described = kubectl_ok(cluster, "describe", "podtemplate", "web")
    fields = [line.split() for line in described.splitlines()]
    assert ["Kind:", "PodTemplate"] in fields and ["Generation:", "1"] in fields  # the generic describer
    assert ["Image:", "nginx:1.27"] in fields and ["App:", "web"] in fields
    bad = {**TEMPLATE, "metadata": {"name": "empty"}, "template": {"spec": {"containers": []}}}
    refused = kubectl(cluster, "create", "-f", "-", stdin=json.dumps(bad))
    assert refused.returncode == 1
    assert 'PodTemplate "empty" is invalid: template.spec.containers: Required value' in refused.stderr
    assert kubectl_ok(cluster, "delete", "podtemplate", "web").strip() == 'podtemplate "web" deleted'
    assert kubectl(cluster, "get", "podtemplate", "web").returncode == 1


def test_storageclass_lifecycle(cluster: Cluster) -> None:
    assert kubectl_ok(cluster, "create", "-f", "-", stdin=json.dumps(CLASS)).strip() == (
        "storageclass.storage.k8s.io/fast created"
    )
    table = kubectl_ok(cluster, "get", "sc").splitlines()
    assert table[0].split() == [
        "NAME",
        "PROVISIONER",
        "RECLAIMPOLICY",
        "VOLUMEBINDINGMODE",
        "ALLOWVOLUMEEXPANSION",
        "AGE",
    ]
    assert table[1].split()[:6] == ["fast", "(default)", "example.com/fast", "Delete", "Immediate", "false"]
    described = kubectl_ok(cluster, "describe", "sc", "fast")
    assert "example.com/fast" in described and "Delete" in described and "Immediate" in described
    changed = {**CLASS, "reclaimPolicy": "Retain", "parameters": {"type": "hdd"}}
    refused = kubectl(cluster, "apply", "-f", "-", stdin=json.dumps(changed))
    assert refused.returncode == 1
    assert "parameters: Forbidden: updates to parameters are forbidden." in refused.stderr
    assert "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden." in refused.stderr
    kubectl_ok(cluster, "patch", "sc", "fast", "-p", '{"allowVolumeExpansion": true}')
    assert kubectl_ok(cluster, "get", "sc", "fast", "--no-headers").split()[5] == "true"
    assert kubectl_ok(cluster, "delete", "sc", "fast").strip() == 'storageclass.storage.k8s.io "fast" deleted'


def test_edit_grants_neither_kind(cluster: Cluster) -> None:
    kubectl_ok(cluster, "create", "namespace", "erin")
    kubectl_ok(
        cluster, "create", "rolebinding", "erin-edit", "--clusterrole=edit", "--user=erin", "-n", "erin"
    )

    def can(*args: str) -> str:
        return kubectl(cluster, "auth", "can-i", *args, "--as", "erin").stdout.strip()

    assert can("create", "configmaps", "-n", "erin") == "yes"
    assert can("create", "podtemplates", "-n", "erin") == "no"
    assert can("get", "podtemplates", "-n", "erin") == "no"
    assert can("list", "storageclasses") == "no"

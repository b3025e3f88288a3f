"""Admission against a real ``minikube-py up`` with real kubectl: the plugins ``up`` runs."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from tests.cluster import KUBECTL, Cluster, kubectl, running_up

pytestmark = pytest.mark.e2e

PRIVILEGED_POD = """
apiVersion: v1
kind: Pod
metadata: {name: root}
spec:
  containers:
  - name: c
    image: nginx
    securityContext: {privileged: true}
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("admission"))


def ok(cluster: Cluster, *args: str) -> str:
    result = kubectl(cluster, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_deleting_kube_system_is_forbidden(cluster: Cluster) -> None:
    refused = kubectl(cluster, "delete", "namespace", "kube-system")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace '
        "may not be deleted"
    )


def test_a_quota_of_one_pod_refuses_the_second(cluster: Cluster) -> None:
    ok(cluster, "create", "namespace", "quota")
    ok(cluster, "-n", "quota", "create", "quota", "one", "--hard=pods=1")
    ok(cluster, "-n", "quota", "run", "first", "--image=nginx")
    refused = kubectl(cluster, "-n", "quota", "run", "second", "--image=nginx")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): pods "second" is forbidden: exceeded quota: one, '
        "requested: pods=1, used: pods=1, limited: pods=1"
    )
    described = ok(cluster, "-n", "quota", "get", "quota", "one", "-o", "jsonpath={.status.used.pods}")
    assert described == "1"


def test_a_limit_range_default_shows_in_the_pod(cluster: Cluster) -> None:
    ok(cluster, "create", "namespace", "limits")
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "limits"},
        "spec": {
            "limits": [
                {"type": "Container", "default": {"memory": "256Mi"}, "defaultRequest": {"memory": "128Mi"}}
            ]
        },
    }
    applied = subprocess.run(
        [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "apply", "-f", "-"],
        input=json.dumps(limit_range),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert applied.returncode == 0, applied.stderr
    ok(cluster, "-n", "limits", "run", "web", "--image=nginx")
    resources = json.loads(
        ok(cluster, "-n", "limits", "get", "pod", "web", "-o", "jsonpath={.spec.containers[0].resources}")
    )
    assert resources == {"limits": {"memory": "256Mi"}, "requests": {"memory": "128Mi"}}


def test_a_restricted_namespace_rejects_a_privileged_pod(cluster: Cluster) -> None:
    ok(cluster, "create", "namespace", "secure")
    ok(cluster, "label", "namespace", "secure", "pod-security.kubernetes.io/enforce=restricted")
    refused = subprocess.run(
        [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "-n", "secure", "apply", "-f", "-"],
        input=PRIVILEGED_POD,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): error when creating "STDIN": pods "root" is forbidden: '
        'violates PodSecurity "restricted:latest": '
        'privileged (container "c" must not set securityContext.privileged=true), '
        'allowPrivilegeEscalation != false (container "c" must set '
        "securityContext.allowPrivilegeEscalation=false), "
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to '
        '"RuntimeDefault" or "Localhost")'
    )

"""Endpoints and EndpointSlices in ``up`` with a process node, driven with real kubectl as a
tutorial does: ``kubectl create deployment web --image=nginx --replicas=2`` and ``kubectl
expose deploy web --port 80``; the endpoints list exactly the ready pods and follow scaling
and a readiness probe that starts failing; the ``kubernetes`` Service lists the apiserver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cluster import Cluster, eventually, free_port, start_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(tmp_path_factory.mktemp("endpoints"), free_port(), flags=["--nodes", "1"])
    running.wait_ready()
    yield running
    if running.process.poll() is None:
        running.stop()


def ready_pod_ips(cluster: Cluster, ns: str, selector: str) -> list[str]:
    pods = get(cluster, "-n", ns, "pods", "-l", selector)["items"]
    return sorted(
        p["status"]["podIP"]
        for p in pods
        if not p["metadata"].get("deletionTimestamp")
        and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions") or [])
    )


def endpoint_ips(cluster: Cluster, ns: str, name: str) -> tuple[list[str], list[str]]:
    endpoints = get(cluster, "-n", ns, "endpoints", name)
    subsets = endpoints.get("subsets") or []
    ready = sorted(a["ip"] for s in subsets for a in s.get("addresses") or [])
    return ready, sorted(a["ip"] for s in subsets for a in s.get("notReadyAddresses") or [])


def slice_ips(cluster: Cluster, ns: str, name: str) -> tuple[list[str], list[str]]:
    slices = get(cluster, "-n", ns, "endpointslices", "-l", f"kubernetes.io/service-name={name}")["items"]
    endpoints = [e for s in slices for e in s.get("endpoints") or []]
    ready = sorted(e["addresses"][0] for e in endpoints if e["conditions"].get("ready"))
    return ready, sorted(e["addresses"][0] for e in endpoints if not e["conditions"].get("ready"))


def matches_ready_pods(cluster: Cluster, ns: str, name: str, count: int) -> bool:
    ips = ready_pod_ips(cluster, ns, f"app={name}")
    return (
        len(ips) == count
        and endpoint_ips(cluster, ns, name)[0] == ips
        and slice_ips(cluster, ns, name)[0] == ips
    )


def test_expose_a_deployment_and_follow_scaling(cluster: Cluster) -> None:
    ok(cluster, "create", "namespace", "expose")
    # port 8080: the process runtime's containers may not bind ports below 1024 (not root)
    ok(cluster, "-n", "expose", "create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=8080")
    ok(cluster, "-n", "expose", "expose", "deploy", "web", "--port", "80", "--target-port", "8080")
    eventually(lambda: matches_ready_pods(cluster, "expose", "web", 2), "2 ready endpoints", timeout=60)
    table = ok(cluster, "-n", "expose", "get", "endpointslices")
    assert table.splitlines()[0].split() == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert "IPv4" in table and "8080" in table
    (slice_,) = get(cluster, "-n", "expose", "endpointslices")["items"]
    assert (
        slice_["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"]
        == "endpointslice-controller.k8s.io"
    )
    assert slice_["metadata"]["ownerReferences"][0]["kind"] == "Service"
    assert all(e["targetRef"]["kind"] == "Pod" and e["nodeName"] for e in slice_["endpoints"])

    ok(cluster, "-n", "expose", "scale", "deploy", "web", "--replicas=3")
    eventually(lambda: matches_ready_pods(cluster, "expose", "web", 3), "3 ready endpoints", timeout=60)
    ok(cluster, "-n", "expose", "scale", "deploy", "web", "--replicas=1")
    eventually(lambda: matches_ready_pods(cluster, "expose", "web", 1), "1 ready endpoint", timeout=60)
    ok(cluster, "-n", "expose", "delete", "service", "web")
    eventually(
        lambda: (
            not get(cluster, "-n", "expose", "endpoints")["items"]
            and not get(cluster, "-n", "expose", "endpointslices")["items"]
        ),
        "the Endpoints and slices to go with the Service",
        timeout=30,
    )


def probed_deployment(flags: Path) -> dict[str, Any]:
    probe = {"exec": {"command": ["test", "-f", "/flags/ready"]}, "periodSeconds": 1, "failureThreshold": 1}
    container = {
        "name": "web",
        "image": "nginx",
        "ports": [{"containerPort": 8080}],
        "readinessProbe": probe,
        "volumeMounts": [{"name": "flags", "mountPath": "/flags"}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "probed", "namespace": "probe"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "probed"}},
            "template": {
                "metadata": {"labels": {"app": "probed"}},
                "spec": {
                    "containers": [container],
                    "volumes": [{"name": "flags", "hostPath": {"path": str(flags), "type": "Directory"}}],
                },
            },
        },
    }


def test_a_failing_readiness_probe_moves_the_address_to_not_ready(cluster: Cluster, tmp_path: Path) -> None:
    flags = tmp_path / "flags"
    flags.mkdir()
    (flags / "ready").touch()
    ok(cluster, "create", "namespace", "probe")
    ok(cluster, "apply", "-f", "-", stdin=yaml.safe_dump(probed_deployment(flags)))
    ok(cluster, "-n", "probe", "expose", "deploy", "probed", "--port", "80", "--target-port", "8080")
    eventually(lambda: matches_ready_pods(cluster, "probe", "probed", 1), "the probed pod ready", timeout=60)
    (ip,) = ready_pod_ips(cluster, "probe", "app=probed")

    (flags / "ready").unlink()
    want = ([], [ip])
    eventually(
        lambda: (
            endpoint_ips(cluster, "probe", "probed") == want and slice_ips(cluster, "probe", "probed") == want
        ),
        "the address to be not ready",
        timeout=30,
    )
    (flags / "ready").touch()
    eventually(lambda: matches_ready_pods(cluster, "probe", "probed", 1), "ready again", timeout=30)


def test_the_kubernetes_service_lists_the_apiserver(cluster: Cluster) -> None:
    endpoints = get(cluster, "endpoints", "kubernetes")
    assert endpoints["subsets"] == [
        {
            "addresses": [{"ip": "127.0.0.1"}],
            "ports": [{"name": "https", "port": cluster.port, "protocol": "TCP"}],
        }
    ]
    assert endpoints["metadata"]["labels"]["endpointslice.kubernetes.io/skip-mirror"] == "true"
    (slice_,) = get(cluster, "endpointslices", "-l", "kubernetes.io/service-name=kubernetes")["items"]
    assert slice_["metadata"]["name"] == "kubernetes"

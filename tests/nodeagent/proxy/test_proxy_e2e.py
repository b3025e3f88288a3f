"""The service proxy inside ``up --nodes 2`` with real kubectl: a Deployment exposed as a
NodePort Service answers at its ClusterIP and on each node's NodePort from the host; a
LoadBalancer gets its ClusterIP as ingress and answers there; a Service without endpoints
refuses at once; ``/healthz`` and ``/metrics`` of the proxy; the kubernetes Service's
ClusterIP reaches the apiserver.

Until the endpoints controllers run in ``up``, the test writes the EndpointSlice of the
Deployment's ready pods itself (as a selector-less Service's owner would); the proxy reads
slices either way."""

from __future__ import annotations

import json
import re
import socket
import ssl
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import Cluster, eventually, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("proxy"), flags=["--nodes", "2"])


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return str(response.read().decode())
    except OSError:
        return ""


def write_slice(cluster: Cluster, service: str, pods: list[dict[str, Any]], port: int) -> None:
    endpoints = [
        {
            "addresses": [p["status"]["podIP"]],
            "nodeName": p["spec"]["nodeName"],
            "conditions": {"ready": True},
            "targetRef": {"kind": "Pod", "name": p["metadata"]["name"], "namespace": "default"},
        }
        for p in pods
    ]
    body = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": f"{service}-by-test", "labels": {"kubernetes.io/service-name": service}},
        "addressType": "IPv4",
        "ports": [{"name": "", "port": port, "protocol": "TCP"}],
        "endpoints": endpoints,
    }
    ok(cluster, "apply", "-f", "-", stdin=json.dumps(body))


def ready_pods(cluster: Cluster, app: str, count: int) -> list[dict[str, Any]]:
    def ready() -> list[dict[str, Any]]:
        pods = get(cluster, "pods", "-l", f"app={app}")["items"]
        up = [
            p
            for p in pods
            if any(
                c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions") or []
            )
        ]
        return up if len(up) == count else []

    return list(eventually(ready, f"{count} ready {app} pods", timeout=60))


def proxy_port(cluster: Cluster, what: str) -> int:
    found = re.search(rf"proxy: serving {what} on http://127\.0\.0\.1:(\d+)", cluster.stderr.read_text())
    return int(found.group(1)) if found else 0


def test_a_deployment_answers_at_its_cluster_ip_and_node_ports(cluster: Cluster) -> None:
    ok(cluster, "create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=8080")
    ok(cluster, "expose", "deployment", "web", "--port=80", "--target-port=8080", "--type=NodePort")
    pods = ready_pods(cluster, "web", 2)
    write_slice(cluster, "web", pods, 8080)
    service = get(cluster, "service", "web")
    cluster_ip, node_port = service["spec"]["clusterIP"], service["spec"]["ports"][0]["nodePort"]
    assert cluster_ip.startswith("127.")
    assert "nginx" in eventually(lambda: fetch(f"http://{cluster_ip}/"), "the ClusterIP", timeout=20).lower()
    nodes = get(cluster, "nodes")["items"]
    addresses = {a["address"] for n in nodes for a in n["status"]["addresses"] if a["type"] == "InternalIP"}
    assert len(addresses) == 2  # each process node its own loopback address
    for address in addresses:
        page = eventually(lambda a=address: fetch(f"http://{a}:{node_port}/"), f"the NodePort on {address}")
        assert "nginx" in page.lower()


def test_a_load_balancer_gets_its_cluster_ip_as_ingress(cluster: Cluster) -> None:
    ok(cluster, "create", "deployment", "lb", "--image=nginx", "--replicas=1", "--port=8080")
    ok(cluster, "expose", "deployment", "lb", "--port=8088", "--target-port=8080", "--type=LoadBalancer")
    write_slice(cluster, "lb", ready_pods(cluster, "lb", 1), 8080)
    cluster_ip = get(cluster, "service", "lb")["spec"]["clusterIP"]

    def ingress() -> Any:
        return get(cluster, "service", "lb")["status"].get("loadBalancer", {}).get("ingress")

    assert eventually(ingress, "the ingress") == [{"ip": cluster_ip, "ipMode": "VIP"}]
    row = ok(cluster, "get", "service", "lb", "--no-headers")
    assert cluster_ip in row.split()[3]  # EXTERNAL-IP
    assert "nginx" in eventually(lambda: fetch(f"http://{cluster_ip}:8088/"), "the LB address").lower()
    ok(cluster, "patch", "service", "lb", "-p", json.dumps({"spec": {"type": "ClusterIP"}}))
    eventually(lambda: not ingress(), "the ingress cleared")


def test_a_service_without_endpoints_refuses_at_once(cluster: Cluster) -> None:
    ok(cluster, "create", "service", "clusterip", "nothing", "--tcp=80:8080")
    cluster_ip = get(cluster, "service", "nothing")["spec"]["clusterIP"]
    start = time.monotonic()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((cluster_ip, 80), timeout=5).close()
    assert time.monotonic() - start < 1


def test_the_kubernetes_service_reaches_the_apiserver(cluster: Cluster) -> None:
    ip = get(cluster, "service", "kubernetes")["spec"]["clusterIP"]
    slices = get(cluster, "endpointslices", "-l", "kubernetes.io/service-name=kubernetes")["items"]
    if not slices:  # until the apiserver's endpoint reconciler runs in up
        body = {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {"name": "kubernetes", "labels": {"kubernetes.io/service-name": "kubernetes"}},
            "addressType": "IPv4",
            "ports": [{"name": "https", "port": cluster.port, "protocol": "TCP"}],
            "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}],
        }
        ok(cluster, "apply", "-f", "-", stdin=json.dumps(body))

    context = ssl.create_default_context(cafile=str(cluster.ca_file))
    context.check_hostname = False  # the serving certificate's SANs are the addresses helper's

    def livez() -> str:
        try:
            with urllib.request.urlopen(f"https://{ip}:443/livez", timeout=3, context=context) as response:
                return str(response.read().decode())
        except OSError:
            return ""

    assert eventually(livez, f"the apiserver at {ip}:443") == "ok"


def test_the_proxy_serves_healthz_and_metrics(cluster: Cluster) -> None:
    healthz = eventually(lambda: proxy_port(cluster, "/healthz"), "the healthz port in the log")
    metrics = eventually(lambda: proxy_port(cluster, "/metrics"), "the metrics port in the log")
    with urllib.request.urlopen(f"http://127.0.0.1:{healthz}/healthz", timeout=3) as response:
        body = json.loads(response.read())
        assert response.status == 200 and {"lastUpdated", "currentTime"} <= set(body)
    text = fetch(f"http://127.0.0.1:{metrics}/metrics")
    assert "kubeproxy_sync_proxy_rules_duration_seconds_count" in text
    assert re.search(r"kubeproxy_sync_proxy_rules_endpoint_changes_total [1-9]", text)

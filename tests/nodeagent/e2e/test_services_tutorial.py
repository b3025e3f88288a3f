"""The tutorial's step after ``kubectl create deployment``, end to end on ``up`` with two process
nodes: ``kubectl expose``, then the Service reached the ways tutorials reach it, from inside pods
(busybox's ``wget`` and ``nslookup``, the official Python client with its service account) and
from the host (ClusterIP, NodePort, LoadBalancer, ``kubectl port-forward svc/...``,
``kubectl proxy``, an Ingress), with real kubectl 1.27, 1.32 and 1.33.

The pieces each have their own tests (tests/controllers/e2e/test_endpoints_kubectl.py,
tests/nodeagent/proxy/, tests/nodeagent/dns/, tests/nodeagent/e2e/test_ingress_kubectl.py,
tests/apiserver/test_proxy_kubectl.py); this module is the README's first session, continued.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.clients.support import READY_TIMEOUT
from tests.cluster import (
    KUBECTL,
    KUBECTL_DIR,
    Cluster,
    eventually,
    free_port,
    kubectl,
    kubectl_json,
    start_up,
)

pytestmark = pytest.mark.e2e
WELCOME = "Welcome to nginx!"
POD_TIMEOUT = 60.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(tmp_path_factory.mktemp("tutorial"), free_port(), flags=["--nodes", "2"])
    try:
        running.wait_ready(timeout=READY_TIMEOUT)
        eventually(lambda: kubectl(running, "get", "serviceaccount", "default").returncode == 0, "default SA")
        eventually(lambda: len(ready_nodes(running)) == 2, "two Ready nodes")
        yield running
    finally:  # also when set-up failed: no cluster outlives its module
        if running.process.poll() is None:
            running.stop()


def ready_nodes(cluster: Cluster) -> list[str]:
    nodes = kubectl_json(cluster, "nodes")["items"]
    return [
        n["metadata"]["name"]
        for n in nodes
        if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions", []))
    ]


def ok(cluster: Cluster, *args: str, binary: str = KUBECTL, stdin: str | None = None) -> str:
    result = kubectl(cluster, *args, binary=binary, stdin=stdin)
    assert result.returncode == 0, f"kubectl {' '.join(args)}: {result.stderr}"
    return result.stdout


def ready_pod_ips(cluster: Cluster, app: str) -> set[str]:
    pods = kubectl_json(cluster, "pods", "-l", f"app={app}")["items"]
    return {
        p["status"]["podIP"]
        for p in pods
        if not p["metadata"].get("deletionTimestamp")
        and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", []))
    }


def endpoint_ips(cluster: Cluster, name: str) -> set[str]:
    endpoints = kubectl_json(cluster, "endpoints", name)
    return {a["ip"] for subset in endpoints.get("subsets") or [] for a in subset.get("addresses") or []}


def slice_ips(cluster: Cluster, name: str) -> set[str]:
    slices = kubectl_json(cluster, "endpointslices", "-l", f"kubernetes.io/service-name={name}")["items"]
    return {
        address
        for s in slices
        for e in s.get("endpoints") or []
        if (e.get("conditions") or {}).get("ready")
        for address in e["addresses"]
    }


def endpoints_are_the_ready_pods(cluster: Cluster, app: str, replicas: int) -> bool:
    pods = ready_pod_ips(cluster, app)
    return len(pods) == replicas and endpoint_ips(cluster, app) == pods == slice_ips(cluster, app)


def deploy(cluster: Cluster, name: str, replicas: int = 2, binary: str = KUBECTL) -> None:
    ok(cluster, "create", "deployment", name, "--image=nginx", f"--replicas={replicas}", binary=binary)
    ok(cluster, "expose", "deploy", name, "--port=80", binary=binary)
    eventually(
        lambda: endpoints_are_the_ready_pods(cluster, name, replicas), f"{name}'s endpoints", POD_TIMEOUT
    )


def run_pod(cluster: Cluster, name: str, image: str, script: str) -> tuple[str, str]:
    """A ``--restart=Never`` pod running ``sh -c script`` (or python ``-c``): its phase and log."""
    command = ["python", "-c", script] if image.startswith("python") else ["sh", "-c", script]
    ok(cluster, "run", name, f"--image={image}", "--restart=Never", "--", *command)

    def finished() -> str:
        phase = str(kubectl_json(cluster, "pod", name)["status"].get("phase"))
        return phase if phase in ("Succeeded", "Failed") else ""

    phase = eventually(finished, f"pod {name} to finish", POD_TIMEOUT)
    return phase, ok(cluster, "logs", name)


@pytest.mark.parametrize("minor", [27, 32, 33])
def test_expose_gives_endpoints_that_follow_scale_and_readiness(cluster: Cluster, minor: int) -> None:
    binary = str(KUBECTL_DIR / f"kubectl.1.{minor}") if minor != 32 else KUBECTL
    name = f"web{minor}"
    deploy(cluster, name, 2, binary)
    ok(cluster, "scale", "deploy", name, "--replicas=3", binary=binary)
    eventually(lambda: endpoints_are_the_ready_pods(cluster, name, 3), "3 endpoints", POD_TIMEOUT)
    ok(cluster, "scale", "deploy", name, "--replicas=1", binary=binary)
    eventually(lambda: endpoints_are_the_ready_pods(cluster, name, 1), "1 endpoint", POD_TIMEOUT)
    # the pods are on both nodes' ranges: every address is loopback, none is the node's own
    ips = ready_pod_ips(cluster, name)
    assert all(ip.startswith("127.") and not ip.endswith(".1") for ip in ips), ips
    table = ok(cluster, "get", "endpoints", name, binary=binary)
    assert f"{ips.pop()}:80" in table


def test_a_pod_reaches_the_service_by_name_fqdn_and_cluster_ip(cluster: Cluster) -> None:
    deploy(cluster, "web")
    cluster_ip = kubectl_json(cluster, "service", "web")["spec"]["clusterIP"]
    script = (
        "cat /etc/resolv.conf; wget -qO- http://web; wget -qO- http://web.default.svc.cluster.local; "
        f"wget -qO- http://{cluster_ip}; nslookup web.default.svc.cluster.local"
    )
    phase, log = run_pod(cluster, "client", "busybox", script)
    assert phase == "Succeeded", log
    dns = str(cluster.network.dns_ip) if cluster.network else "127.96.0.10"
    assert (
        f"nameserver {dns}" in log
        and "search default.svc.cluster.local svc.cluster.local cluster.local" in log
    )
    assert log.count(WELCOME) >= 6, log  # three pages (title and heading each)
    assert re.search(rf"Address:\s+{re.escape(cluster_ip)}", log), log


def test_nslookup_of_a_headless_service_lists_each_pod(cluster: Cluster) -> None:
    ok(cluster, "create", "deployment", "db", "--image=nginx", "--replicas=2")
    ok(cluster, "create", "service", "clusterip", "db", "--clusterip=None", "--tcp=80:80")
    eventually(lambda: len(ready_pod_ips(cluster, "db")) == 2, "db's pods", POD_TIMEOUT)
    eventually(lambda: slice_ips(cluster, "db") == ready_pod_ips(cluster, "db"), "db's slice", POD_TIMEOUT)
    phase, log = run_pod(cluster, "lookup", "busybox", "nslookup db.default.svc.cluster.local")
    assert phase == "Succeeded", log
    answered = set(re.findall(r"Address:\s+(127\.\S+)", log.split("Name:", 1)[-1]))
    assert answered == ready_pod_ips(cluster, "db"), log


def test_node_port_and_load_balancer_answer_from_the_host(cluster: Cluster) -> None:
    deploy(cluster, "front")
    ok(cluster, "expose", "deploy", "front", "--name=front-np", "--type=NodePort", "--port=80")
    ok(
        cluster,
        "expose",
        "deploy",
        "front",
        "--name=front-lb",
        "--type=LoadBalancer",
        "--port=8080",
        "--target-port=80",
    )
    node_port = kubectl_json(cluster, "service", "front-np")["spec"]["ports"][0]["nodePort"]
    for node in kubectl_json(cluster, "nodes")["items"]:
        address = next(a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP")
        page = eventually(lambda a=address: get(f"http://{a}:{node_port}/"), f"NodePort on {address}")
        assert WELCOME in page

    def ingress_ip() -> str:
        ingress = kubectl_json(cluster, "service", "front-lb")["status"]["loadBalancer"].get("ingress") or [
            {}
        ]
        return str(ingress[0].get("ip", ""))

    lb = eventually(ingress_ip, "the LoadBalancer's address")
    assert lb.startswith("127.")
    assert WELCOME in eventually(lambda: get(f"http://{lb}:8080/"), "the LoadBalancer to answer")
    assert lb in ok(cluster, "get", "service", "front-lb")  # EXTERNAL-IP


def get(url: str, host: str | None = None) -> str:
    try:
        response = httpx.get(url, timeout=5, headers={"Host": host} if host else None)
    except httpx.HTTPError:
        return ""
    return response.text if response.status_code == 200 else ""


def background_kubectl(cluster: Cluster, *args: str, ready: str) -> tuple[subprocess.Popen[str], str]:
    """``kubectl ARGS`` left running; the first line of its output matching ``ready``'s address."""
    command = [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(ready, line)
        if found:
            return process, found.group(1)
    process.wait()
    raise AssertionError(f"kubectl {' '.join(args)} exited {process.returncode} without {ready!r}")


def test_port_forward_to_the_service_and_kubectl_proxy(cluster: Cluster) -> None:
    deploy(cluster, "pf")
    forward, address = background_kubectl(
        cluster, "port-forward", "svc/pf", "0:80", ready=r"Forwarding from (127\.0\.0\.1:\d+)"
    )
    try:
        assert WELCOME in eventually(lambda: get(f"http://{address}/"), "port-forward to answer")
    finally:
        forward.terminate()
        forward.wait()
    proxy, address = background_kubectl(cluster, "proxy", "--port=0", ready=r"Starting to serve on (\S+:\d+)")
    try:
        url = f"http://{address}/api/v1/namespaces/default/services/pf:80/proxy/"
        assert WELCOME in eventually(lambda: get(url), "services/pf:80/proxy/ to answer")
    finally:
        proxy.terminate()
        proxy.wait()


def test_an_ingress_routes_two_hosts_to_two_services(cluster: Cluster) -> None:
    deploy(cluster, "shop", 1)
    deploy(cluster, "blog", 1)
    ok(
        cluster,
        "create",
        "ingress",
        "sites",
        "--rule=shop.localhost/*=shop:80",
        "--rule=blog.localhost/*=blog:80",
    )

    def address() -> str:
        ingress = kubectl_json(cluster, "ingress", "sites")["status"]["loadBalancer"].get("ingress") or [{}]
        ports = ingress[0].get("ports") or [{}]
        return f"{ingress[0].get('ip', '')}:{ports[0].get('port', '')}" if ingress[0].get("ip") else ""

    at = eventually(address, "the Ingress's address")
    assert at.startswith("127.0.0.1:")
    for host in ("shop", "blog"):
        before = access_lines(cluster, host)
        assert WELCOME in eventually(
            lambda h=host: get(f"http://{at}/", f"{h}.localhost"), f"{host} to answer"
        )
        eventually(lambda h=host, b=before: access_lines(cluster, h) > b, f"{host}'s pod to log the request")
    assert eventually(lambda: not get(f"http://{at}/", "nobody.localhost"), "no rule: no page")


def access_lines(cluster: Cluster, app: str) -> int:
    return ok(cluster, "logs", f"deploy/{app}").count('"GET / HTTP/1.1" 200')


def test_the_official_client_in_a_pod_reaches_kubernetes_default(cluster: Cluster) -> None:
    ok(
        cluster,
        "create",
        "rolebinding",
        "client-view",
        "--clusterrole=view",
        "--serviceaccount=default:default",
    )
    script = (
        "import json, os\n"
        "from kubernetes import client, config\n"
        "config.load_incluster_config()\n"
        "names = [s.metadata.name for s in client.CoreV1Api().list_namespaced_service('default').items]\n"
        "print(json.dumps({'host': os.environ['KUBERNETES_SERVICE_HOST'], 'services': names}))\n"
    )
    phase, log = run_pod(cluster, "official", "python:3.12", script)
    assert phase == "Succeeded", log
    answer: dict[str, Any] = json.loads(log.strip().splitlines()[-1])
    kubernetes_ip = kubectl_json(cluster, "service", "kubernetes")["spec"]["clusterIP"]
    assert answer["host"] == kubernetes_ip and kubernetes_ip.startswith("127.")
    assert "kubernetes" in answer["services"]


def test_a_service_selecting_nothing_is_refused_at_once(cluster: Cluster) -> None:
    ok(cluster, "create", "service", "clusterip", "nobody", "--tcp=80:80")
    cluster_ip = kubectl_json(cluster, "service", "nobody")["spec"]["clusterIP"]
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://{cluster_ip}/", timeout=2)

"""kr8s (its synchronous API), unmodified, against ``up`` with one process node: a client from
the kubeconfig, create/get/list/patch/delete, ``wait()`` on a Deployment's conditions, scale,
exec and port-forward. kr8s checks ``GET /version/`` before its first request and reads
``status`` of every object it waits on."""

from __future__ import annotations

import random
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kr8s
import pytest
from kr8s.objects import ConfigMap, Deployment, Pod, Service

from tests.clients.support import module_cluster
from tests.cluster import Cluster, eventually

pytestmark = pytest.mark.e2e
NS = "default"
WAIT = 60
# Pods of every cluster on a machine share its network: a port no other test's pods use.
PORT = 18081


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from module_cluster(tmp_path_factory, "kr8s", nodes=1)


@pytest.fixture(scope="module")
def api(cluster: Cluster) -> kr8s.Api:
    return kr8s.api(kubeconfig=str(cluster.kubeconfig))


def test_a_client_from_the_kubeconfig(api: kr8s.Api) -> None:
    version = api.version()
    assert version["major"] == "1" and version["gitVersion"].startswith("v1.")
    assert api.whoami() == "kubernetes-admin"
    assert {"pods", "deployments", "configmaps"} <= {r["name"] for r in api.api_resources()}


def test_create_get_list_patch_delete(api: kr8s.Api) -> None:
    cm = ConfigMap(
        {"metadata": {"name": "kr8s-cm", "namespace": NS, "labels": {"app": "kr8s"}}, "data": {"a": "1"}},
        api=api,
    )
    cm.create()
    assert cm.metadata.uid and cm.metadata.resourceVersion
    got = ConfigMap.get("kr8s-cm", namespace=NS, api=api)
    assert got.raw["data"] == {"a": "1"}
    listed = list(api.get("configmaps", namespace=NS, label_selector={"app": "kr8s"}))
    assert [c.name for c in listed] == ["kr8s-cm"]
    got.patch({"data": {"b": "2"}})
    assert got.raw["data"] == {"a": "1", "b": "2"}
    got.label({"patched": "yes"})
    got.refresh()
    assert got.labels["patched"] == "yes"
    got.delete()
    eventually(lambda: not cm.exists(), "the ConfigMap to be gone")
    assert list(api.get("configmaps", namespace=NS, label_selector={"app": "kr8s"})) == []


def nginx_deployment(name: str, replicas: int) -> dict[str, Any]:
    labels = {"app": name}
    container = {
        "name": "nginx",
        "image": "nginx",
        "ports": [{"containerPort": PORT}],
        "readinessProbe": {"tcpSocket": {"port": PORT}, "periodSeconds": 1},  # ready = listening
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


@pytest.fixture(scope="module")
def web(api: kr8s.Api) -> Deployment:
    """A Deployment of the built-in nginx with its pod ready (polled here: the ``wait()`` tests
    are separate, so exec and port-forward are judged on their own)."""
    deployment = Deployment(nginx_deployment("kr8s-web", 1), api=api)
    deployment.create()

    def ready() -> bool:
        deployment.refresh()
        return bool(deployment.raw.get("status", {}).get("readyReplicas") == 1)

    eventually(ready, "kr8s-web to be ready", timeout=WAIT)
    return deployment


def test_wait_for_a_deployment_condition(api: kr8s.Api) -> None:
    """kr8s ``wait()``, as ``kubectl wait --for=condition=Available``, on a new Deployment."""
    deployment = Deployment(nginx_deployment("kr8s-waited", 1), api=api)
    deployment.create()
    deployment.wait("condition=Available", timeout=WAIT)
    deployment.refresh()
    available = next(c for c in deployment.raw["status"]["conditions"] if c["type"] == "Available")
    assert available["status"] == "True"
    assert deployment.ready()
    deployment.delete()


def test_scale_and_wait_for_ready_replicas(api: kr8s.Api, web: Deployment) -> None:
    web.scale(2)
    web.wait("jsonpath='{.status.readyReplicas}'=2", timeout=WAIT)
    pods = web.pods()
    assert len(pods) == 2 and all(p.status.phase == "Running" for p in pods)
    web.scale(1)
    web.wait("jsonpath='{.status.replicas}'=1", timeout=WAIT)


def test_wait_on_a_new_deployment_before_any_controller_wrote_status(api: kr8s.Api) -> None:
    """``wait()`` reads ``status.conditions`` straight away: a brand-new object must already have
    the (empty) status upstream always serializes."""
    deployment = Deployment(nginx_deployment("kr8s-new", 0), api=api)
    deployment.create()
    assert deployment.raw["status"] == {} or "conditions" in deployment.raw["status"]
    deployment.wait(["condition=Available", "condition=Progressing"], timeout=WAIT)
    deployment.delete()
    deployment.wait("delete", timeout=WAIT)


def serving_pod(web: Deployment) -> Pod:
    """A ready pod of ``web`` that is not being deleted (a scale-down may leave one terminating)."""

    def ready(pod: Pod) -> bool:
        conditions = pod.raw.get("status", {}).get("conditions", [])
        return "deletionTimestamp" not in pod.metadata and any(
            c["type"] == "Ready" and c["status"] == "True" for c in conditions
        )

    pod: Pod = eventually(lambda: next((p for p in web.pods() if ready(p)), None), "a ready pod of web")
    return pod


def test_exec_in_a_pod(api: kr8s.Api, web: Deployment) -> None:
    pod = serving_pod(web)
    done = pod.exec(["sh", "-c", "echo out; echo err >&2"])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"out\n", b"err\n")
    failed = pod.exec(["sh", "-c", "exit 3"], check=False)
    assert failed.returncode == 3
    with pytest.raises(Exception) as raised:  # kr8s raises it inside its WebSocket's task group
        pod.exec(["false"])
    errors = raised.value.exceptions if isinstance(raised.value, BaseExceptionGroup) else (raised.value,)
    assert any(isinstance(err, kr8s.ExecError) for err in errors), raised.value


def unephemeral_port() -> int:
    """A free loopback port below the kernel's ephemeral range. kr8s's ``local_port="auto"``
    finds a free port and binds it later: meanwhile any outgoing connection of the machine (a
    proxy's dial, another test's client) may take it as its ephemeral source port (seen once in a
    full run). A port below the range is never handed out that way."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for port in random.sample(range(max(1024, low - 12000), low), 200):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port below the ephemeral range")


def test_port_forward_to_a_pod(api: kr8s.Api, web: Deployment) -> None:
    local = unephemeral_port()
    with serving_pod(web).portforward(remote_port=PORT, local_port=local) as port:
        page = get_page(port)
        assert "Welcome to nginx" in page
        assert "Welcome to nginx" in get_page(port)  # each connection is its own stream


def get_page(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
        assert response.status == 200
        return str(response.read().decode())


def test_a_service_finds_its_ready_pods(api: kr8s.Api, web: Deployment) -> None:
    service = Service(
        {
            "metadata": {"name": "kr8s-web", "namespace": NS},
            "spec": {"selector": {"app": "kr8s-web"}, "ports": [{"port": 80, "targetPort": PORT}]},
        },
        api=api,
    )
    service.create()
    assert service.raw["spec"]["clusterIP"]
    assert eventually(lambda: service.ready_pods(), "the service's ready pods")
    service.delete()

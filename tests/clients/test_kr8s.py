"""kr8s (its synchronous API), unmodified, against ``up`` with one process node: a client from
the kubeconfig, create/get/list/patch/delete, ``wait()`` on a Deployment's conditions, scale,
exec and port-forward. kr8s checks ``GET /version/`` before its first request and reads
``status`` of every object it waits on."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import kr8s
import pytest
from kr8s.objects import ConfigMap, Deployment, Pod, Service

from tests.clients.support import module_cluster
from tests.cluster import Cluster, eventually

pytestmark = pytest.mark.e2e
NS = "default"
WAIT = 60


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
    container = {"name": "nginx", "image": "nginx", "ports": [{"containerPort": 8080}]}
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
    """A Deployment of the built-in nginx, waited Available (kr8s ``wait()``, as kubectl wait)."""
    deployment = Deployment(nginx_deployment("kr8s-web", 1), api=api)
    deployment.create()
    deployment.wait("condition=Available", timeout=WAIT)
    return deployment


def test_wait_for_a_deployment_condition(api: kr8s.Api, web: Deployment) -> None:
    web.refresh()
    available = next(c for c in web.raw["status"]["conditions"] if c["type"] == "Available")
    assert available["status"] == "True"
    assert web.ready()
    web.scale(2)
    web.wait("jsonpath='{.status.readyReplicas}'=2", timeout=WAIT)
    pods = web.pods()
    assert len(pods) == 2 and all(p.status.phase == "Running" for p in pods)


def test_wait_on_a_new_deployment_before_any_controller_wrote_status(api: kr8s.Api) -> None:
    """``wait()`` reads ``status.conditions`` straight away: a brand-new object must already have
    the (empty) status upstream always serializes."""
    deployment = Deployment(nginx_deployment("kr8s-new", 0), api=api)
    deployment.create()
    assert deployment.raw["status"] == {} or "conditions" in deployment.raw["status"]
    deployment.wait(["condition=Available", "condition=Progressing"], timeout=WAIT)
    deployment.delete()
    deployment.wait("delete", timeout=WAIT)


def test_exec_in_a_pod(api: kr8s.Api, web: Deployment) -> None:
    pod = web.pods()[0]
    done = pod.exec(["sh", "-c", "echo out; echo err >&2"])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"out\n", b"err\n")
    failed = pod.exec(["sh", "-c", "exit 3"], check=False)
    assert failed.returncode == 3
    with pytest.raises(kr8s.ExecError):
        pod.exec(["false"])


def test_port_forward_to_a_pod(api: kr8s.Api, web: Deployment) -> None:
    pod: Pod = web.pods()[0]
    with pod.portforward(remote_port=8080, local_port="auto") as port:
        page = eventually(lambda: get_page(port), "the page through the forward", timeout=20)
    assert "Welcome to nginx" in page


def get_page(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
        assert response.status == 200
        return str(response.read().decode())


def test_a_service_finds_its_ready_pods(api: kr8s.Api, web: Deployment) -> None:
    service = Service(
        {
            "metadata": {"name": "kr8s-web", "namespace": NS},
            "spec": {"selector": {"app": "kr8s-web"}, "ports": [{"port": 80, "targetPort": 8080}]},
        },
        api=api,
    )
    service.create()
    assert service.raw["spec"]["clusterIP"]
    assert eventually(lambda: service.ready_pods(), "the service's ready pods")
    service.delete()

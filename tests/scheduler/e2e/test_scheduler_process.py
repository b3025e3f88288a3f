"""``minikube-py scheduler`` as its own process next to ``minikube-py apiserver``: it keeps
scheduling across an apiserver restart (its informers relist; nothing is scheduled twice)."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from minikube_py.identities import ensure_component_identities
from minikube_py.kubeconfig import ADMIN_KUBECONFIG, write_client_kubeconfig
from minikube_py.pki import ensure_cluster_pki
from tests.cluster import Cluster, free_port, start
from tests.controllers.e2e.test_controller_manager_process import start_apiserver, stop_all
from tests.controllers.e2e.test_controllers_kubectl import eventually, get, ok
from tests.scheduler.e2e.test_scheduler_kubectl import make_node

pytestmark = pytest.mark.e2e
NS = "restart"


def bound_to(cluster: Cluster, name: str) -> str:
    pod: dict[str, Any] = get(cluster, "-n", NS, "pod", name)
    return str(pod["spec"].get("nodeName") or "")


def create_pod(cluster: Cluster, name: str) -> None:
    with cluster.admin_client() as admin:
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        }
        created = admin.post(
            f"/api/v1/namespaces/{NS}/pods",
            content=json.dumps(pod),
            headers={"Content-Type": "application/json"},
        )
        assert created.status_code == 201, created.text


def test_scheduling_resumes_after_an_apiserver_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    pki = ensure_cluster_pki(data_dir / "pki")
    port = free_port()
    server = f"https://127.0.0.1:{port}"
    write_client_kubeconfig(
        data_dir / ADMIN_KUBECONFIG, server=server, ca_cert=pki.ca.cert, client=pki.admin, user="a"
    )
    kubeconfig = ensure_component_identities(data_dir, pki, server)["scheduler"]
    apiserver = start_apiserver(data_dir, port, tmp_path / "apiserver-1")
    scheduler = start(
        "scheduler",
        "--kubeconfig",
        str(kubeconfig),
        "--secure-port",
        "0",
        logs=tmp_path / "scheduler",
        data_dir=data_dir,
        port=0,
    )
    restarted: Cluster | None = None
    try:
        apiserver.wait_ready()
        ok(apiserver, "create", "namespace", NS)
        ok(apiserver, "-n", NS, "create", "serviceaccount", "default")  # no controllers run here
        with apiserver.admin_client() as admin:
            make_node(admin, "n1")
        create_pod(apiserver, "before")
        eventually(lambda: bound_to(apiserver, "before") == "n1", "the first pod bound")
        code, _ = apiserver.stop(signal.SIGKILL)
        assert code == -signal.SIGKILL
        restarted = start_apiserver(data_dir, port, tmp_path / "apiserver-2")
        restarted.wait_ready()
        create_pod(restarted, "after")
        eventually(lambda: bound_to(restarted, "after") == "n1", "a pod bound after the restart", timeout=40)
        events = get(restarted, "-n", NS, "events")["items"]
        scheduled = [e["involvedObject"]["name"] for e in events if e["reason"] == "Scheduled"]
        assert sorted(scheduled) == ["after", "before"]  # each pod scheduled once
        assert scheduler.process.poll() is None, scheduler.stderr.read_text()
        assert "Traceback" not in scheduler.stderr.read_text()
    finally:
        stop_all(scheduler, *(restarted,) if restarted else (), apiserver)

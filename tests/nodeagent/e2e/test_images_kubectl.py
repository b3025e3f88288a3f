"""The tutorial images through ``up`` and real kubectl: ``kubectl run`` with busybox, python
and curlimages/curl (args only, as ``kubectl run ... -- ARGS`` sends them), ``kubectl debug``
with busybox's applets, and an image that cannot run saying why."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.cluster import Cluster, eventually, kubectl, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    up = running_up(tmp_path_factory.mktemp("images"), flags=["--nodes", "1"])
    running = next(up)
    try:
        # kubectl run's pods mount the namespace's default service account (its controller makes it)
        eventually(lambda: kubectl(running, "get", "serviceaccount", "default").returncode == 0, "default SA")
        yield running
    finally:
        next(up, None)  # stops it


def pod_status(cluster: Cluster, name: str) -> dict[str, Any]:
    return dict(get(cluster, "pod", name).get("status") or {})


def finished(cluster: Cluster, name: str) -> str:
    """The pod's phase once it is Succeeded or Failed."""
    return eventually(
        lambda: (
            pod_status(cluster, name).get("phase") in ("Succeeded", "Failed")
            and pod_status(cluster, name)["phase"]
        ),
        f"pod {name} to finish",
        timeout=60,
    )


def test_busybox_runs_a_shell_command(cluster: Cluster) -> None:
    ok(cluster, "run", "bb", "--image=busybox", "--restart=Never", "--", "sh", "-c", "echo hello")
    assert finished(cluster, "bb") == "Succeeded"
    assert ok(cluster, "logs", "bb") == "hello\n"
    [container] = get(cluster, "pod", "bb")["spec"]["containers"]
    assert "command" not in container and container["args"] == ["sh", "-c", "echo hello"]


def test_busybox_applets_are_at_hand(cluster: Cluster) -> None:
    script = "for c in wget nslookup sleep hostname; do command -v $c; done; hostname"
    ok(cluster, "run", "applets", "--image=busybox:1.36", "--restart=Never", "--", "sh", "-c", script)
    assert finished(cluster, "applets") == "Succeeded"
    found = ok(cluster, "logs", "applets").splitlines()
    assert found == [*(f"/usr/local/sbin/{c}" for c in ("wget", "nslookup", "sleep", "hostname")), "applets"]


def test_python_runs_with_the_official_client_importable(cluster: Cluster) -> None:
    ok(cluster, "run", "py", "--image=python:3.12", "--restart=Never", "--", "python", "-c", "print(1+1)")
    assert finished(cluster, "py") == "Succeeded"
    assert ok(cluster, "logs", "py") == "2\n"
    code = "import kubernetes; print(kubernetes.__name__)"
    ok(cluster, "run", "client", "--image=python:3-slim", "--restart=Never", "--", "python3", "-c", code)
    assert finished(cluster, "client") == "Succeeded"
    assert ok(cluster, "logs", "client") == "kubernetes\n"


def test_curl_args_reach_a_pod(cluster: Cluster) -> None:
    ok(cluster, "run", "web", "--image=nginx", "--port=8080")
    ip = eventually(
        lambda: pod_status(cluster, "web").get("phase") == "Running" and pod_status(cluster, "web")["podIP"],
        "web",
    )
    url = f"http://{ip}:8080/"
    ok(cluster, "run", "fetch", "--image=curlimages/curl", "--restart=Never", "--", "-s", "--retry", "20",
       "--retry-connrefused", "--retry-delay", "1", url)  # fmt: skip
    assert finished(cluster, "fetch") == "Succeeded"
    assert "Welcome to nginx!" in ok(cluster, "logs", "fetch")


def test_kubectl_debug_gets_busybox(cluster: Cluster) -> None:
    ok(cluster, "run", "target", "--image=busybox", "--", "sleep", "3600")
    eventually(lambda: pod_status(cluster, "target").get("phase") == "Running", "target Running")
    ok(
        cluster,
        "debug",
        "target",
        "--image=busybox",
        "--container=dbg",
        "--",
        "sh",
        "-c",
        "readlink /proc/$$/exe",
    )

    def debug_output() -> str:
        statuses = pod_status(cluster, "target").get("ephemeralContainerStatuses") or [{}]
        return "terminated" in (statuses[0].get("state") or {}) and ok(cluster, "logs", "target", "-c", "dbg")

    assert eventually(debug_output, "the debug container's output").strip().endswith("/busybox")


def test_an_image_without_a_known_entrypoint_says_so(cluster: Cluster) -> None:
    ok(cluster, "run", "redis", "--image=redis:7", "--restart=Never")

    def waiting() -> dict[str, Any]:
        [status] = pod_status(cluster, "redis").get("containerStatuses") or [{}]
        return dict((status.get("state") or {}).get("waiting") or {})

    reason = eventually(
        lambda: waiting().get("reason") == "CreateContainerError" and waiting(), "the waiting reason"
    )
    assert 'image "redis:7" has no entrypoint known to minikube-py' in reason["message"]
    events = ok(cluster, "get", "events", "--field-selector", "involvedObject.name=redis")
    assert "has no entrypoint known to minikube-py" in events

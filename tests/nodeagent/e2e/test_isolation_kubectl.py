"""A learner's typo cannot damage the node (issue 13, item 10): with real kubectl against
``up --nodes 1``, ``kubectl cp`` and ``kubectl exec`` reach only the pod's own files, processes
and hostname, and pods run as a non-root user unless their ``securityContext`` asks for root.
The host files guarded here live in a world-writable directory outside ``/tmp`` (a pod's
``/tmp`` is its own), so nothing but the isolation protects them."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import Cluster, eventually, free_port, kubectl, start_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok
from tests.nodeagent.runtime.test_isolation import precious_host_dir

pytestmark = pytest.mark.e2e

REPO = Path(__file__).parents[3]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    # the data directory outside /tmp, where a container could otherwise see it (kubectl's
    # cache goes next to it, so both live in one scratch directory)
    scratch = Path(tempfile.mkdtemp(prefix=".isolation-e2e-", dir=REPO))
    data_dir = scratch / "data"
    try:
        scratch.chmod(0o755)  # so only the hiding keeps a container out of the data directory
        tmp = tmp_path_factory.mktemp("isolation")
        running = start_up(tmp, free_port(), data_dir, flags=["--nodes", "1"])
        running.wait_ready()
        # pods need the namespace's default service account, which a controller creates
        default_sa = ("get", "serviceaccount", "default")
        eventually(lambda: kubectl(running, *default_sa).returncode == 0, "the default service account")
        yield running
        if running.process.poll() is None:
            running.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture
def host_dir() -> Iterator[Path]:
    yield from precious_host_dir(".isolation-e2e-", REPO)


def sleeping_pod(cluster: Cluster, name: str, **spec: Any) -> None:
    container = {"name": "c", "image": "busybox", "command": ["sleep", "3600"], **spec.pop("container", {})}
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"nodeName": "node-1", "automountServiceAccountToken": False, "containers": [container]},
    }
    pod["spec"].update(spec)
    ok(cluster, "create", "-f", "-", stdin=json.dumps(pod))
    eventually(lambda: get(cluster, "pod", name)["status"]["containerStatuses"][0]["state"]["running"], name)


def sh(cluster: Cluster, pod: str, script: str) -> tuple[int, str, str]:
    result = kubectl(cluster, "exec", pod, "--", "sh", "-c", script)
    return result.returncode, result.stdout, result.stderr


def test_exec_rm_rf_cannot_remove_the_hosts_files(cluster: Cluster, host_dir: Path) -> None:
    sleeping_pod(cluster, "typo")
    code, _, stderr = sh(cluster, "typo", f"rm -rf {host_dir} /usr/bin/env")
    assert code != 0 and "Read-only file system" in stderr
    assert (host_dir / "precious").read_text() == "keep me\n"
    assert shutil.which("env") is not None


def test_kubectl_cp_lands_in_the_pod_not_the_host(cluster: Cluster, host_dir: Path, tmp_path: Path) -> None:
    sleeping_pod(cluster, "copier")
    local = tmp_path / "notes.txt"
    local.write_text("copied\n")
    kubectl(cluster, "cp", str(local), f"copier:{host_dir}/notes.txt")  # tar in the pod fails
    assert sorted(os.listdir(host_dir)) == ["precious"]
    marker = f"isolation-cp-{os.getpid()}"
    ok(cluster, "cp", str(local), f"copier:/tmp/{marker}")
    assert ok(cluster, "exec", "copier", "--", "cat", f"/tmp/{marker}") == "copied\n"
    assert not os.path.exists(f"/tmp/{marker}")


def test_ps_hostname_and_user_are_the_pods(cluster: Cluster) -> None:
    sleeping_pod(cluster, "lonely", hostname="alone", subdomain="sub")
    code, stdout, stderr = sh(cluster, "lonely", "hostname; echo $HOSTNAME; id -u; ps -e -o pid=,args=")
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert lines[:3] == ["alone", "alone", "65534"]
    processes = {int(line.split()[0]): line.split(None, 1)[1] for line in lines[3:]}
    assert "namespaces.py" in processes[1] and "sleep 3600" in processes.values()
    assert len(processes) <= 5, processes  # PID 1, sleep, this sh and ps
    code, stdout, _ = sh(cluster, "lonely", f"kill -0 {os.getpid()} 2>/dev/null || echo unreachable")
    assert stdout == "unreachable\n"


def test_root_only_when_the_security_context_asks(cluster: Cluster) -> None:
    sleeping_pod(cluster, "rooted", container={"securityContext": {"runAsUser": 0}})
    assert sh(cluster, "rooted", "id -u")[1] == "0\n"
    sleeping_pod(
        cluster, "grouped",
        securityContext={"runAsUser": 1000, "runAsGroup": 3000, "supplementalGroups": [4000],
                         "fsGroup": 2000},
        volumes=[{"name": "data", "emptyDir": {}}],
        container={"volumeMounts": [{"name": "data", "mountPath": "/data"}]},
    )  # fmt: skip
    code, stdout, stderr = sh(cluster, "grouped", "id -u; id -g; id -G; echo hi > /data/f && cat /data/f")
    assert (code, stdout) == (0, "1000\n3000\n3000 2000 4000\nhi\n"), stderr


def test_run_as_non_root_refuses_uid_0(cluster: Cluster) -> None:
    container = {
        "name": "c", "image": "busybox", "command": ["sleep", "3600"],
        "securityContext": {"runAsUser": 0, "runAsNonRoot": True},
    }  # fmt: skip
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "refused"},
        "spec": {"nodeName": "node-1", "automountServiceAccountToken": False, "containers": [container]},
    }
    ok(cluster, "create", "-f", "-", stdin=json.dumps(pod))

    def waiting() -> dict[str, Any]:
        return dict(get(cluster, "pod", "refused")["status"]["containerStatuses"][0]["state"]["waiting"])

    reason = "CreateContainerConfigError"
    state = eventually(lambda: waiting().get("reason") == reason and waiting(), "the refusal")
    uid = get(cluster, "pod", "refused")["metadata"]["uid"]
    assert state["message"] == (
        f'container\'s runAsUser breaks non-root policy (pod: "refused_default({uid})", container: c)'
    )


def test_the_service_account_token_is_readable_and_the_clusters_data_is_not(cluster: Cluster) -> None:
    sleeping_pod(cluster, "in-cluster", automountServiceAccountToken=True)
    token = "/var/run/secrets/kubernetes.io/serviceaccount/token"
    # the data dir is an empty tmpfs, or absent when it lies under a scratch dir such as /tmp
    script = f'id -u; head -c 3 {token}; echo; test -z "$(ls -A {cluster.data_dir} 2>/dev/null)" && echo none'
    code, stdout, stderr = sh(cluster, "in-cluster", script)
    assert (code, stdout) == (0, "65534\neyJ\nnone\n"), stderr  # a JWT, read by nobody; no cluster data
    assert any(cluster.data_dir.iterdir())


def test_share_process_namespace_shows_the_pods_other_containers(cluster: Cluster) -> None:
    containers = [
        {"name": "c", "image": "busybox", "command": ["sleep", "3600"]},
        {"name": "sidecar", "image": "busybox", "command": ["sleep", "3601"]},
    ]
    sleeping_pod(cluster, "shared", shareProcessNamespace=True, containers=containers)

    def both_running() -> bool:
        statuses = get(cluster, "pod", "shared")["status"]["containerStatuses"]
        return len(statuses) == 2 and all(s["state"].get("running") for s in statuses)

    eventually(both_running, "both containers to run")
    code, stdout, stderr = sh(cluster, "shared", "hostname; ps -e -o args=")
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert lines[0] == "shared" and {"sleep 3600", "sleep 3601"} <= set(lines), lines

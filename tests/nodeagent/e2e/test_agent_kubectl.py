"""Node agents inside ``up`` (``--nodes 1 --fake-nodes 2``), driven with real kubectl: pods run
as real processes on ``node-1`` and as simulated containers on ``fake-*``; statuses, logs,
restarts, graceful deletion, configuration errors and the built-in nginx image."""

from __future__ import annotations

import ipaddress
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import KUBECTL_DIR, Cluster, eventually, kubectl, running_up
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from running_up(tmp_path_factory.mktemp("agents"), flags=["--nodes", "1", "--fake-nodes", "2"])


def run_pod(cluster: Cluster, name: str, spec: dict[str, Any], node: str = "node-1") -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"nodeName": node, "automountServiceAccountToken": False, **spec},
    }
    ok(cluster, "create", "-f", "-", stdin=json.dumps(pod))


def container_state(cluster: Cluster, name: str) -> dict[str, Any]:
    statuses = get(cluster, "pod", name).get("status", {}).get("containerStatuses") or [{}]
    return dict(statuses[0].get("state") or {})


def phase(cluster: Cluster, name: str) -> str:
    return str(get(cluster, "pod", name).get("status", {}).get("phase", ""))


def running_commands(marker: str) -> list[str]:
    """Command lines of this machine's processes that contain ``marker``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in text:
            found.append(text)
    return found


def test_nodes_register_ready_with_a_lease(cluster: Cluster) -> None:
    def ready() -> dict[str, str]:
        nodes = get(cluster, "nodes")["items"]
        return {
            n["metadata"]["name"]: next(
                c["status"] for c in n["status"]["conditions"] if c["type"] == "Ready"
            )
            for n in nodes
        }

    assert eventually(
        lambda: ready() == {"node-1": "True", "fake-1": "True", "fake-2": "True"}, "3 Ready nodes"
    )
    node = get(cluster, "node", "node-1")
    assert node["status"]["nodeInfo"]["containerRuntimeVersion"].startswith("process://")
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-1"
    assert get(cluster, "node", "fake-1")["status"]["allocatable"]["cpu"] == "8"
    lease = eventually(lambda: get(cluster, "-n", "kube-node-lease", "lease", "node-1"), "node-1's Lease")
    assert lease["spec"]["holderIdentity"] == "node-1"
    assert lease["metadata"]["ownerReferences"][0]["uid"] == node["metadata"]["uid"]


def test_a_pod_runs_as_a_process_with_configmap_env_and_a_secret_volume(cluster: Cluster) -> None:
    ok(cluster, "create", "configmap", "settings", "--from-literal=GREETING=hello")
    ok(cluster, "create", "secret", "generic", "creds", "--from-literal=password=s3cret")
    run_pod(
        cluster,
        "reader",
        {
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "main",
                    "image": "busybox",
                    "command": ["sh", "-c", "echo $GREETING from $POD_IP; cat /etc/creds/password; echo"],
                    "env": [
                        {
                            "name": "GREETING",
                            "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "GREETING"}},
                        }
                    ],
                    "volumeMounts": [{"name": "creds", "mountPath": "/etc/creds"}],
                }
            ],
            "volumes": [{"name": "creds", "secret": {"secretName": "creds"}}],
        },
    )
    eventually(lambda: phase(cluster, "reader") == "Succeeded", "the reader pod to succeed")
    pod = get(cluster, "pod", "reader")
    ip = pod["status"]["podIP"]
    assert cluster.network is not None  # node-1 has the first /24 of the cluster's pod network
    assert ipaddress.ip_address(ip) in ipaddress.ip_network(cluster.network.node_cidr(0))
    assert ip != cluster.network.node_ip(0)  # the node's own address, never a pod's
    assert ok(cluster, "logs", "reader").splitlines() == [f"hello from {ip}", "s3cret"]
    stamped = ok(cluster, "logs", "reader", "--timestamps").splitlines()[0]
    assert stamped.endswith(f"hello from {ip}") and stamped[:4].isdigit()
    terminated = container_state(cluster, "reader")["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")


def test_a_crashing_container_is_restarted_with_backoff(cluster: Cluster) -> None:
    run_pod(
        cluster,
        "crasher",
        {"containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", "echo boom; exit 3"]}]},
    )

    def looping() -> bool:
        status = get(cluster, "pod", "crasher")["status"]["containerStatuses"][0]
        waiting = status["state"].get("waiting", {})
        return waiting.get("reason") == "CrashLoopBackOff" and status["restartCount"] >= 1

    eventually(looping, "CrashLoopBackOff")
    status = get(cluster, "pod", "crasher")["status"]["containerStatuses"][0]
    assert status["lastState"]["terminated"]["exitCode"] == 3
    assert (
        "back-off 10s restarting failed container=c pod=crasher_default"
        in status["state"]["waiting"]["message"]
    )
    assert ok(cluster, "logs", "crasher", "--previous").strip() == "boom"
    assert phase(cluster, "crasher") == "Running"


def test_graceful_delete_sends_sigterm_and_ends_the_process(cluster: Cluster) -> None:
    marker = f"sleeper-{time.monotonic_ns()}"
    script = f'trap "exit 0" TERM; while true; do sleep 0.1; done # {marker}'
    run_pod(
        cluster,
        "sleeper",
        {"containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", script]}]},
    )
    eventually(lambda: "running" in container_state(cluster, "sleeper"), "the sleeper to run")
    assert running_commands(marker)
    started = time.monotonic()
    ok(cluster, "delete", "pod", "sleeper", "--timeout=30s")
    assert time.monotonic() - started < 10  # SIGTERM ended it well before the 30 s grace period
    assert not running_commands(marker)
    assert kubectl(cluster, "get", "pod", "sleeper").returncode != 0


def test_a_missing_configmap_keeps_the_container_waiting(cluster: Cluster) -> None:
    env = [{"name": "X", "valueFrom": {"configMapKeyRef": {"name": "absent", "key": "x"}}}]
    run_pod(
        cluster,
        "misconfigured",
        {"containers": [{"name": "c", "image": "busybox", "command": ["true"], "env": env}]},
    )

    def waiting() -> dict[str, Any]:
        return dict(container_state(cluster, "misconfigured").get("waiting") or {})

    state = eventually(
        lambda: waiting().get("reason") == "CreateContainerConfigError" and waiting(), "the config error"
    )
    assert state["message"] == 'configmap "absent" not found'


def test_a_command_that_does_not_exist_fails_to_start(cluster: Cluster) -> None:
    run_pod(
        cluster,
        "nosuch",
        {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox", "command": ["nosuch-binary"]}],
        },
    )
    eventually(lambda: phase(cluster, "nosuch") == "Failed", "the pod to fail")
    terminated = container_state(cluster, "nosuch")["terminated"]
    assert (terminated["reason"], terminated["exitCode"]) == ("StartError", 128)
    assert "nosuch-binary" in terminated["message"]


def test_a_container_without_command_needs_a_built_in_image(cluster: Cluster) -> None:
    run_pod(cluster, "noentry", {"containers": [{"name": "c", "image": "redis"}]})
    waiting = eventually(
        lambda: (
            container_state(cluster, "noentry").get("waiting", {}).get("reason") == "CreateContainerError"
            and container_state(cluster, "noentry")["waiting"]
        ),
        "CreateContainerError",
    )
    assert "has no entrypoint known to minikube-py" in waiting["message"] and "nginx" in waiting["message"]


def test_the_built_in_nginx_image_serves_on_the_pod_ip(cluster: Cluster) -> None:
    run_pod(
        cluster,
        "web",
        {"containers": [{"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 8080}]}]},
    )
    eventually(lambda: "running" in container_state(cluster, "web"), "nginx to run")
    ip = get(cluster, "pod", "web")["status"]["podIP"]

    def served() -> str:
        # "running" comes before the server binds: connection refused means "not yet".
        try:
            with urllib.request.urlopen(f"http://{ip}:8080/", timeout=2) as response:
                return str(response.read().decode())
        except OSError:
            return ""

    assert "nginx" in eventually(served, "the welcome page").lower()


def test_pods_on_fake_nodes_run_simulated(cluster: Cluster) -> None:
    """A Deployment (with the default service account token volume) lands on simulated nodes."""
    selector = {"node.kubernetes.io/instance-type": "minikube-py-fake"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "sim"},
        "spec": {
            "replicas": 4,
            "selector": {"matchLabels": {"app": "sim"}},
            "template": {
                "metadata": {"labels": {"app": "sim"}},
                "spec": {"nodeSelector": selector, "containers": [{"name": "c", "image": "anything"}]},
            },
        },
    }
    ok(cluster, "create", "-f", "-", stdin=json.dumps(deployment))
    ok(cluster, "rollout", "status", "deployment/sim", "--timeout=30s")
    pods = [
        p for p in get(cluster, "pods", "-l", "app=sim")["items"] if p["status"].get("phase") == "Running"
    ]
    assert len(pods) == 4
    assert all(p["spec"]["nodeName"].startswith("fake-") for p in pods)
    assert all(p["status"]["containerStatuses"][0]["ready"] for p in pods)
    assert all(p["status"]["containerStatuses"][0]["containerID"].startswith("fake://") for p in pods)


def test_a_deployment_of_nginx_runs_real_processes(cluster: Cluster) -> None:
    """The learner's first command: pods get the service account token volume and run."""
    ok(cluster, "create", "deployment", "web2", "--image=nginx", "--replicas=2", "--port=8081")
    ok(
        cluster,
        "patch",
        "deployment",
        "web2",
        "-p",
        json.dumps({"spec": {"template": {"spec": {"nodeSelector": {"kubernetes.io/hostname": "node-1"}}}}}),
    )
    ok(cluster, "rollout", "status", "deployment/web2", "--timeout=40s")
    pods = [
        p for p in get(cluster, "pods", "-l", "app=web2")["items"] if p["status"].get("phase") == "Running"
    ]
    assert {p["spec"]["nodeName"] for p in pods} == {"node-1"}
    assert len(pods) == 2


def test_a_failing_liveness_probe_restarts_the_container(cluster: Cluster) -> None:
    script = "touch /probe/healthy; sleep 2; rm /probe/healthy; sleep 600"
    container = {
        "name": "c",
        "image": "busybox",
        "command": ["sh", "-c", script],
        "volumeMounts": [{"name": "probe", "mountPath": "/probe"}],
        "livenessProbe": {
            "exec": {"command": ["test", "-f", "/probe/healthy"]},
            "periodSeconds": 1,
            "failureThreshold": 2,
        },
    }
    run_pod(cluster, "liveness", {"containers": [container], "volumes": [{"name": "probe", "emptyDir": {}}]})

    def restarted() -> bool:
        statuses = get(cluster, "pod", "liveness")["status"].get("containerStatuses") or [{}]
        return int(statuses[0].get("restartCount", 0)) >= 1

    eventually(restarted, "a restart after the liveness probe failed")
    events = ok(cluster, "get", "events", "--field-selector", "involvedObject.name=liveness")
    assert "Liveness probe failed" in events
    assert "Container c failed liveness probe, will be restarted" in events


def test_readiness_probes_gate_ready(cluster: Cluster) -> None:
    ready = {
        "name": "nginx",
        "image": "nginx",
        "ports": [{"containerPort": 8082}],
        "readinessProbe": {"httpGet": {"path": "/", "port": 8082}, "periodSeconds": 1},
    }
    never = {
        "name": "c",
        "image": "busybox",
        "command": ["sleep", "600"],
        "readinessProbe": {"tcpSocket": {"port": 9999}, "periodSeconds": 1},
    }
    run_pod(cluster, "ready", {"containers": [ready]})
    run_pod(cluster, "unready", {"containers": [never]})

    def condition(name: str) -> str:
        conditions = get(cluster, "pod", name)["status"].get("conditions") or []
        return next((c["status"] for c in conditions if c["type"] == "Ready"), "")

    eventually(lambda: condition("ready") == "True", "the nginx pod to become Ready")
    eventually(lambda: "running" in container_state(cluster, "unready"), "the unready pod to run")
    time.sleep(2)
    assert condition("unready") == "False"
    events = ok(cluster, "get", "events", "--field-selector", "involvedObject.name=unready")
    assert "Readiness probe failed: dial tcp" in events


@pytest.mark.parametrize("minor", [27, 33])
def test_older_and_newer_kubectl_see_logs_statuses_and_follow(cluster: Cluster, minor: int) -> None:
    """kubectl 1.27 and 1.33: a pod's phase and IP, its log with tail and timestamps, and a
    followed log that ends when the container does."""
    binary = str(KUBECTL_DIR / f"kubectl.1.{minor}")
    name = f"versions-{minor}"
    script = "for i in 1 2 3 4 5; do echo line $i; sleep 0.3; done"
    run_pod(
        cluster,
        name,
        {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", script]}],
        },
    )
    eventually(lambda: "running" in container_state(cluster, name), f"{name} to run")
    followed = kubectl(cluster, "logs", "-f", name, binary=binary)
    assert followed.returncode == 0, followed.stderr
    assert followed.stdout.splitlines() == [f"line {i}" for i in range(1, 6)]
    eventually(lambda: phase(cluster, name) == "Succeeded", f"{name} to succeed")
    tail = kubectl(cluster, "logs", name, "--tail=2", "--timestamps", binary=binary)
    lines = tail.stdout.splitlines()
    assert len(lines) == 2 and lines[1].endswith(" line 5") and lines[0].endswith(" line 4")
    wide = kubectl(cluster, "get", "pod", name, "-o", "wide", binary=binary).stdout
    ip = get(cluster, "pod", name)["status"]["podIP"]
    assert "Completed" in wide and "node-1" in wide and ip in wide


def test_a_port_already_in_use_crashes_the_second_server_with_a_clear_log(cluster: Cluster) -> None:
    """Two containers of one pod share its IP: the second nginx on the same port cannot bind."""
    servers = [
        {"name": name, "image": "nginx", "ports": [{"containerPort": 8090}]} for name in ("first", "second")
    ]
    run_pod(cluster, "samepod", {"containers": servers})

    def crashed() -> list[dict[str, Any]]:
        statuses = get(cluster, "pod", "samepod")["status"].get("containerStatuses") or []
        return [s for s in statuses if s["restartCount"] >= 1 or "terminated" in s["lastState"]]

    [loser] = eventually(crashed, "one of the two servers to crash")
    last = loser["lastState"]["terminated"]
    assert (last["exitCode"], last["reason"]) == (1, "Error")
    log = ok(cluster, "logs", "samepod", "-c", loser["name"], "--previous")
    assert "bind() to" in log and ":8090 failed (98: Address already in use)" in log

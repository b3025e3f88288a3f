"""The official ``kubernetes`` Python client, unmodified, in the shape of its own end-to-end
suite (kubernetes-client/python ``kubernetes/e2e_test``: test_client, test_watch, test_apps,
test_batch, test_informer) against ``up`` with one process node: pods, exec (output, binary,
interactive sessions, exit codes, closing stdin), port-forward (raw TCP and HTTP), services,
configmaps and every patch type, nodes, events, watches and informers.

Every call goes through the typed API classes, so every answer is deserialized into the
client's models (pydantic in client 37): a field the models require that the server omits fails
the call, as it fails every Python program using the client."""

from __future__ import annotations

import gzip
import http.client
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.informer import ADDED, DELETED, MODIFIED, SharedInformer
from kubernetes.stream import portforward, stream
from kubernetes.stream.ws_client import ERROR_CHANNEL, V5_CHANNEL_PROTOCOL

from tests.clients.support import module_cluster
from tests.cluster import Cluster, eventually

pytestmark = pytest.mark.e2e
NS = "default"
SLEEPER = "busybox-test"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from module_cluster(tmp_path_factory, "official-client", nodes=1)


@pytest.fixture(scope="module")
def api_client(cluster: Cluster) -> Iterator[client.ApiClient]:
    api = config.new_client_from_config(config_file=str(cluster.kubeconfig))
    yield api
    api.close()


@pytest.fixture(scope="module")
def core(api_client: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api_client)


def manifest_with_command(name: str, command: str) -> dict[str, Any]:
    """The suite's busybox pod: the shell script as ``args`` (busybox has no entrypoint)."""
    container = {"image": "busybox", "name": "sleep", "args": ["/bin/sh", "-c", command]}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [container]},
    }


def create_running_pod(
    core: client.CoreV1Api, manifest: dict[str, Any], *, ready: bool = False
) -> client.V1Pod:
    """Create the pod once the default ServiceAccount exists (as the suite waits for it), and
    wait until it runs (and, with ``ready``, until its container is ready)."""
    eventually(lambda: service_account_exists(core), "the default ServiceAccount")
    name = manifest["metadata"]["name"]
    created = core.create_namespaced_pod(NS, manifest)
    assert isinstance(created, client.V1Pod)
    assert created.metadata.name == name and created.status.phase == "Pending"

    def running() -> client.V1Pod | None:
        pod = core.read_namespaced_pod(name, NS)
        assert pod.status.phase in ("Pending", "Running"), pod.status
        done = pod.status.phase == "Running" and (not ready or pod.status.container_statuses[0].ready)
        return pod if done else None

    pod: client.V1Pod = eventually(running, f"pod {name} to run", timeout=60)
    return pod


def service_account_exists(core: client.CoreV1Api) -> bool:
    try:
        return bool(core.read_namespaced_service_account("default", NS).metadata.name == "default")
    except ApiException as err:
        if err.status != 404:
            raise
        return False


@pytest.fixture(scope="module")
def sleeper(core: client.CoreV1Api) -> client.V1Pod:
    """One long-running busybox pod for the exec tests."""
    return create_running_pod(core, manifest_with_command(SLEEPER, "while true;do date;sleep 5; done"))


def test_a_running_pod_reads_back_typed(core: client.CoreV1Api, sleeper: client.V1Pod) -> None:
    pod = core.read_namespaced_pod(SLEEPER, NS)
    assert (pod.spec.node_name, pod.status.phase) == ("node-1", "Running")
    assert pod.status.pod_ip and pod.status.host_ip
    (status,) = pod.status.container_statuses
    assert (status.name, status.ready, status.restart_count) == ("sleep", True, 0)
    assert isinstance(status.state.running.started_at, datetime)
    assert {c.type for c in pod.status.conditions} >= {
        "PodScheduled",
        "Initialized",
        "ContainersReady",
        "Ready",
    }
    assert len(core.list_pod_for_all_namespaces().items) > 0


def exec_stdout(core: client.CoreV1Api, command: list[str], **options: Any) -> Any:
    """The stdout of ``command`` run in the sleeper (GET exec, stdout only, no tty)."""
    return stream(
        core.connect_get_namespaced_pod_exec,
        SLEEPER,
        NS,
        command=command,
        stderr=False,
        stdin=False,
        stdout=True,
        tty=False,
        **options,
    )


def test_exec_collects_stdout(core: client.CoreV1Api, sleeper: client.V1Pod) -> None:
    text = exec_stdout(core, ["/bin/sh", "-c", "for i in $(seq 1 3); do date; done"])
    assert isinstance(text, str)
    assert len(text.splitlines()) == 3
    one = stream(core.connect_post_namespaced_pod_exec, SLEEPER, NS, command=["date"], stdout=True, tty=False)
    assert len(one.splitlines()) == 1


def test_exec_returns_binary_output(core: client.CoreV1Api, sleeper: client.V1Pod) -> None:
    data = exec_stdout(core, ["/bin/sh", "-c", 'echo -n "This is a test string" | gzip'], binary=True)
    assert isinstance(data, bytes)
    assert gzip.decompress(data).decode() == "This is a test string"


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_exec_interactive_session(core: client.CoreV1Api, sleeper: client.V1Pod, binary: bool) -> None:
    """stdin, stdout and stderr as separate channels; the exit status on the error channel."""

    def encode(text: str) -> str | bytes:
        return text.encode() if binary else text

    session = stream(
        core.connect_post_namespaced_pod_exec,
        SLEEPER,
        NS,
        command=["/bin/sh"],
        stderr=True,
        stdin=True,
        stdout=True,
        tty=False,
        binary=binary,
        _preload_content=False,
    )
    try:
        session.write_stdin(encode("echo test string 1\n"))
        assert session.readline_stdout(timeout=5) == encode("test string 1")
        assert not session.peek_stderr()
        session.write_stdin(encode("echo test string 2 >&2\n"))
        assert session.readline_stderr(timeout=5) == encode("test string 2")
        assert not session.peek_stdout()
        session.write_stdin(encode("exit\n"))
        status = eventually(lambda: read_error_channel(session), "the exit status", timeout=10)
        assert json.loads(status)["status"] == "Success"
        eventually(lambda: not session_open(session), "the session to close", timeout=10)
    finally:
        session.close()


def read_error_channel(session: Any) -> str | bytes:
    session.update(timeout=1)
    return session.read_channel(ERROR_CHANNEL)  # type: ignore[no-any-return]


def session_open(session: Any) -> bool:
    session.update(timeout=0.2)
    return bool(session.is_open())


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (["false"], 1),
        (["/bin/sh", "-c", "sleep 1; exit 3"], 3),
        (["true"], 0),
        (["/bin/sh", "-c", "ls /"], 0),
    ],
    ids=["false", "exit-3", "true", "ls"],
)
def test_exec_exit_code(core: client.CoreV1Api, sleeper: client.V1Pod, command: list[str], code: int) -> None:
    session = stream(
        core.connect_get_namespaced_pod_exec,
        SLEEPER,
        NS,
        command=command,
        stderr=True,
        stdin=False,
        stdout=True,
        tty=False,
        _preload_content=False,
    )
    assert session.returncode is None
    session.run_forever(timeout=10)
    assert session.returncode == code
    assert session.returncode == code  # idempotent


def test_exec_closing_stdin_ends_the_command(core: client.CoreV1Api, sleeper: client.V1Pod) -> None:
    """v5.channel.k8s.io's CLOSE frame: closing stdin gives cat its EOF (the suite skips this
    unless v5 is negotiated; the apiserver serves v5, so here it must be)."""
    session = stream(
        core.connect_post_namespaced_pod_exec,
        SLEEPER,
        NS,
        command=["/bin/sh", "-c", "cat"],
        stderr=True,
        stdin=True,
        stdout=True,
        tty=False,
        _preload_content=False,
    )
    try:
        assert session.subprotocol == V5_CHANNEL_PROTOCOL
        session.write_stdin("test-close\n")
        assert session.readline_stdout(timeout=5) == "test-close"
        session.close_channel(0)
        session.run_forever(timeout=15)
        assert not session.is_open()
        assert session.returncode == 0
    finally:
        session.close()


# An echo server on each port given, on the pod's IP (pods share the host's network here, so
# 0.0.0.0 would collide across pods); the suite's own is similar.
ECHO_SERVER = """\
import os, socket, sys, threading

def echo(conn):
    with conn:
        while data := conn.recv(1024):
            conn.sendall(data)

def serve(port):
    server = socket.create_server((os.environ["POD_IP"], port))
    while True:
        threading.Thread(target=echo, args=(server.accept()[0],), daemon=True).start()

for port in sys.argv[2:]:
    threading.Thread(target=serve, args=(int(port),), daemon=True).start()
serve(int(sys.argv[1]))
"""


def test_portforward_raw(core: client.CoreV1Api) -> None:
    """Two forwarded ports echo independently on one connection; a port nobody listens on
    gives an error on its channel and an empty read; the forward ends once every socket is
    closed."""
    name = "portforward-raw"
    core.create_namespaced_config_map(
        NS,
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name},
            "data": {"echo.py": ECHO_SERVER},
        },
    )
    container = {
        "name": "port-server",
        "image": "python",
        "command": ["python3", "-u", "/opt/echo.py", "1234", "1235"],
        "volumeMounts": [{"name": "port-server", "mountPath": "/opt", "readOnly": True}],
        "startupProbe": {"tcpSocket": {"port": 1235}, "periodSeconds": 1, "failureThreshold": 30},
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "containers": [container],
            "restartPolicy": "Never",
            "volumes": [{"name": "port-server", "configMap": {"name": name}}],
        },
    }
    create_running_pod(core, pod, ready=True)
    for round_ in (b"1", b"2"):
        forward = portforward(core.connect_get_namespaced_pod_portforward, name, NS, ports="1234,1235,1236")
        assert forward.connected
        first, second = forward.socket(1234), forward.socket(1235)
        first.setblocking(True)
        second.setblocking(True)
        sent = {
            first: b"Test " + round_ + b" port 1234 forwarding",
            second: b"Test " + round_ + b" port 1235",
        }
        for sock, data in sent.items():
            sock.sendall(data)
        assert echoed(list(sent), sent) == sent
        assert forward.connected

        closed = forward.socket(1236)
        closed.setblocking(True)
        assert closed.recv(1024) == b""
        assert forward.error(1236) is not None
        closed.close()

        for sock in (first, second):
            again = {sock: b"Another test " + round_ + b" using fileno " + str(sock.fileno()).encode()}
            sock.sendall(again[sock])
            assert echoed([sock], again) == again
            sock.close()
        eventually(lambda forward=forward: not forward.connected, "the forward to end", timeout=10)
        assert forward.error(1234) is None and forward.error(1235) is None
    core.delete_namespaced_pod(name, NS)
    core.delete_namespaced_config_map(name, NS)


def echoed(socks: list[Any], sent: dict[Any, bytes], timeout: float = 30) -> dict[Any, bytes]:
    """Read each socket until it has echoed what was sent to it."""
    replies = {sock: b"" for sock in socks}
    deadline = time.monotonic() + timeout
    while any(replies[sock] != sent[sock] for sock in socks):
        assert time.monotonic() < deadline, replies
        readable, _, _ = select.select(socks, [], [], 1)
        for sock in readable:
            data = sock.recv(1024)
            assert data, "unexpected socket close"
            replies[sock] += data
            assert sent[sock].startswith(replies[sock])
    return replies


class ForwardedHTTPConnection(http.client.HTTPConnection):
    """HTTP over a port-forward socket (the suite routes urllib through portforward instead)."""

    def __init__(self, forwarded: socket.socket) -> None:
        super().__init__("pod.default.kubernetes")
        self.forwarded = forwarded

    def connect(self) -> None:
        self.sock = self.forwarded


# Ports of this module's servers. Each test cluster has its own pod network (a network slot), so
# pods of parallel modules never share an address; the suite's nginx has no containerPort (80).
NGINX_PORT = 18080


def test_portforward_http(core: client.CoreV1Api) -> None:
    name = "portforward-http"
    nginx = {"name": "nginx", "image": "nginx", "ports": [{"containerPort": NGINX_PORT}]}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [nginx]}}
    create_running_pod(core, pod)

    def page() -> tuple[int, str] | None:
        forward = portforward(core.connect_get_namespaced_pod_portforward, name, NS, ports=str(NGINX_PORT))
        connection = ForwardedHTTPConnection(forward.socket(NGINX_PORT))
        try:
            connection.request("GET", "/")
            response = connection.getresponse()
            return response.status, response.read().decode()
        except (OSError, http.client.HTTPException):
            return None  # nginx not listening yet: the forward reports it and closes
        finally:
            connection.close()

    status, html = eventually(page, "the page through the forward", timeout=30)
    assert status == 200
    assert "<h1>Welcome to nginx!</h1>" in html
    core.delete_namespaced_pod(name, NS, body={})


def test_service_apis(core: client.CoreV1Api) -> None:
    name = "frontend"
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"labels": {"name": name}, "name": name},
        "spec": {
            "ports": [{"name": "port", "port": 80, "protocol": "TCP", "targetPort": 80}],
            "selector": {"name": name},
        },
    }
    created = core.create_namespaced_service(NS, manifest)
    assert created.metadata.name == name and created.status
    assert created.spec.cluster_ip and created.spec.type == "ClusterIP"
    read = core.read_namespaced_service(name, NS)
    assert read.metadata.name == name and read.status
    manifest["spec"]["ports"] = [{"name": "new", "port": 8080, "protocol": "TCP", "targetPort": 8080}]
    patched = core.patch_namespaced_service(name, NS, manifest)  # strategic merge: ports merge on port
    assert sorted(p.port for p in patched.spec.ports) == [80, 8080]
    assert patched.status
    core.delete_namespaced_service(name, NS, body={})


def test_configmap_apis(core: client.CoreV1Api) -> None:
    name = "test-configmap"
    manifest = {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": name, "labels": {"e2e-tests": "true"}},
        "data": {
            "config.json": '{"command":"/usr/bin/mysqld_safe"}',
            "frontend.cnf": "[mysqld]\nbind-address = 10.0.0.3\nport = 3306\n",
        },
    }
    assert core.create_namespaced_config_map(NS, manifest).metadata.name == name
    assert core.read_namespaced_config_map(name, NS).data["frontend.cnf"].endswith("port = 3306\n")
    json_patch = [{"op": "replace", "path": "/data", "value": {"new_value": "json_patch_name"}}]
    assert core.patch_namespaced_config_map(name, NS, json_patch).data == {"new_value": "json_patch_name"}
    merged = core.patch_namespaced_config_map(name, NS, {"data": {"new_value": "merge_patch_name"}})
    assert merged.data == {"new_value": "merge_patch_name"}
    core.delete_namespaced_config_map(name, NS, body={})
    assert core.list_namespaced_config_map(NS, label_selector="e2e-tests=true").items == []
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_config_map(name, NS)
    assert missing.value.status == 404


def test_node_apis(core: client.CoreV1Api) -> None:
    nodes = core.list_node().items
    assert [n.metadata.name for n in nodes] == ["node-1"]
    for item in nodes:
        node = core.read_node(item.metadata.name)
        assert isinstance(node.metadata.labels, dict) and len(node.metadata.labels) > 0
        assert node.metadata.labels["kubernetes.io/hostname"] == item.metadata.name
        info = node.status.node_info
        assert info.kubelet_version and info.operating_system == "linux" and info.architecture
        ready = next(c for c in node.status.conditions if c.type == "Ready")
        assert ready.status == "True" and isinstance(ready.last_heartbeat_time, datetime)
        assert node.status.addresses and node.status.allocatable["pods"]


def config_map_with_value(name: str, value: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {"watch-e2e": "true"}},
        "data": {"key": value, "config": "dummy"},
    }


def test_watch_configmaps(core: client.CoreV1Api) -> None:
    """A watch from a list's resourceVersion sees exactly what happened after that list."""
    core.create_namespaced_config_map(NS, config_map_with_value("configmap-a", "a"))
    rv = core.list_namespaced_config_map(NS, label_selector="watch-e2e=true").metadata.resource_version
    b = config_map_with_value("configmap-b", "b")
    core.create_namespaced_config_map(NS, b)
    b["data"]["config"] = "{}"
    core.patch_namespaced_config_map("configmap-b", NS, b)
    core.delete_collection_namespaced_config_map(NS, label_selector="watch-e2e=true")

    events = list(
        watch.Watch().stream(
            core.list_namespaced_config_map,
            namespace=NS,
            resource_version=rv,
            timeout_seconds=2,
            label_selector="watch-e2e=true",
        )
    )
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED", "DELETED"]
    assert [e["object"].metadata.name for e in events[:2]] == ["configmap-b", "configmap-b"]
    assert sorted(e["object"].metadata.name for e in events[2:]) == ["configmap-a", "configmap-b"]
    assert all(isinstance(e["object"], client.V1ConfigMap) for e in events)
    assert events[1]["object"].data == {"key": "b", "config": "{}"}


def test_watch_a_pod_from_creation_to_deletion(core: client.CoreV1Api) -> None:
    """Typed Pod events as the scheduler, the node and graceful deletion change it."""
    name = "watched"
    rv = core.list_namespaced_pod(NS).metadata.resource_version
    eventually(lambda: service_account_exists(core), "the default ServiceAccount")
    core.create_namespaced_pod(
        NS, manifest_with_command(name, "trap 'exit 0' TERM; while true; do sleep 0.2; done")
    )
    seen: list[tuple[str, str | None, str | None]] = []
    deleting = False
    watcher = watch.Watch()
    for event in watcher.stream(
        core.list_namespaced_pod,
        NS,
        resource_version=rv,
        field_selector=f"metadata.name={name}",
        timeout_seconds=60,
    ):
        pod = event["object"]
        assert isinstance(pod, client.V1Pod)
        seen.append((event["type"], pod.spec.node_name, pod.status.phase))
        if event["type"] == "MODIFIED" and pod.status.phase == "Running" and not deleting:
            core.delete_namespaced_pod(name, NS)  # graceful: the TERM trap ends it
            deleting = True
        if event["type"] == "DELETED":
            watcher.stop()
    assert seen[0] == ("ADDED", None, "Pending")
    assert ("MODIFIED", "node-1", "Running") in seen
    assert seen[-1][0] == "DELETED"


def test_events_of_a_pod(core: client.CoreV1Api, sleeper: client.V1Pod) -> None:
    """The scheduler's and the node's Events about a pod, typed. (Not through events.k8s.io:
    the client's EventsV1Event requires ``eventTime``, which events recorded through core/v1,
    as upstream's kubelet records them, do not have; upstream answers null there too.)"""
    selector = f"involvedObject.name={SLEEPER},involvedObject.kind=Pod"

    def reasons() -> set[str]:
        found = {e.reason for e in core.list_namespaced_event(NS, field_selector=selector).items}
        return found if {"Scheduled", "Started"} <= found else set()

    assert {"Scheduled", "Pulled", "Created", "Started"} <= eventually(reasons, "the pod's events")
    events = core.list_namespaced_event(NS, field_selector=selector).items
    assert all(isinstance(e, client.CoreV1Event) for e in events)
    assert all(e.involved_object.uid == sleeper.metadata.uid for e in events)
    assert all(isinstance(e.last_timestamp or e.event_time, datetime) for e in events)
    scheduled = next(e for e in events if e.reason == "Scheduled")
    assert scheduled.reporting_component == "default-scheduler"
    assert scheduled.message == f"Successfully assigned {NS}/{SLEEPER} to node-1"
    started = next(e for e in events if e.reason == "Started")
    assert (started.source.component, started.source.host, started.type) == ("kubelet", "node-1", "Normal")
    assert len(core.list_event_for_all_namespaces().items) >= len(events)


DEPLOYMENT_PORT = 18083  # the suite's 80, moved for the reason given at NGINX_PORT


def test_create_deployment(api_client: client.ApiClient) -> None:
    apps = client.AppsV1Api(api_client)
    name = "nginx-deployment"
    container = {"name": "nginx", "image": "nginx:1.15.4", "ports": [{"containerPort": DEPLOYMENT_PORT}]}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [container]}},
        },
    }
    apps.create_namespaced_deployment(NS, deployment)
    read = apps.read_namespaced_deployment(name, NS)
    assert (read.metadata.name, read.spec.replicas) == (name, 3)
    assert read.spec.selector.match_labels["app"] == "nginx"
    assert read.spec.template.metadata.labels["app"] == "nginx"
    (c,) = read.spec.template.spec.containers
    assert (c.name, c.image, c.ports[0].container_port) == ("nginx", "nginx:1.15.4", DEPLOYMENT_PORT)
    assert read.spec.strategy.type == "RollingUpdate"  # defaulted
    apps.delete_namespaced_deployment(name, NS, body=client.V1DeleteOptions())


def test_create_daemonset(api_client: client.ApiClient) -> None:
    apps = client.AppsV1Api(api_client)
    name = "nginx-app"
    daemonset = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"labels": {"app": "nginx"}, "name": name},
        "spec": {
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {
                "metadata": {"labels": {"app": "nginx"}, "name": name},
                "spec": {"containers": [{"name": "nginx-app", "image": "nginx:1.15.4"}]},
            },
            "updateStrategy": {"type": "RollingUpdate"},
        },
    }
    apps.create_namespaced_daemon_set(NS, daemonset)
    read = apps.read_namespaced_daemon_set(name, NS)
    assert read.metadata.name == name
    assert read.spec.selector.match_labels["app"] == "nginx"
    assert (read.spec.template.spec.containers[0].name, read.spec.template.spec.containers[0].image) == (
        "nginx-app",
        "nginx:1.15.4",
    )
    apps.delete_namespaced_daemon_set(name, NS, body=client.V1DeleteOptions())


def test_job_apis(api_client: client.ApiClient) -> None:
    batch = client.BatchV1Api(api_client)
    name = "test-job"
    container = {"image": "busybox", "name": name, "command": ["sh", "-c", "sleep 5"]}
    job = {
        "kind": "Job",
        "apiVersion": "batch/v1",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "metadata": {"name": name},
                "spec": {"containers": [container], "restartPolicy": "Never"},
            }
        },
    }
    assert batch.create_namespaced_job(NS, job).metadata.name == name
    read = batch.read_namespaced_job(name, NS)
    (c,) = read.spec.template.spec.containers
    assert (c.name, c.image, c.command) == (name, "busybox", ["sh", "-c", "sleep 5"])
    assert read.spec.template.spec.restart_policy == "Never"
    deleted = batch.delete_namespaced_job(name, NS, body={"propagationPolicy": "Background"})
    assert isinstance(deleted, dict)  # the client leaves a Job-or-Status answer undecoded
    assert deleted["kind"] in ("Job", "Status")
    if deleted["kind"] == "Job":
        assert deleted["metadata"]["name"] == name
    else:
        assert deleted["status"] == "Success"


def test_new_objects_decode_with_their_status(api_client: client.ApiClient) -> None:
    """The create answer, before any controller wrote a status: upstream serializes the status
    struct (empty, but with its non-omitempty fields: ReplicaSet and StatefulSet ``replicas``,
    DaemonSet's four counts), and the client's models require exactly those fields."""
    apps, batch = client.AppsV1Api(api_client), client.BatchV1Api(api_client)
    core = client.CoreV1Api(api_client)
    labels = {"app": "fresh"}
    template = {
        "metadata": {"labels": labels},
        "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]},
    }
    idle = {"replicas": 0, "selector": {"matchLabels": labels}, "template": template}
    meta = {"name": "fresh"}
    rs = apps.create_namespaced_replica_set(NS, {"metadata": meta, "spec": idle})
    assert rs.status is not None and rs.status.replicas == 0
    sts_spec = {**idle, "serviceName": "fresh"}
    sts = apps.create_namespaced_stateful_set(NS, {"metadata": meta, "spec": sts_spec})
    assert sts.status is not None and sts.status.replicas == 0
    nowhere = {**template, "spec": {**template["spec"], "nodeSelector": {"no-such": "node"}}}
    ds = apps.create_namespaced_daemon_set(
        NS, {"metadata": meta, "spec": {"selector": {"matchLabels": labels}, "template": nowhere}}
    )
    assert ds.status is not None
    status = ds.status
    counts = (status.current_number_scheduled, status.number_misscheduled, status.desired_number_scheduled)
    assert (*counts, status.number_ready) == (0, 0, 0, 0)
    deployment = apps.create_namespaced_deployment(NS, {"metadata": meta, "spec": idle})
    assert isinstance(deployment.status, client.V1DeploymentStatus)
    job_template = {**template, "spec": {**template["spec"], "restartPolicy": "Never"}}
    job_spec = {"suspend": True, "template": job_template}
    job = batch.create_namespaced_job(NS, {"metadata": meta, "spec": job_spec})
    assert isinstance(job.status, client.V1JobStatus)
    quota = core.create_namespaced_resource_quota(NS, {"metadata": meta, "spec": {"hard": {"pods": "100"}}})
    assert isinstance(quota.status, client.V1ResourceQuotaStatus)
    for delete in (
        apps.delete_namespaced_replica_set,
        apps.delete_namespaced_stateful_set,
        apps.delete_namespaced_daemon_set,
        apps.delete_namespaced_deployment,
        batch.delete_namespaced_job,
        core.delete_namespaced_resource_quota,
    ):
        delete("fresh", NS, propagation_policy="Background")


def test_shared_informer_follows_configmaps(core: client.CoreV1Api) -> None:
    """test_informer's shape: the cache fills from the list, then ADDED, MODIFIED, DELETED."""
    core.create_namespaced_config_map(
        NS, {"metadata": {"name": "inf-pre", "labels": {"inf-e2e": "1"}}, "data": {"k": "v"}}
    )
    seen: dict[str, threading.Event] = {kind: threading.Event() for kind in (ADDED, MODIFIED, DELETED)}

    def handler(kind: str) -> Any:
        return lambda obj: seen[kind].set() if obj.metadata.name == "inf-new" else None

    informer = SharedInformer(
        list_func=core.list_namespaced_config_map, namespace=NS, label_selector="inf-e2e=1"
    )
    for kind in seen:
        informer.add_event_handler(kind, handler(kind))
    informer.start()
    try:
        cached = eventually(
            lambda: informer.cache.get_by_key(f"{NS}/inf-pre"), "the listed ConfigMap in the cache"
        )
        assert cached.data == {"k": "v"}
        core.create_namespaced_config_map(NS, {"metadata": {"name": "inf-new", "labels": {"inf-e2e": "1"}}})
        assert seen[ADDED].wait(timeout=30)
        core.patch_namespaced_config_map("inf-new", NS, {"data": {"k": "updated"}})
        assert seen[MODIFIED].wait(timeout=30)
        assert eventually(
            lambda: (informer.cache.get_by_key(f"{NS}/inf-new").data or {}).get("k") == "updated",
            "the update",
        )
        core.delete_namespaced_config_map("inf-new", NS)
        assert seen[DELETED].wait(timeout=30)
        eventually(lambda: informer.cache.get_by_key(f"{NS}/inf-new") is None, "the deletion in the cache")
    finally:
        informer.stop()
        core.delete_namespaced_config_map("inf-pre", NS)


def test_every_list_deserializes(api_client: client.ApiClient) -> None:
    """Every kind the cluster serves, listed cluster-wide through its typed API: the objects the
    control plane and the node wrote itself decode into the client's models."""
    core, apps, batch = (
        client.CoreV1Api(api_client),
        client.AppsV1Api(api_client),
        client.BatchV1Api(api_client),
    )
    rbac = client.RbacAuthorizationV1Api(api_client)
    lists = [
        core.list_pod_for_all_namespaces,
        core.list_service_for_all_namespaces,
        core.list_endpoints_for_all_namespaces,
        core.list_config_map_for_all_namespaces,
        core.list_secret_for_all_namespaces,
        core.list_service_account_for_all_namespaces,
        core.list_event_for_all_namespaces,
        core.list_namespace,
        core.list_node,
        core.list_limit_range_for_all_namespaces,
        core.list_resource_quota_for_all_namespaces,
        apps.list_deployment_for_all_namespaces,
        apps.list_replica_set_for_all_namespaces,
        apps.list_stateful_set_for_all_namespaces,
        apps.list_daemon_set_for_all_namespaces,
        batch.list_job_for_all_namespaces,
        rbac.list_cluster_role,
        rbac.list_cluster_role_binding,
        rbac.list_role_for_all_namespaces,
        rbac.list_role_binding_for_all_namespaces,
        client.CoordinationV1Api(api_client).list_lease_for_all_namespaces,
        client.DiscoveryV1Api(api_client).list_endpoint_slice_for_all_namespaces,
        client.SchedulingV1Api(api_client).list_priority_class,
        client.AdmissionregistrationV1Api(api_client).list_validating_webhook_configuration,
        core.list_persistent_volume,
        core.list_persistent_volume_claim_for_all_namespaces,
        core.list_replication_controller_for_all_namespaces,
        apps.list_controller_revision_for_all_namespaces,
    ]
    failures = {}
    for list_all in lists:
        try:
            assert list_all().metadata.resource_version
        except Exception as err:  # every list's failure at once, not the first only
            failures[list_all.__name__] = f"{type(err).__name__}: {err}"
    assert not failures, failures


def test_version_api(api_client: client.ApiClient) -> None:
    """``VersionApi.get_code`` asks for ``/version/`` (with the trailing slash)."""
    version = client.VersionApi(api_client).get_code()
    assert isinstance(version, client.VersionInfo)
    assert version.major == "1" and version.git_version.startswith("v1.") and version.platform


def test_raw_json_bodies_end_with_a_newline(core: client.CoreV1Api) -> None:
    """``_preload_content=False`` hands the body over as sent: upstream's JSON encoder ends every
    object with a newline, and a program comparing bodies byte for byte sees it."""
    core.create_namespaced_config_map(NS, {"metadata": {"name": "raw"}, "data": {"k": "v"}})
    try:
        one = core.read_namespaced_config_map("raw", NS, _preload_content=False)
        listed = core.list_namespaced_config_map(NS, _preload_content=False)
        for response in (one, listed):
            body = response.data
            assert body.endswith(b"}\n") and not body.endswith(b"\n\n"), body[-40:]
        assert json.loads(one.data)["data"] == {"k": "v"}
    finally:
        core.delete_namespaced_config_map("raw", NS)


def test_replication_controller_apis(core: client.CoreV1Api) -> None:
    """The suite's ``test_replication_controller_apis``, plus what a running cluster does with
    it: the controller makes the two pods, and a DELETE with an empty body (no propagation
    policy) orphans them, as core/v1 ReplicationControllers do upstream."""
    name = "frontend-rc"
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"labels": {"name": name}, "name": name},
        "spec": {
            "replicas": 2,
            "selector": {"name": name},
            "template": {
                "metadata": {"labels": {"name": name}},
                "spec": {
                    "containers": [
                        {
                            "image": "nginx",
                            "name": "nginx",
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                        }
                    ]
                },
            },
        },
    }
    created = core.create_namespaced_replication_controller(NS, manifest)
    assert created.metadata.name == name and created.spec.replicas == 2
    read = core.read_namespaced_replication_controller(name, NS)
    assert read.metadata.name == name and read.spec.replicas == 2
    selector = f"name={name}"
    try:
        eventually(
            lambda: core.read_namespaced_replication_controller_status(name, NS).status.replicas == 2,
            "the controller's two replicas",
        )
        owned = core.list_namespaced_pod(NS, label_selector=selector).items
        assert [ref.kind for pod in owned for ref in pod.metadata.owner_references] == [
            "ReplicationController"
        ] * 2
        scale = core.read_namespaced_replication_controller_scale(name, NS)
        assert scale.spec.replicas == 2 and scale.status.selector == selector
        core.delete_namespaced_replication_controller(name, NS, body={})
        eventually(
            lambda: all(
                not pod.metadata.owner_references
                for pod in core.list_namespaced_pod(NS, label_selector=selector).items
            ),
            "the orphaned pods to lose their owner reference",
        )
        assert len(core.list_namespaced_pod(NS, label_selector=selector).items) == 2
    finally:
        core.delete_collection_namespaced_pod(NS, label_selector=selector, grace_period_seconds=0)

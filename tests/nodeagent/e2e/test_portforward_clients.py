"""Port forwarding for clients other than kubectl, end to end inside ``up`` (``--nodes 1
--fake-nodes 1``): the official Python client's ``kubernetes.stream.portforward`` (the shapes of
its own e2e tests ``test_portforward_raw`` and ``test_portforward_http``), kr8s's
``PortForward``, and a raw WebSocket client speaking the kubelet's channel protocols
(``v4.channel.k8s.io``, ``v4.base64.channel.k8s.io``, none), through the apiserver's tunnel to
the node agent, to a real TCP server in a pod. kubectl's SPDY paths are
``test_streams_kubectl``'s."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import ssl
import struct
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import kr8s.asyncio
import kr8s.asyncio.objects
import pytest
import websocket
from kubernetes import client, config
from kubernetes.stream import portforward

from tests.cluster import Cluster, eventually, free_port, kubectl, start_up
from tests.nodeagent.e2e.test_agent_kubectl import container_state, run_pod

pytestmark = pytest.mark.e2e

ECHO, ECHO_TOO, NOTHING, GREETER = 1234, 1235, 1236, 1237
GREETING = b"hello and goodbye"
# Echoes on ECHO and ECHO_TOO; on GREETER writes GREETING and closes; nothing listens on NOTHING.
SERVER = f"""
import os, socket, threading
def echo(conn):
    with conn:
        while data := conn.recv(65536):
            conn.sendall(data)
def greet(conn):
    with conn:
        conn.sendall({GREETING!r})
def serve(port, handle):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((os.environ["POD_IP"], port))
    listener.listen()
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()
threading.Thread(target=serve, args=({ECHO}, echo), daemon=True).start()
threading.Thread(target=serve, args=({ECHO_TOO}, echo), daemon=True).start()
serve({GREETER}, greet)
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(
        tmp_path_factory.mktemp("portforward"), free_port(), flags=["--nodes", "1", "--fake-nodes", "1"]
    )
    running.wait_ready()
    try:
        # pods need the namespace's default service account, which a controller creates
        eventually(lambda: kubectl(running, "get", "serviceaccount", "default").returncode == 0, "default SA")
        server = {
            "name": "server",
            "image": "python",
            "command": [sys.executable, "-u", "-c", SERVER],
            "readinessProbe": {"tcpSocket": {"port": GREETER}, "periodSeconds": 1},
        }
        run_pod(running, "echo", {"containers": [server]})
        run_pod(running, "sim", {"containers": [{"name": "c", "image": "x"}]}, node="fake-1")
        web = {"name": "nginx", "image": "nginx", "ports": [{"containerPort": 8080}]}
        run_pod(running, "web", {"containers": [web]})
        core = client.CoreV1Api(config.new_client_from_config(config_file=str(running.kubeconfig)))
        eventually(lambda: ready(core, "echo"), "the echo server to be ready")
        eventually(lambda: "running" in container_state(running, "sim"), "sim to run")
        eventually(lambda: "running" in container_state(running, "web"), "web to run")
    except BaseException:  # a failed set-up must not leave the cluster running
        running.stop()
        raise
    yield running
    if running.process.poll() is None:
        running.stop()


@pytest.fixture
def core(cluster: Cluster) -> client.CoreV1Api:
    return client.CoreV1Api(config.new_client_from_config(config_file=str(cluster.kubeconfig)))


def ready(core: client.CoreV1Api, name: str) -> bool:
    statuses = core.read_namespaced_pod(name, "default").status.container_statuses or []
    return bool(statuses) and bool(statuses[0].ready)


# the official Python client


def receive_exactly(sock: Any, size: int, timeout: float = 10.0) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, f"unexpected close after {data!r}"
        data += chunk
    return data


def test_the_python_clients_portforward_relays_each_port_and_reports_a_closed_one(
    core: client.CoreV1Api, cluster: Cluster
) -> None:
    """``test_portforward_raw``'s shape: two echoing ports and one nothing listens on, twice."""
    assert cluster.network is not None
    node_range = cluster.network.node_cidr(0).rsplit(".", 1)[0] + "."  # node-1's pods
    for attempt in range(2):
        forward_three_ports(core, attempt, node_range)


def forward_three_ports(core: client.CoreV1Api, attempt: int, node_range: str) -> None:
    ports = f"{ECHO},{ECHO_TOO},{NOTHING}"
    pf = portforward(core.connect_get_namespaced_pod_portforward, "echo", "default", ports=ports)
    assert pf.connected
    first, second = pf.socket(ECHO), pf.socket(ECHO_TOO)
    for sock, port in ((first, ECHO), (second, ECHO_TOO)):
        sent = f"test {attempt} port {port} forwarding".encode()
        sock.sendall(sent)
        assert receive_exactly(sock, len(sent)) == sent
    error = eventually(lambda: pf.error(NOTHING), "the closed port's error")
    assert f"error forwarding port {NOTHING} to pod " in error
    assert f"dial tcp4 {node_range}" in error and f":{NOTHING}: connect: connection refused" in error
    for sock in (first, second):  # the same connections again
        sent = b"another test using fileno " + str(sock.fileno()).encode()
        sock.sendall(sent)
        assert receive_exactly(sock, len(sent)) == sent
        sock.close()
    pf.socket(NOTHING).close()
    eventually(lambda: not pf.connected, "the client to hang up once its ports are closed")
    assert pf.error(ECHO) is None and pf.error(ECHO_TOO) is None


def test_the_python_clients_portforward_carries_http(
    core: client.CoreV1Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``test_portforward_http``'s shape: urllib's connections to ``<pod>.<namespace>.kubernetes``
    are port forwards; the page comes back and the server's close ends the response."""
    create_connection = socket.create_connection

    def through_a_forward(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        name = address[0].split(".")
        if len(name) != 3 or name[2] != "kubernetes":
            return create_connection(address, *args, **kwargs)
        pf = portforward(core.connect_get_namespaced_pod_portforward, name[0], name[1], ports=str(address[1]))
        return pf.socket(address[1])

    monkeypatch.setattr(socket, "create_connection", through_a_forward)
    with urllib.request.urlopen("http://web.default.kubernetes:8080/", timeout=10) as response:
        html = response.read().decode()
    assert response.status == 200
    assert "<h1>Welcome to nginx!</h1>" in html


def test_the_python_client_gets_the_fake_runtimes_refusal(core: client.CoreV1Api) -> None:
    pf = portforward(core.connect_get_namespaced_pod_portforward, "sim", "default", ports="80")
    error = eventually(lambda: pf.error(80), "the simulated pod's error")
    assert "error forwarding port 80 to pod " in error
    assert "simulated pods have no network" in error
    eventually(lambda: not pf.connected, "the server to close: its only port failed")


# a raw WebSocket client


def connect(cluster: Cluster, pod: str, query: str, protocols: list[str] | None) -> websocket.WebSocket:
    pki = cluster.data_dir / "pki"
    url = f"wss://127.0.0.1:{cluster.port}/api/v1/namespaces/default/pods/{pod}/portforward?{query}"
    ssl_options = {
        "ca_certs": str(cluster.ca_file),
        "certfile": str(pki / "admin.crt"),
        "keyfile": str(pki / "admin.key"),
        "cert_reqs": ssl.CERT_REQUIRED,
    }
    return websocket.create_connection(url, subprotocols=protocols, sslopt=ssl_options, timeout=10)


def receive(ws: websocket.WebSocket) -> tuple[int, bytes]:
    opcode, data = ws.recv_data(control_frame=True)
    return opcode, data


def binary(channel: int, data: bytes) -> bytes:
    return bytes([channel]) + data


def port_bytes(port: int) -> bytes:
    return struct.pack("<H", port)


def channel_messages(ws: websocket.WebSocket, count: int) -> list[bytes]:
    return [receive(ws)[1] for _ in range(count)]


def test_v4_channel_protocol_prefixes_each_channel_with_its_port(cluster: Cluster) -> None:
    ws = connect(cluster, "echo", f"ports={ECHO},{GREETER}", ["v4.channel.k8s.io"])
    try:
        assert ws.getsubprotocol() == "v4.channel.k8s.io"
        assert channel_messages(ws, 4) == [
            binary(0, port_bytes(ECHO)),
            binary(1, port_bytes(ECHO)),
            binary(2, port_bytes(GREETER)),
            binary(3, port_bytes(GREETER)),
        ]
        assert receive(ws) == (websocket.ABNF.OPCODE_BINARY, binary(2, GREETING))
        ws.send_binary(binary(0, b"ping"))
        ws.send_binary(binary(1, b"ignored: the error channel is the server's"))
        ws.send_binary(binary(9, b"ignored: no such channel"))
        ws.send_binary(b"")
        ws.send_binary(binary(0, b"pong"))
        echoed = b""
        while len(echoed) < len(b"pingpong"):
            opcode, data = receive(ws)
            assert (opcode, data[:1]) == (websocket.ABNF.OPCODE_BINARY, b"\0")
            echoed += data[1:]
        assert echoed == b"pingpong"
    finally:
        ws.close()


def test_the_server_closes_the_websocket_once_every_port_ended(cluster: Cluster) -> None:
    ws = connect(cluster, "echo", f"ports={GREETER}", ["v4.channel.k8s.io"])
    try:
        assert channel_messages(ws, 3) == [
            binary(0, port_bytes(GREETER)),
            binary(1, port_bytes(GREETER)),
            binary(0, GREETING),
        ]
        opcode, data = receive(ws)
        assert opcode == websocket.ABNF.OPCODE_CLOSE
        assert struct.unpack("!H", data[:2]) == (1000,)
    finally:
        ws.close()


def test_a_port_nothing_listens_on_gets_its_error_on_the_error_channel(cluster: Cluster) -> None:
    ws = connect(cluster, "echo", f"ports={NOTHING}", ["v5.channel.k8s.io", "v4.channel.k8s.io"])
    try:
        assert ws.getsubprotocol() == "v4.channel.k8s.io"  # v5 is exec's only
        assert channel_messages(ws, 2) == [binary(0, port_bytes(NOTHING)), binary(1, port_bytes(NOTHING))]
        opcode, data = receive(ws)
        assert (opcode, data[:1]) == (websocket.ABNF.OPCODE_BINARY, b"\1")
        message = data[1:].decode()
        assert message.startswith(f"error forwarding port {NOTHING} to pod "), message
        assert message.endswith(f":{NOTHING}: connect: connection refused"), message
        assert receive(ws)[0] == websocket.ABNF.OPCODE_CLOSE
    finally:
        ws.close()


def b64(channel: int, data: bytes) -> str:
    return str(channel) + base64.b64encode(data).decode()


def test_base64_channel_protocol_sends_text_messages(cluster: Cluster) -> None:
    ws = connect(cluster, "echo", f"ports={ECHO}", ["v4.base64.channel.k8s.io"])
    try:
        assert ws.getsubprotocol() == "v4.base64.channel.k8s.io"
        assert [receive(ws) for _ in range(2)] == [
            (websocket.ABNF.OPCODE_TEXT, b64(0, port_bytes(ECHO)).encode()),
            (websocket.ABNF.OPCODE_TEXT, b64(1, port_bytes(ECHO)).encode()),
        ]
        ws.send("0not base64!")  # dropped, as upstream drops it
        payload = bytes(range(256))
        ws.send(b64(0, payload))
        echoed = b""
        while len(echoed) < len(payload):
            opcode, data = receive(ws)
            assert (opcode, data[:1]) == (websocket.ABNF.OPCODE_TEXT, b"0")
            echoed += base64.b64decode(data[1:])
        assert echoed == payload
    finally:
        ws.close()


def test_no_subprotocol_is_the_binary_protocol(cluster: Cluster) -> None:
    ws = connect(cluster, "echo", f"ports={ECHO}", None)
    try:
        assert ws.getsubprotocol() is None
        assert channel_messages(ws, 2) == [binary(0, port_bytes(ECHO)), binary(1, port_bytes(ECHO))]
        ws.send_binary(binary(0, b"plain"))
        assert receive(ws) == (websocket.ABNF.OPCODE_BINARY, binary(0, b"plain"))
    finally:
        ws.close()


def handshake(cluster: Cluster, pod: str, query: str, protocols: list[str] | None) -> tuple[int, str]:
    """The status of the opening handshake and a refusal's body (101 and "" when accepted)."""
    try:
        connect(cluster, pod, query, protocols).close()
    except websocket.WebSocketBadStatusException as failure:
        body = failure.resp_body
        return failure.status_code, body.decode() if isinstance(body, bytes) else str(body)
    return 101, ""


def refused(cluster: Cluster, pod: str, query: str, protocols: list[str] | None) -> tuple[int, str]:
    status, body = handshake(cluster, pod, query, protocols)
    assert status != 101, "the handshake succeeded"
    return status, body


def test_refusals_are_the_kubelets(cluster: Cluster) -> None:
    """Ports before the protocol, as the kubelet checks them (via the apiserver, which turns
    ``ports`` into the kubelet's ``port``)."""
    assert refused(cluster, "echo", "", ["v4.channel.k8s.io"]) == (400, 'query parameter "port" is required')
    assert refused(cluster, "echo", "ports=0", ["v4.channel.k8s.io"]) == (400, 'port "0" must be > 0')
    status, body = refused(cluster, "echo", f"ports={ECHO}", ["v5.channel.k8s.io", "channel.k8s.io"])
    assert status == 403
    assert body.startswith("requested protocol(s) are not supported: [v5.channel.k8s.io channel.k8s.io]")
    # the apiserver's own conversion of ports comes first: a Status
    status, body = refused(cluster, "echo", "ports=http", ["v4.channel.k8s.io"])
    assert status == 400
    assert json.loads(body)["message"].startswith("cannot convert to []int32")


def test_a_pod_that_no_longer_runs_is_the_kubelets_pod_not_found(
    cluster: Cluster, core: client.CoreV1Api
) -> None:
    """Its sandbox is gone: upstream's ``GetPortForward`` error, a 500 before any upgrade."""
    done = {"name": "c", "image": "busybox", "command": ["true"]}
    run_pod(cluster, "done", {"containers": [done], "restartPolicy": "Never"})
    eventually(lambda: core.read_namespaced_pod("done", "default").status.phase == "Succeeded", "done to end")
    gone = (500, 'pod not found ("done_default")')
    eventually(lambda: handshake(cluster, "done", "ports=80", ["v4.channel.k8s.io"]) == gone, "the refusal")


def test_a_slow_reader_does_not_lose_data(cluster: Cluster) -> None:
    """More than the agent queues for a port (16 messages), sent before reading any of it back
    (512 KiB: well under what the sockets on the way buffer, so the client never blocks)."""
    ws = connect(cluster, "echo", f"ports={ECHO}", ["v4.channel.k8s.io"])
    try:
        channel_messages(ws, 2)
        chunk = bytes(range(256)) * 64  # 16 KiB
        for _ in range(32):
            ws.send_binary(binary(0, chunk))
        echoed = bytearray()
        deadline = time.monotonic() + 30
        while len(echoed) < 32 * len(chunk) and time.monotonic() < deadline:
            echoed += receive(ws)[1][1:]
        assert bytes(echoed) == chunk * 32
    finally:
        ws.close()


def established_to(ip: str, port: int) -> int:
    """How many TCP connections to ``ip:port`` are established on this machine (the server's
    side of each, from /proc/net/tcp)."""
    local = f"{socket.inet_aton(ip)[::-1].hex().upper()}:{port:04X}"
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    return sum(1 for row in rows if row[1] == local and row[3] == "01")


def test_the_pod_connection_is_closed_when_the_client_hangs_up(
    cluster: Cluster, core: client.CoreV1Api
) -> None:
    ip = core.read_namespaced_pod("echo", "default").status.pod_ip
    eventually(lambda: established_to(ip, ECHO) == 0, "earlier tests' connections to end")
    ws = connect(cluster, "echo", f"ports={ECHO}", ["v4.channel.k8s.io"])
    channel_messages(ws, 2)
    ws.send_binary(binary(0, b"x"))
    assert receive(ws)[1] == binary(0, b"x")
    assert established_to(ip, ECHO) == 1
    ws.close()
    eventually(lambda: established_to(ip, ECHO) == 0, "the forward's pod connection to be closed")


# kr8s


async def test_kr8s_port_forward_relays_a_connection(cluster: Cluster) -> None:
    """kr8s opens one WebSocket per local connection, for one port (its client creation asks
    ``GET /version/`` first, with the slash, which is served as upstream's)."""
    api = await kr8s.asyncio.api(kubeconfig=str(cluster.kubeconfig))
    pod = await kr8s.asyncio.objects.Pod.get("echo", namespace="default", api=api)
    async with pod.portforward(remote_port=ECHO) as local_port:
        for attempt in range(2):  # a new connection, a new forward
            reader, writer = await asyncio.open_connection("127.0.0.1", local_port)
            sent = f"kr8s connection {attempt}".encode()
            writer.write(sent)
            assert await asyncio.wait_for(reader.readexactly(len(sent)), 10) == sent
            writer.close()
            await writer.wait_closed()

"""``kubectl exec``, ``attach`` and ``port-forward`` end to end inside ``up`` (``--nodes 1
--fake-nodes 1``): kubectl to the apiserver, tunnelled to the node agent, to real processes (or
the fake runtime's scripted output), with each protocol kubectl speaks: WebSocket (1.30+),
SPDY (<= 1.29, or forced by env), and SPDY in WebSocket for port forwarding (1.31+)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import socket
import struct
import subprocess
import termios
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cluster import Cluster, free_port, start_up
from tests.nodeagent.e2e.test_agent_kubectl import container_state, eventually, ok, phase, run_pod

pytestmark = pytest.mark.e2e
KUBECTL = shutil.which("kubectl") or "kubectl"
VERSIONS = Path(os.path.realpath(KUBECTL)).parent


def kubectl_binary(version: str) -> str:
    binary = VERSIONS / f"kubectl.{version}" if version else Path(KUBECTL)
    if not binary.exists():
        pytest.skip(f"no {binary}")
    return str(binary)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(
        tmp_path_factory.mktemp("streams"), free_port(), flags=["--nodes", "1", "--fake-nodes", "1"]
    )
    running.wait_ready()
    # pods need the namespace's default service account, which a controller creates
    eventually(lambda: run(running, "get", "serviceaccount", "default").returncode == 0, "the default SA")
    run_pod(cluster=running, name="box", spec={"containers": [{"name": "c", "image": "busybox", **SLEEP}]})
    volume = {"name": "scratch", "emptyDir": {}}
    mounted = {
        "name": "c",
        "image": "busybox",
        **SLEEP,
        "volumeMounts": [{"name": "scratch", "mountPath": "/data"}],
    }
    run_pod(running, "mounted", {"containers": [mounted], "volumes": [volume]})
    web = {"name": "nginx", "image": "nginx", "ports": [{"containerPort": 8080}]}
    run_pod(running, "web", {"containers": [web]})
    for name in ("box", "mounted", "web"):
        eventually(lambda name=name: "running" in container_state(running, name), f"{name} to run")
    yield running
    if running.process.poll() is None:
        running.stop()


SLEEP = {"command": ["sh", "-c", "echo hello > /tmp/x; exec sleep 3600"]}


def run(
    cluster: Cluster,
    *args: str,
    binary: str = KUBECTL,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    command = [binary, "--kubeconfig", str(cluster.kubeconfig), *args]
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})}
    )


EXIT_7 = ["exec", "box", "--", "sh", "-c", "echo out; echo err >&2; exit 7"]


@pytest.mark.parametrize(
    ("version", "env"),
    [
        ("", {}),
        ("", {"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"}),
        ("1.27", {}),
        ("1.29", {}),
        ("1.33", {}),
    ],
    ids=["websocket", "spdy-forced", "1.27-spdy", "1.29-spdy", "1.33-websocket"],
)
def test_exec_relays_output_and_the_exit_code(cluster: Cluster, version: str, env: dict[str, str]) -> None:
    result = run(cluster, *EXIT_7, binary=kubectl_binary(version), env=env)
    assert result.returncode == 7, result.stderr
    assert result.stdout == "out\n"
    assert "err\n" in result.stderr
    assert "command terminated with exit code 7" in result.stderr


@pytest.mark.parametrize("version", ["", "1.27"])
def test_exec_streams_stdin(cluster: Cluster, version: str) -> None:
    result = run(
        cluster, "exec", "-i", "box", "--", "cat", binary=kubectl_binary(version), stdin="hi\nthere\n"
    )
    assert (result.returncode, result.stdout) == (0, "hi\nthere\n"), result.stderr


def test_exec_with_a_tty_gets_a_terminal(cluster: Cluster) -> None:
    """kubectl on a terminal (a pty here): the command's stdin and stdout are a terminal of the
    client's size, stderr merged into stdout, input echoed."""
    script = "test -t 0 && echo is-a-tty; stty size; echo err >&2; read line; echo got-$line"
    command = [
        KUBECTL,
        "--kubeconfig",
        str(cluster.kubeconfig),
        "exec",
        "-it",
        "box",
        "--",
        "sh",
        "-c",
        script,
    ]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 101, 0, 0))
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    output = b""
    try:
        while b"err" not in output:
            output += os.read(master, 4096)
        os.write(master, b"typed\r")
        while True:
            output += os.read(master, 4096)
    except OSError:  # EIO: kubectl exited
        pass
    finally:
        os.close(master)
    text = output.decode(errors="replace").replace("\r\n", "\n")
    assert process.wait(timeout=30) == 0, text
    assert "is-a-tty\n33 101\nerr\n" in text
    assert "got-typed" in text


def test_exec_sees_the_containers_volumes(cluster: Cluster) -> None:
    ok(cluster, "exec", "mounted", "--", "sh", "-c", "echo kept > /data/file")
    assert ok(cluster, "exec", "mounted", "--", "cat", "/data/file") == "kept\n"


def test_exec_of_a_missing_command_fails_like_runc(cluster: Cluster) -> None:
    result = run(cluster, "exec", "box", "--", "no-such-command")
    assert result.returncode == 126, result.stderr
    assert 'exec: "no-such-command": executable file not found in $PATH' in result.stderr


def test_exec_into_a_missing_container_is_refused_by_the_apiserver(cluster: Cluster) -> None:
    result = run(cluster, "exec", "box", "-c", "nope", "--", "true")
    assert result.returncode == 1
    assert "container nope is not valid for pod box" in result.stderr


def test_exec_on_a_fake_node_returns_the_scripted_output(cluster: Cluster) -> None:
    env = [{"name": "FAKE_EXEC_OUTPUT", "value": "scripted\n"}, {"name": "FAKE_EXEC_EXIT_CODE", "value": "3"}]
    run_pod(cluster, "sim", {"containers": [{"name": "c", "image": "x", "env": env}]}, node="fake-1")
    eventually(lambda: "running" in container_state(cluster, "sim"), "sim to run")
    result = run(cluster, "exec", "sim", "--", "anything")
    assert (result.returncode, result.stdout) == (3, "scripted\n"), result.stderr


def attaching(cluster: Cluster, *args: str, binary: str = KUBECTL) -> subprocess.Popen[bytes]:
    command = [binary, "--kubeconfig", str(cluster.kubeconfig), "attach", *args]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def read_until(process: subprocess.Popen[bytes], done: Callable[[bytes], bool], timeout: float = 30) -> bytes:
    assert process.stdout is not None
    output, deadline = b"", time.monotonic() + timeout
    while not done(output):
        ready, _, _ = select.select([process.stdout], [], [], max(deadline - time.monotonic(), 0))
        chunk = os.read(process.stdout.fileno(), 4096) if ready else b""
        assert chunk, f"no more output after {output!r}"
        output += chunk
    return output


def run_container(cluster: Cluster, name: str, script: str, **fields: object) -> None:
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", script], **fields}
    run_pod(cluster, name, {"containers": [container], "restartPolicy": "Never"})
    eventually(lambda: "running" in container_state(cluster, name), f"{name} to run")


def test_attach_streams_what_the_container_writes_from_now_on(cluster: Cluster) -> None:
    run_container(cluster, "ticker", "i=0; while true; do echo tick-$i; i=$((i+1)); sleep 0.2; done")
    before = [int(line.split("-")[1]) for line in ok(cluster, "logs", "ticker").split()]
    process = attaching(cluster, "ticker")
    try:
        output = read_until(process, lambda out: out.count(b"\n") >= 3)
    finally:
        process.terminate()
        process.communicate(timeout=10)
    ticks = [int(line.split(b"-")[1]) for line in output.split()]
    assert ticks[0] > max(before, default=-1), (before, ticks)  # not the past output
    assert ticks[:3] == list(range(ticks[0], ticks[0] + 3))
    assert "running" in container_state(cluster, "ticker")  # detaching leaves it running


@pytest.mark.parametrize("version", ["", "1.27"])
def test_attach_forwards_stdin_to_the_container(cluster: Cluster, version: str) -> None:
    """``stdinOnce``: the client's end of input closes cat's stdin, so cat (and the session) ends."""
    name = f"cat-{version.replace('.', '') or 'latest'}"
    run_container(cluster, name, "exec cat", stdin=True, stdinOnce=True)
    result = run(cluster, "attach", "-i", name, binary=kubectl_binary(version), stdin="hi\nthere\n")
    assert (result.returncode, result.stdout) == (0, "hi\nthere\n"), result.stderr
    eventually(lambda: phase(cluster, name) == "Succeeded", f"{name} to complete")


@pytest.mark.parametrize("version", ["", "1.27"])
def test_attach_ends_with_the_containers_exit_code(cluster: Cluster, version: str) -> None:
    name = f"exits-{version.replace('.', '') or 'latest'}"
    script = "while [ ! -e /tmp/go ]; do echo waiting; sleep 0.2; done; echo bye; exit 5"
    run_container(cluster, name, script)
    process = attaching(cluster, name, binary=kubectl_binary(version))
    read_until(process, lambda out: b"waiting" in out)
    ok(cluster, "exec", name, "--", "touch", "/tmp/go")  # the container's /tmp is its own
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 5, stderr
    assert b"bye\n" in stdout
    assert b"command terminated with exit code 5" in stderr


@pytest.mark.parametrize(
    ("version", "env"),
    [("", {}), ("", {"KUBECTL_PORT_FORWARD_WEBSOCKETS": "false"}), ("1.29", {}), ("1.27", {})],
    ids=["websocket-tunnel", "spdy-forced", "1.29-spdy", "1.27-spdy"],
)
def test_port_forward_reaches_the_pod(cluster: Cluster, version: str, env: dict[str, str]) -> None:
    port = free_port()
    with forwarding(cluster, kubectl_binary(version), f"{port}:8080", env) as forward:
        page = eventually(lambda: page_or_nothing(port), "the page through the forward")
        assert "Welcome to nginx" in page
        assert "Welcome to nginx" in get_page(port)  # a second connection on the same session
        assert forward.poll() is None


def test_port_forward_to_a_closed_port_reports_the_error(cluster: Cluster) -> None:
    port = free_port()
    with forwarding(cluster, KUBECTL, f"{port}:9", {}) as forward:
        eventually(lambda: try_connect(port), "the local listener")
        time.sleep(1.0)
        forward.terminate()
        _, stderr = forward.communicate(timeout=10)
    assert "error forwarding port 9 to pod" in stderr
    assert "connection refused" in stderr


class forwarding:
    def __init__(self, cluster: Cluster, binary: str, ports: str, env: dict[str, str]) -> None:
        command = [binary, "--kubeconfig", str(cluster.kubeconfig), "port-forward", "pod/web", ports]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env}
        )

    def __enter__(self) -> subprocess.Popen[str]:
        return self.process

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.communicate(timeout=10)


def get_page(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
        return str(response.read().decode())


def page_or_nothing(port: int) -> str:
    try:
        return get_page(port)
    except OSError:
        return ""


def try_connect(port: int) -> bool:
    """Whether the local listener accepts and answers (here: closes, the forward failing)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            connection.sendall(b"GET / HTTP/1.0\r\n\r\n")
            connection.recv(100)
            return True
    except OSError:
        return False


def test_port_forward_to_a_simulated_pod_reports_that_it_has_no_network(
    cluster: Cluster, tmp_path: Path
) -> None:
    """The fake runtime refuses (its pod IPs are not this host's: nothing is dialled)."""
    run_pod(cluster, "sim-pf", {"containers": [{"name": "c", "image": "x"}]}, node="fake-1")
    eventually(lambda: "running" in container_state(cluster, "sim-pf"), "sim-pf to run")
    port, errors = free_port(), tmp_path / "stderr"
    command = [KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "port-forward", "pod/sim-pf", f"{port}:80"]
    with errors.open("w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        eventually(lambda: try_connect(port), "the local listener")
        eventually(
            lambda: "simulated pods have no network" in errors.read_text(), "kubectl to print the error"
        )
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert "error forwarding port 80 to pod " in errors.read_text()

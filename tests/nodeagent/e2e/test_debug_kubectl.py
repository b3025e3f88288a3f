"""``kubectl debug`` (issue 13 item 12) through ``up --nodes 1 --fake-nodes 1`` with every kubectl
1.27-1.33: the ephemeral container is added through ``pods/ephemeralcontainers``, runs in the
pod (its IP; with ``--target`` beside the target's processes), kubectl attaches to it (piped
stdin, and a terminal with ``-it``), and ``ephemeralContainerStatuses`` report it, on the
process runtime and on a simulated node."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from collections.abc import Iterator

import pytest

from tests.cluster import (
    KUBECTL,
    KUBECTL_DIR,
    KUBECTL_MINORS,
    Cluster,
    eventually,
    free_port,
    kubectl,
    start_up,
)
from tests.cluster import kubectl_json as get
from tests.cluster import kubectl_ok as ok

pytestmark = pytest.mark.e2e
MARKER = f"debug-target-{os.getpid()}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_up(
        tmp_path_factory.mktemp("debug"), free_port(), flags=["--nodes", "1", "--fake-nodes", "1"]
    )
    try:
        running.wait_ready()
        # pods need the namespace's default service account (its controller makes it)
        eventually(lambda: kubectl(running, "get", "serviceaccount", "default").returncode == 0, "default SA")
        ok(running, "create", "-f", "-", stdin=json.dumps(web_pod("web", "node-1")))
        ok(running, "create", "-f", "-", stdin=json.dumps(web_pod("sim", "fake-1")))
        for name in ("web", "sim"):
            eventually(
                lambda n=name: get(running, "pod", n)["status"].get("phase") == "Running", f"{name} Running"
            )
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def web_pod(name: str, node: str) -> dict[str, object]:
    # "; :" keeps the shell (and MARKER in its command line): busybox's sh execs a lone command
    app = {"name": "app", "image": "busybox", "command": ["sh", "-c", f"sleep 600; : {MARKER}"]}
    spec = {"nodeName": node, "automountServiceAccountToken": False, "containers": [app]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def read_until(fd: int, wanted: bytes | None, output: bytes, timeout: float = 30.0) -> bytes:
    """Read the pty until ``wanted`` arrived (None: until kubectl exits), failing after ``timeout``."""
    deadline = time.monotonic() + timeout
    while wanted is None or wanted not in output:
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            pytest.fail(f"timed out waiting for {wanted!r}; got {output!r}")
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: kubectl exited
            return output
        output += chunk
    return output


def ephemeral_status(cluster: Cluster, pod: str, name: str) -> dict[str, object]:
    statuses = get(cluster, "pod", pod)["status"].get("ephemeralContainerStatuses") or []
    return next((s for s in statuses if s["name"] == name), {})


@pytest.mark.parametrize("minor", KUBECTL_MINORS)
def test_kubectl_debug_attaches_a_shell_in_the_pod_beside_its_target(cluster: Cluster, minor: int) -> None:
    name = f"dbg{minor}"
    # the pattern "debug-targe[t]-N" matches the target's command line but not grep's own (a
    # plain MARKER would find itself in grep's cmdline: the check could never fail)
    pattern = MARKER.replace("target", "targe[t]", 1)
    script = (
        'echo "ip=$POD_IP"; grep -l "'
        + pattern
        + '" /proc/[0-9]*/cmdline 2>/dev/null | grep -q . && echo sees-target; exit 0\n'
    )
    result = kubectl(
        cluster,
        "debug", "-i", "web", "--image=busybox", "--target=app", "-c", name,
        binary=str(KUBECTL_DIR / f"kubectl.1.{minor}"),
        stdin=script,
    )  # fmt: skip
    pod_ip = get(cluster, "pod", "web")["status"]["podIP"]
    assert f"ip={pod_ip}\nsees-target\n" in result.stdout, (result.stdout, result.stderr)
    state = eventually(
        lambda: ephemeral_status(cluster, "web", name).get("state", {}).get("terminated"), name
    )
    assert state["exitCode"] == 0 and state["reason"] == "Completed"
    spec = next(c for c in get(cluster, "pod", "web")["spec"]["ephemeralContainers"] if c["name"] == name)
    assert spec["targetContainerName"] == "app" and spec["stdin"] is True
    # never restarted, and the pod's own container kept running
    assert ephemeral_status(cluster, "web", name)["restartCount"] == 0
    assert get(cluster, "pod", "web")["status"]["containerStatuses"][0]["restartCount"] == 0


def test_kubectl_debug_it_gets_a_terminal(cluster: Cluster) -> None:
    command = [
        KUBECTL, "--kubeconfig", str(cluster.kubeconfig), "debug", "-it", "web",
        "--image=busybox", "--target=app", "-c", "tty",
    ]  # fmt: skip
    master, slave = pty.openpty()
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    output = b""
    try:
        output = read_until(master, b"pressing enter", output)
        os.write(master, b"test -t 0 && echo on-a-tty; exit\r")
        output = read_until(master, None, output)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    text = output.decode(errors="replace").replace("\r\n", "\n")
    assert process.wait(timeout=30) == 0, text
    assert "\non-a-tty\n" in text, text


def test_kubectl_debug_on_a_simulated_node(cluster: Cluster) -> None:
    ok(cluster, "debug", "sim", "--image=busybox", "--target=app", "-c", "probe")
    running = eventually(
        lambda: ephemeral_status(cluster, "sim", "probe").get("state", {}).get("running"), "probe running"
    )
    assert running["startedAt"]
    status = ephemeral_status(cluster, "sim", "probe")
    assert status["ready"] is False and str(status["containerID"]).startswith("fake://")

"""Process-runtime behaviour beyond the contract: volumes, isolation, groups, limits, demo images."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nodeagent import logs
from nodeagent.pod.containerconfig import resolve_command
from nodeagent.runtime.interface import ContainerConfig, ContainerState, Mount, PodSandboxConfig, Resources
from nodeagent.runtime.process import ProcessRuntime
from tests.waiting import eventually


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProcessRuntime]:
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    yield rt
    await rt.close()


async def run(rt: ProcessRuntime, config: ContainerConfig) -> tuple[str, str]:
    """Start ``config`` in a new sandbox; returns (container id, pod IP)."""
    sid = await rt.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    cid = await rt.create_container(sid, config)
    await rt.start_container(cid)
    [sandbox] = [s for s in await rt.list_pod_sandboxes() if s.id == sid]
    return cid, sandbox.ip


async def wait_exited(rt: ProcessRuntime, cid: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while (await rt.container_status(cid)).state is not ContainerState.EXITED:
        assert time.monotonic() < deadline, "container did not exit"
        await asyncio.sleep(0.02)


def volumes(tmp_path: Path) -> list[Mount]:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "app.conf").write_text("color=blue\n")
    (tmp_path / "token").write_text("s3cret")
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch").chmod(0o777)  # as an emptyDir is: the container runs as nobody
    return [
        Mount(str(tmp_path / "config"), "/etc/minikube-py-test/config", read_only=True),
        Mount(str(tmp_path / "token"), "/var/run/minikube-py-test/token", read_only=True),
        Mount(str(tmp_path / "scratch"), "/minikube-py-test-data"),
    ]


SCRIPT = (
    "cat /etc/minikube-py-test/config/app.conf /var/run/minikube-py-test/token; echo; "
    "echo written > /minikube-py-test-data/out; "
    "touch /etc/minikube-py-test/config/x 2>/dev/null && echo rw-config || echo ro-config; "
    "pwd"
)


async def test_volumes_appear_at_their_mount_path_and_not_on_the_host(
    runtime: ProcessRuntime, tmp_path: Path
) -> None:
    log = str(tmp_path / "logs" / "0.log")
    config = ContainerConfig("c", "busybox", ["sh", "-c", SCRIPT], mounts=volumes(tmp_path), log_path=log)
    config = ContainerConfig(**{**config.__dict__, "working_dir": "/minikube-py-test-data"})
    cid, _ = await run(runtime, config)
    await wait_exited(runtime, cid)
    status = await runtime.container_status(cid)
    assert (status.exit_code, logs.read_log(log)) == (
        0,
        b"color=blue\ns3cret\nro-config\n/minikube-py-test-data\n",
    )
    assert (tmp_path / "scratch" / "out").read_text() == "written\n"
    for path in ("/etc/minikube-py-test", "/var/run/minikube-py-test", "/minikube-py-test-data"):
        assert not os.path.exists(path)


async def test_exec_sync_sees_the_mounts_env_and_working_dir(runtime: ProcessRuntime, tmp_path: Path) -> None:
    config = ContainerConfig(
        "c", "busybox", ["sleep", "60"], env=[("GREETING", "hi")], working_dir="/etc/minikube-py-test/config",
        mounts=volumes(tmp_path),
    )  # fmt: skip
    cid, _ = await run(runtime, config)
    result = await runtime.exec_sync(cid, ["sh", "-c", "echo $GREETING; pwd; ls"], 5)
    assert result == type(result)(0, b"hi\n/etc/minikube-py-test/config\napp.conf\n", b"")


async def test_stop_kills_the_whole_process_group(runtime: ProcessRuntime, tmp_path: Path) -> None:
    log = str(tmp_path / "0.log")
    seconds = str(300 + os.getpid() % 1000)  # `sleep <seconds>` is this test's grandchild
    script = f"sleep {seconds} & echo $!; wait"
    cid, _ = await run(runtime, ContainerConfig("c", "busybox", ["sh", "-c", script], log_path=log))
    while not logs.read_log(log):
        await asyncio.sleep(0.02)
    [grandchild] = host_pids(["sleep", seconds])
    assert alive(grandchild)
    await runtime.stop_container(cid, 2)
    await eventually(lambda: not alive(grandchild), f"grandchild {grandchild} to be gone", timeout=2)


def host_pids(argv: list[str]) -> list[int]:
    """The node's processes running ``argv`` (a container's pids are its own namespace's)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read().split(b"\0")[:-1] == [a.encode() for a in argv] and alive(int(pid)):
                    found.append(int(pid))
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that is not us counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_memory_limit_reports_oom_killed(runtime: ProcessRuntime) -> None:
    hog = [sys.executable, "-c", "x = bytearray(512 * 1024 * 1024)"]
    cid, _ = await run(runtime, ContainerConfig("c", "hog", hog, resources=Resources(memory_bytes=128 << 20)))
    await wait_exited(runtime, cid)
    status = await runtime.container_status(cid)
    assert (status.exit_code, status.reason) == (1, "OOMKilled")


async def test_nginx_demo_image_serves_http_on_the_pod_ip(runtime: ProcessRuntime, tmp_path: Path) -> None:
    command = resolve_command({"name": "nginx", "image": "docker.io/library/nginx:1.27"})
    port = 18000 + os.getpid() % 1000
    sid = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    [ip] = [s.ip for s in await runtime.list_pod_sandboxes() if s.id == sid]
    env = [("POD_IP", ip), ("NGINX_PORT", str(port))]
    cid = await runtime.create_container(
        sid, ContainerConfig("nginx", "nginx", command, env=env, log_path=str(tmp_path / "0.log"))
    )
    await runtime.start_container(cid)
    body = await asyncio.to_thread(fetch, f"http://{ip}:{port}/")
    assert b"Welcome to nginx!" in body
    await runtime.stop_container(cid, 5)
    status = await runtime.container_status(cid)
    assert status.exit_code == 0 and b'"GET / HTTP/1.1" 200' in logs.read_log(str(tmp_path / "0.log"))


def fetch(url: str) -> bytes:
    deadline = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                data: bytes = response.read()
                return data
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


NON_ROOT = textwrap.dedent(
    """
    import asyncio, os, sys
    from nodeagent.runtime.process import ProcessRuntime
    from nodeagent.runtime.interface import ContainerConfig, Mount, PodSandboxConfig
    async def main(tmp):
        rt = ProcessRuntime(state_dir=tmp + "/state")
        sid = await rt.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
        mount = Mount(tmp + "/vol", "/etc/minikube-py-test", read_only=True)
        cid = await rt.create_container(sid, ContainerConfig("c", "b", ["sleep", "30"], mounts=[mount]))
        await rt.start_container(cid)
        script = "id -u; cat /etc/minikube-py-test/f; touch /etc/minikube-py-test/f"
        r = await rt.exec_sync(cid, ["sh", "-c", script], 5)
        print(r.stdout.decode(), r.exit_code, os.path.exists("/etc/minikube-py-test"))
        # the node's files (this one is the agent's own: it could write it), processes, hostname
        script = (
            f"echo changed > {tmp}/precious || echo read-only; echo x > /tmp/x && echo private-tmp;"
            f" hostname; ls /proc | grep -c '^[0-9]'; kill -0 {os.getpid()} || echo unreachable"
        )
        r = await rt.exec_sync(cid, ["sh", "-c", script], 5)
        print(r.stdout.decode())
        root = ContainerConfig("c", "b", ["sleep", "30"], run_as_user=0)
        cid = await rt.create_container(sid, root)
        await rt.start_container(cid)
        script = f"id -u; echo changed > {tmp}/precious || echo read-only"
        r = await rt.exec_sync(cid, ["sh", "-c", script], 5)
        print(r.stdout.decode())
        # shareProcessNamespace: the pod's user, UTS, IPC and PID namespaces, joined
        pod = PodSandboxConfig("u2", "shared", "default", share_process_namespace=True)
        shared = await rt.run_pod_sandbox(pod)
        for name, seconds in (("a", "31"), ("b", "32")):
            cid = await rt.create_container(shared, ContainerConfig(name, "b", ["sleep", seconds]))
            await rt.start_container(cid)
        r = await rt.exec_sync(cid, ["sh", "-c", "hostname; ps -e -o args= | grep -c '^sleep 3'"], 5)
        print(r.stdout.decode())
        await rt.close()
    asyncio.run(main(sys.argv[1]))
    """
)


def test_non_root_uses_a_user_namespace() -> None:
    python = "/usr/bin/python3"
    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists(python):
        pytest.skip("needs root (to switch to nobody), setpriv and a system python3 readable by nobody")
    # outside /tmp (a container's /tmp is its own), so the container would see the files
    tmp = tempfile.mkdtemp(prefix=".nodeagent-nonroot-", dir=Path(__file__).parents[3])
    try:
        os.chmod(tmp, 0o777)
        os.mkdir(f"{tmp}/vol")
        Path(f"{tmp}/vol/f").write_text("from-volume\n")
        Path(f"{tmp}/precious").write_text("keep me\n")
        os.chown(f"{tmp}/precious", 65534, 65534)
        probe = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "unshare",
                "--user",
                "--mount",
                "true",
            ],
            capture_output=True,
        )
        if probe.returncode != 0:
            pytest.skip(f"the kernel forbids unprivileged user namespaces: {probe.stderr.decode().strip()}")
        result = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", NON_ROOT, tmp],
            capture_output=True, env={"PYTHONPATH": str(Path(__file__).parents[3])}, timeout=60,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr.decode()
        assert result.stdout.decode().split() == [
            "65534", "from-volume", "1", "False",
            "read-only", "private-tmp", "web", "5", "unreachable",  # init, sleep, sh, ls, grep
            "0", "read-only",
            "shared", "2",
        ]  # fmt: skip
        assert Path(f"{tmp}/precious").read_text() == "keep me\n"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

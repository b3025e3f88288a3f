"""The known images on the real process runtime: argv from the pod's ``command``/``args``
(``resolve_command``), the image's ENV and the host programs standing in for its files
(busybox's applets, the agent's Python, the node's curl). Needs Debian's busybox and curl
(``tests/run.sh`` installs them)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from nodeagent import logs
from nodeagent.images.catalog import DEFAULT_PATH
from nodeagent.pod.containerconfig import resolve_command
from nodeagent.runtime import process
from nodeagent.runtime.interface import ContainerConfig, ContainerState, ContainerStatus, PodSandboxConfig
from nodeagent.runtime.process import ProcessRuntime
from tests.waiting import eventually

BUSYBOX = os.path.realpath(shutil.which("busybox") or "/usr/bin/busybox")


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProcessRuntime]:
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    yield rt
    await rt.close()


async def start(rt: ProcessRuntime, log: Path, image: str, **fields: Any) -> str:
    """A container of ``image`` with the pod fields ``command``/``args`` (``user``: its uid), started."""
    container = {"name": "c", "image": image, **fields}
    user = container.pop("user", None)
    config = ContainerConfig("c", image, resolve_command(container), log_path=str(log), run_as_user=user)
    sid = await rt.run_pod_sandbox(PodSandboxConfig("uid", "pod", "default"))
    cid = await rt.create_container(sid, config)
    await rt.start_container(cid)
    return cid


async def run_to_end(rt: ProcessRuntime, log: Path, image: str, **fields: Any) -> tuple[ContainerStatus, str]:
    cid = await start(rt, log, image, **fields)

    async def exited() -> bool:
        return (await rt.container_status(cid)).state is ContainerState.EXITED

    await eventually(exited, "the container to exit", timeout=20)
    return await rt.container_status(cid), logs.read_log(str(log)).decode()


async def test_busybox_args_run_busybox_applets_on_the_images_path(
    runtime: ProcessRuntime, tmp_path: Path
) -> None:
    script = (
        "wget --help 2>&1 | head -n 1; nslookup --help 2>&1 | head -n 1; "
        'echo "$PATH"; for c in wget nslookup sleep sh; do command -v $c; done; '
        "readlink /proc/$$/exe; echo ok"
    )
    status, out = await run_to_end(runtime, tmp_path / "0.log", "busybox:1.36", args=["sh", "-c", script])
    banner = out.splitlines()[0]
    assert banner.startswith("BusyBox v") and out.splitlines()[1] == banner, out
    assert out.splitlines()[2:] == [
        DEFAULT_PATH, "/usr/local/sbin/wget", "/usr/local/sbin/nslookup", "/usr/local/sbin/sleep",
        "/usr/local/sbin/sh", BUSYBOX, "ok",
    ]  # fmt: skip
    assert (status.exit_code, status.reason) == (0, "Completed")


async def test_busybox_args_alone_run_sleep(runtime: ProcessRuntime, tmp_path: Path) -> None:
    """``args: ["sleep", N]`` with no command (busybox has no ENTRYPOINT): busybox's sleep runs."""
    seconds = str(3000 + os.getpid() % 1000)
    cid = await start(runtime, tmp_path / "0.log", "docker.io/library/busybox", args=["sleep", seconds])
    assert (await runtime.container_status(cid)).state is ContainerState.RUNNING
    result = await runtime.exec_sync(
        cid, ["sh", "-c", "readlink /proc/2/exe; cat /proc/2/cmdline | tr '\\0' ' '"], 10
    )
    assert result.stdout.decode() == f"{BUSYBOX}\nsleep {seconds} ", result
    await runtime.stop_container(cid, 5)
    status = await runtime.container_status(cid)
    assert status.state is ContainerState.EXITED


async def test_alpines_bin_sh_is_busybox(runtime: ProcessRuntime, tmp_path: Path) -> None:
    status, out = await run_to_end(
        runtime,
        tmp_path / "0.log",
        "alpine:3.20",
        command=["/bin/sh", "-c", "/bin/sh --help 2>&1 | head -c 8; echo $0"],
    )
    assert (status.exit_code, out) == (0, "BusyBox /bin/sh\n")


async def test_the_python_image_runs_the_agents_python(runtime: ProcessRuntime, tmp_path: Path) -> None:
    """The official client, installed beside the agent, is importable from a python pod."""
    code = "import kubernetes, os, sys; print(sys.prefix); print(os.environ['LANG'])"
    status, out = await run_to_end(runtime, tmp_path / "0.log", "python:3.12", args=["python", "-c", code])
    assert (status.exit_code, out) == (0, f"{sys.prefix}\nC.UTF-8\n"), out


async def test_the_python_images_cmd_is_python3(runtime: ProcessRuntime, tmp_path: Path) -> None:
    cid = await start(runtime, tmp_path / "0.log", "python:3-slim")
    result = await runtime.exec_sync(
        cid, ["sh", "-c", "command -v python3; command -v pip; tr '\\0' ' ' </proc/2/cmdline"], 10
    )
    assert result.stdout.decode() == f"/usr/local/bin/python3\n/usr/local/bin/pip\n{sys.executable} ", result
    await runtime.stop_container(cid, 5)


@pytest.fixture
def web() -> Iterator[str]:
    """An HTTP server on loopback answering ``hello from <path>``."""

    class Hello(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f"hello from {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_curl_args_alone_go_to_curl(runtime: ProcessRuntime, tmp_path: Path, web: str) -> None:
    """curlimages/curl's ENTRYPOINT takes ``args`` that are no command as curl's."""
    status, out = await run_to_end(
        runtime, tmp_path / "0.log", "curlimages/curl:8.5.0", args=["-s", f"{web}/x"]
    )
    assert (status.exit_code, out) == (0, "hello from /x\n")


async def test_curl_args_naming_a_command_run_it(runtime: ProcessRuntime, tmp_path: Path, web: str) -> None:
    status, out = await run_to_end(
        runtime,
        tmp_path / "0.log",
        "curlimages/curl",
        args=["sh", "-c", f"pwd; curl -s {web}/y; echo; wget -qO- {web}/z"],
    )
    assert (status.exit_code, out) == (0, "/home/curl_user\nhello from /y\nhello from /z\n"), out


async def test_curl_without_args_runs_its_cmd(runtime: ProcessRuntime, tmp_path: Path) -> None:
    status, out = await run_to_end(runtime, tmp_path / "0.log", "curlimages/curl")
    assert status.exit_code == 2 and "curl --help" in out, out


async def test_exec_finds_the_images_programs(runtime: ProcessRuntime, tmp_path: Path) -> None:
    """``kubectl exec`` looks the command up on the image's PATH, in the container's root."""
    cid = await start(runtime, tmp_path / "0.log", "busybox", args=["sleep", "60"])
    result = await runtime.exec_sync(cid, ["nslookup", "--help"], 10)
    assert b"Usage: nslookup" in result.stdout + result.stderr, result
    assert (await runtime.exec_sync(cid, ["env"], 10)).stdout.decode().splitlines() == [
        "HOSTNAME=pod", f"PATH={DEFAULT_PATH}",
    ]  # fmt: skip
    await runtime.stop_container(cid, 5)


async def test_the_toolbox_is_read_only(runtime: ProcessRuntime, tmp_path: Path) -> None:
    """A root container cannot add to the node's toolbox, nor write the busybox bound at
    ``/bin/sh`` (the node's own binary): both binds are read-only."""
    script = (
        "touch /usr/local/sbin/x 2>&1; "
        "awk '$5 == \"/usr/local/sbin\" || $5 == \"'$(realpath /bin/sh)'\" {print $5, substr($6, 1, 2)}' "
        "/proc/self/mountinfo"
    )
    status, out = await run_to_end(
        runtime, tmp_path / "0.log", "busybox", command=["sh", "-c", script], user=0
    )
    lines = out.splitlines()
    assert status.exit_code == 0 and lines[0] == "touch: /usr/local/sbin/x: Read-only file system", out
    assert sorted(lines[1:]) == [f"{os.path.realpath('/bin/sh')} ro", "/usr/local/sbin ro"], out
    assert not any("x" in names for _, _, names in os.walk(tmp_path / "state" / "images"))


async def test_without_mount_namespaces_the_toolbox_comes_first_in_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, web: str
) -> None:
    """Where the kernel refuses mount namespaces nothing is bound: the toolbox's directory on
    the node leads ``PATH`` and ``/entrypoint.sh`` runs from it (as root: nothing is revealed
    either, and the test's state directory is root's alone)."""

    async def probe(userns: bool) -> list[str]:
        return []

    monkeypatch.setattr(process, "probe_namespaces", probe)
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    try:
        status, out = await run_to_end(
            rt, tmp_path / "0.log", "curlimages/curl", args=["-s", f"{web}/no-mnt"], user=0
        )
        assert (status.exit_code, out) == (0, "hello from /no-mnt\n"), out
        status, out = await run_to_end(
            rt, tmp_path / "1.log", "busybox", args=["sh", "-c", "command -v wget"], user=0
        )
        assert out.startswith(str(tmp_path / "state" / "images" / "busybox-")) and out.endswith(
            "/bin/wget\n"
        ), out
    finally:
        await rt.close()

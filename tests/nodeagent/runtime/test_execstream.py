"""``exec_stream`` of the process runtime beyond the contract: stdin, a terminal, the mount
namespace, commands that cannot start."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nodeagent.runtime.interface import ContainerConfig, ExecProcess, Mount
from nodeagent.runtime.process import ProcessRuntime
from tests.nodeagent.runtime.test_process import run


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProcessRuntime]:
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    yield rt
    await rt.close()


async def output(process: ExecProcess) -> tuple[bytes, bytes, int]:
    stdout = stderr = b""
    while chunk := await process.read_stdout():
        stdout += chunk
    while chunk := await process.read_stderr():
        stderr += chunk
    return stdout, stderr, await process.wait()


async def sleeping(runtime: ProcessRuntime, mounts: list[Mount] | None = None) -> str:
    config = ContainerConfig("c", "busybox", ["sleep", "60"], env=[("GREETING", "hi")], mounts=mounts or [])
    cid, _ = await run(runtime, config)
    return cid


async def test_stdin_reaches_the_command_until_closed(runtime: ProcessRuntime) -> None:
    process = await runtime.exec_stream(
        await sleeping(runtime), ["sh", "-c", "cat; echo $GREETING >&2"], stdin=True, tty=False
    )
    await process.write_stdin(b"one\n")
    await process.write_stdin(b"two\n")
    await process.close_stdin()
    assert await output(process) == (b"one\ntwo\n", b"hi\n", 0)


async def test_a_tty_merges_stderr_and_has_the_requested_size(runtime: ProcessRuntime) -> None:
    script = "test -t 0 && echo tty; stty size; echo err >&2; read line; echo got-$line"
    cid = await sleeping(runtime)
    process = await runtime.exec_stream(cid, ["sh", "-c", script], stdin=True, tty=True, size=(100, 30))
    await process.write_stdin(b"typed\n")
    stdout, stderr, code = await output(process)
    assert (stderr, code) == (b"", 0)
    # the terminal echoes what was typed, wherever it lands among the script's lines
    lines = [line for line in stdout.replace(b"\r\n", b"\n").splitlines() if line != b"typed"]
    assert lines == [b"tty", b"30 100", b"err", b"got-typed"]


async def test_resize_changes_the_terminal_size(runtime: ProcessRuntime) -> None:
    cid = await sleeping(runtime)
    process = await runtime.exec_stream(cid, ["sh", "-c", "read x; stty size"], stdin=True, tty=True)
    await process.resize(120, 40)
    await process.write_stdin(b"go\n")
    stdout, _, code = await output(process)
    assert code == 0 and b"40 120" in stdout


async def test_exec_enters_the_containers_mount_namespace(runtime: ProcessRuntime, tmp_path: Path) -> None:
    (tmp_path / "vol").mkdir()
    (tmp_path / "vol" / "file").write_text("in the volume\n")
    cid = await sleeping(runtime, [Mount(str(tmp_path / "vol"), "/minikube-py-exec-test")])
    process = await runtime.exec_stream(cid, ["cat", "/minikube-py-exec-test/file"], stdin=False, tty=False)
    assert await output(process) == (b"in the volume\n", b"", 0)


async def test_a_command_that_cannot_start_exits_126_with_runcs_message(runtime: ProcessRuntime) -> None:
    process = await runtime.exec_stream(await sleeping(runtime), ["no-such-command"], stdin=False, tty=False)
    stdout, stderr, code = await output(process)
    assert (stdout, code) == (b"", 126)
    assert b'exec: "no-such-command": executable file not found in $PATH' in stderr


async def test_kill_ends_a_running_command(runtime: ProcessRuntime) -> None:
    process = await runtime.exec_stream(await sleeping(runtime), ["sleep", "60"], stdin=False, tty=False)
    await process.kill()
    assert await process.wait() == 128 + 9

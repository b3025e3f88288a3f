"""``attach`` of the process runtime beyond the contract: only new output, several sessions,
stdin kept open across sessions (or closed by the first with ``stdin_once``), a terminal."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from nodeagent import logs
from nodeagent.runtime.interface import ContainerConfig, ContainerState, ExecProcess
from nodeagent.runtime.process import ProcessRuntime
from tests.nodeagent.runtime.test_process import run, wait_exited


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProcessRuntime]:
    rt = ProcessRuntime(state_dir=str(tmp_path / "state"))
    yield rt
    await rt.close()


def config(tmp_path: Path, script: str, **streams: bool) -> ContainerConfig:
    return ContainerConfig("c", "busybox", ["sh", "-c", script], log_path=str(tmp_path / "c.log"), **streams)


async def read_until(session: ExecProcess, text: bytes, timeout: float = 5.0) -> bytes:
    output = b""
    async with asyncio.timeout(timeout):
        while text not in output:
            chunk = await session.read_stdout()
            assert chunk, f"output ended before {text!r}: {output!r}"
            output += chunk
    return output


async def test_only_output_written_after_attaching_is_streamed(
    runtime: ProcessRuntime, tmp_path: Path
) -> None:
    cid, _ = await run(runtime, config(tmp_path, "echo before; read x; echo after-$x; sleep 60", stdin=True))
    async with asyncio.timeout(5):
        while b"before" not in logs.read_log(str(tmp_path / "c.log")):
            await asyncio.sleep(0.02)
    session = await runtime.attach(cid, stdin=True)
    await session.write_stdin(b"go\n")
    output = await read_until(session, b"after-go\n")
    assert b"before" not in output
    assert b"after-go" in logs.read_log(str(tmp_path / "c.log"))  # the log still gets everything


async def test_sessions_share_output_and_stdin_outlives_them(runtime: ProcessRuntime, tmp_path: Path) -> None:
    cid, _ = await run(runtime, config(tmp_path, "cat", stdin=True))
    first, second = await runtime.attach(cid, stdin=True), await runtime.attach(cid, stdin=True)
    await first.write_stdin(b"one\n")
    assert b"one" in await read_until(first, b"one\n")
    assert b"one" in await read_until(second, b"one\n")
    await first.close_stdin()
    await first.kill()
    await second.write_stdin(b"two\n")
    await read_until(second, b"two\n")
    assert (await runtime.container_status(cid)).state is ContainerState.RUNNING


async def test_stdin_once_closes_stdin_when_the_first_session_ends(
    runtime: ProcessRuntime, tmp_path: Path
) -> None:
    cid, _ = await run(runtime, config(tmp_path, "cat; exit 3", stdin=True, stdin_once=True))
    session = await runtime.attach(cid, stdin=True)
    await session.write_stdin(b"only\n")
    await session.close_stdin()
    await read_until(session, b"only\n")
    assert await asyncio.wait_for(session.wait(), 5) == 3
    await wait_exited(runtime, cid)


async def test_a_tty_container_is_attached_to_its_terminal(runtime: ProcessRuntime, tmp_path: Path) -> None:
    script = "read x; test -t 0 && echo tty-$x; stty size; echo err >&2"
    cid, _ = await run(runtime, config(tmp_path, script, stdin=True, tty=True))
    session = await runtime.attach(cid, stdin=True)
    await session.resize(100, 30)
    await session.write_stdin(b"go\n")
    output = await read_until(session, b"err")
    assert b"tty-go\r\n30 100\r\nerr" in output
    assert await asyncio.wait_for(session.wait(), 5) == 0
    assert await session.read_stderr() == b""

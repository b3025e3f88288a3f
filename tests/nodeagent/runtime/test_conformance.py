"""The runtime contract (nodeagent/runtime/interface.py), run against every runtime."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import AsyncIterator

import pytest

from nodeagent.runtime.interface import (
    ContainerConfig,
    ContainerState,
    CreateContainerError,
    ExecTimeoutError,
    Mount,
    NotFoundError,
    PodSandboxConfig,
    RuntimeError_,
    SandboxState,
    StartContainerError,
)
from tests.nodeagent.runtime.harness import Harness, make_harness

CRI_LINE = re.compile(rb"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z (stdout|stderr) [FP] .*$")


@pytest.fixture(params=["process", "fake"])
async def h(request: pytest.FixtureRequest, tmp_path: object) -> AsyncIterator[Harness]:
    harness = make_harness(request.param, str(tmp_path))
    yield harness
    await harness.runtime.close()


async def sandbox(h: Harness, name: str = "web") -> str:
    return await h.runtime.run_pod_sandbox(
        PodSandboxConfig(f"uid-{name}", name, "default", log_directory=h.log_dir)
    )


async def started(h: Harness, config: ContainerConfig) -> str:
    cid = await h.runtime.create_container(await sandbox(h), config)
    await h.runtime.start_container(cid)
    return cid


async def test_version_names_the_runtime(h: Harness) -> None:
    assert (await h.runtime.version()).startswith(f"{h.runtime.name}://")


async def test_sandbox_lifecycle_allocates_and_releases_loopback_ips(h: Harness) -> None:
    first, *others = [await sandbox(h, name) for name in "abcde"]
    statuses = {s.id: s for s in await h.runtime.list_pod_sandboxes()}
    assert statuses[first].state is SandboxState.READY and statuses[first].name == "a"
    ips = {statuses[each].ip for each in (first, *others)}
    # the range's first address is the node's own: pods get the second onwards
    assert ips == {f"127.1.0.{n}" for n in range(2, 7)}
    with pytest.raises(RuntimeError_, match="exhausted"):
        await sandbox(h, "f")
    await h.runtime.stop_pod_sandbox(first)
    stopped = {s.id: s for s in await h.runtime.list_pod_sandboxes()}[first]
    assert stopped.state is SandboxState.NOTREADY and stopped.ip == ""
    assert await sandbox(h, "f")  # the released IP is reusable
    await h.runtime.stop_pod_sandbox(first)  # idempotent
    await h.runtime.remove_pod_sandbox(first)
    await h.runtime.remove_pod_sandbox(first)
    await h.runtime.stop_pod_sandbox("unknown")
    assert first not in {s.id for s in await h.runtime.list_pod_sandboxes()}


async def test_created_then_running_then_completed(h: Harness) -> None:
    cid = await h.runtime.create_container(await sandbox(h), h.exiting(0, 0.3))
    status = await h.runtime.container_status(cid)
    assert status.state is ContainerState.CREATED and status.started_at == 0
    await h.runtime.start_container(cid)
    status = await h.runtime.container_status(cid)
    assert status.state is ContainerState.RUNNING and status.started_at > 0
    assert [s for s in await h.runtime.list_containers() if s.id == cid] == [status]
    status = await h.wait_state(cid, ContainerState.EXITED)
    assert (status.state, status.exit_code, status.reason) == (ContainerState.EXITED, 0, "Completed")
    assert status.finished_at >= status.started_at


async def test_non_zero_exit_is_error(h: Harness) -> None:
    cid = await started(h, h.exiting(3, 0.1))
    status = await h.wait_state(cid, ContainerState.EXITED)
    assert (status.exit_code, status.reason) == (3, "Error")


async def test_start_error_exits_128_with_the_reason(h: Harness) -> None:
    config, message = h.failing_start()
    cid = await h.runtime.create_container(await sandbox(h), config)
    with pytest.raises(StartContainerError, match=re.escape(message)):
        await h.runtime.start_container(cid)
    status = await h.runtime.container_status(cid)
    assert (status.state, status.exit_code, status.reason, status.message) == (
        ContainerState.EXITED, 128, "StartError", message,
    )  # fmt: skip


async def test_bad_config_is_a_create_error(h: Harness) -> None:
    config = h.long_running()
    bad = dataclasses.replace(config, mounts=[Mount("/tmp", "relative/path")])
    with pytest.raises(CreateContainerError):
        await h.runtime.create_container(await sandbox(h), bad)


async def test_stop_sends_sigterm_first(h: Harness) -> None:
    cid = await started(h, h.long_running())
    began = time.monotonic()
    await h.runtime.stop_container(cid, 5)
    status = await h.runtime.container_status(cid)
    assert time.monotonic() - began < 2
    assert (status.state, status.exit_code) == (ContainerState.EXITED, 143)


async def test_stop_kills_after_the_timeout(h: Harness) -> None:
    config = h.ignoring_sigterm()
    cid = await started(h, config)
    await h.wait_log(config.log_path, b"ready")
    began = time.monotonic()
    await h.runtime.stop_container(cid, 0.5)
    elapsed = time.monotonic() - began
    status = await h.runtime.container_status(cid)
    assert 0.45 <= elapsed < 3
    assert (status.state, status.exit_code) == (ContainerState.EXITED, 137)


async def test_stop_and_remove_are_idempotent(h: Harness) -> None:
    cid = await started(h, h.long_running())
    await h.runtime.stop_container(cid, 1)
    await h.runtime.stop_container(cid, 1)
    await h.runtime.stop_container("unknown", 1)
    await h.runtime.remove_container(cid)
    await h.runtime.remove_container(cid)
    with pytest.raises(NotFoundError):
        await h.runtime.container_status(cid)
    assert cid not in {s.id for s in await h.runtime.list_containers()}


async def test_logs_are_cri_formatted(h: Harness) -> None:
    config = h.printing(["hello", "world"])
    await started(h, config)
    assert b"hello\nworld\n" in await h.wait_log(config.log_path, b"world")
    with open(config.log_path, "rb") as f:
        lines = f.read().splitlines()
    assert lines and all(CRI_LINE.match(line) for line in lines)


async def test_exec_sync_returns_output_and_exit_code(h: Harness) -> None:
    config, command = h.exec_returning("probe-ok", 4)
    cid = await started(h, config)
    result = await h.runtime.exec_sync(cid, command, 5)
    assert (result.exit_code, result.stdout) == (4, b"probe-ok")


async def test_exec_sync_times_out(h: Harness) -> None:
    config, command = h.exec_slow()
    cid = await started(h, config)
    began = time.monotonic()
    with pytest.raises(ExecTimeoutError):
        await h.runtime.exec_sync(cid, command, 0.3)
    assert time.monotonic() - began < 3


async def test_exec_stream_streams_output_and_the_exit_code(h: Harness) -> None:
    config, command = h.exec_returning("streamed", 5)
    cid = await started(h, config)
    process = await h.runtime.exec_stream(cid, command, stdin=True, tty=False)
    await process.write_stdin(b"ignored")
    await process.close_stdin()
    stdout = b""
    while chunk := await process.read_stdout():
        stdout += chunk
    assert (stdout, await process.read_stderr(), await process.wait()) == (b"streamed", b"", 5)
    await process.kill()  # exited: a no-op


async def test_exec_stream_needs_a_running_container(h: Harness) -> None:
    config, command = h.exec_returning("x", 0)
    cid = await h.runtime.create_container(await sandbox(h), config)
    with pytest.raises(RuntimeError_):
        await h.runtime.exec_stream(cid, command, stdin=False, tty=False)


async def test_attach_relays_input_then_output_and_the_exit_code(h: Harness) -> None:
    cid = await started(h, h.attachable(4))
    session = await h.runtime.attach(cid, stdin=True)
    await session.write_stdin(b"go\n")
    stdout = b""
    while chunk := await session.read_stdout():
        stdout += chunk
    assert b"got-go\n" in stdout
    assert (await session.read_stderr(), await session.wait()) == (b"", 4)
    assert (await h.wait_state(cid, ContainerState.EXITED)).exit_code == 4


async def test_detaching_leaves_the_container_running(h: Harness) -> None:
    cid = await started(h, h.long_running())
    await (await h.runtime.attach(cid, stdin=False)).kill()
    assert (await h.runtime.container_status(cid)).state is ContainerState.RUNNING
    await h.runtime.stop_container(cid, 0)
    with pytest.raises(RuntimeError_):
        await h.runtime.attach(cid, stdin=False)


async def test_stats_cover_running_containers(h: Harness) -> None:
    cid = await started(h, h.long_running())
    # a process caught while it execs its command shows no resident memory for a moment
    # (seen under load in CI): sample again for up to 2 s
    for _ in range(20):
        stats = {s.container_id: s for s in await h.runtime.container_stats()}
        if stats[cid].memory_working_set_bytes > 0:
            break
        await asyncio.sleep(0.1)
    assert stats[cid].memory_working_set_bytes > 0 and stats[cid].cpu_usage_core_nanoseconds >= 0


async def test_stop_pod_sandbox_stops_its_containers(h: Harness) -> None:
    sid = await sandbox(h)
    cid = await h.runtime.create_container(sid, h.long_running())
    await h.runtime.start_container(cid)
    await h.runtime.stop_pod_sandbox(sid)
    assert (await h.runtime.container_status(cid)).state is ContainerState.EXITED
    await h.runtime.remove_pod_sandbox(sid)
    with pytest.raises(NotFoundError):
        await h.runtime.container_status(cid)


async def test_close_stops_everything(h: Harness) -> None:
    cid = await started(h, h.long_running())
    await h.runtime.close()
    statuses = await h.runtime.list_containers()
    assert all(s.state is not ContainerState.RUNNING for s in statuses)
    assert all(s.ip == "" for s in await h.runtime.list_pod_sandboxes())
    assert cid

"""CRI ``PortForward`` of both runtimes: the process runtime dials the pod IP; the fake runtime
refuses, never dialling (its simulated pods have no network)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerRuntime, PodSandboxConfig, PortForwardError
from nodeagent.runtime.process import ProcessRuntime

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(1024):
        writer.write(data)
        await writer.drain()
    writer.close()


async def sandbox_ip(runtime: ContainerRuntime, sandbox_id: str) -> str:
    return next(s.ip for s in await runtime.list_pod_sandboxes() if s.id == sandbox_id)


@pytest.fixture
async def process(tmp_path: Path) -> AsyncIterator[ProcessRuntime]:
    runtime = ProcessRuntime(state_dir=str(tmp_path / "state"), pod_cidr="127.1.0.0/30")
    yield runtime
    await runtime.close()


async def test_the_process_runtime_connects_to_the_pod_ip(process: ProcessRuntime) -> None:
    sandbox_id = await process.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    server = await asyncio.start_server(echo, await sandbox_ip(process, sandbox_id), 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        reader, writer = await process.port_forward(sandbox_id, port)
        writer.write(b"through the forward")
        writer.write_eof()
        assert await reader.read() == b"through the forward"
        writer.close()


async def test_a_port_nothing_listens_on_is_refused_with_gos_words(process: ProcessRuntime) -> None:
    sandbox_id = await process.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    ip = await sandbox_ip(process, sandbox_id)
    with pytest.raises(PortForwardError) as refused:
        await process.port_forward(sandbox_id, 9)
    assert str(refused.value) == (
        f"failed to connect to {ip}:9 inside the pod: dial tcp4 {ip}:9: connect: connection refused"
    )


@pytest.mark.parametrize("kind", ["process", "fake"])
async def test_a_stopped_or_unknown_sandbox_is_not_ready(kind: str, tmp_path: Path) -> None:
    runtime: ContainerRuntime = (
        ProcessRuntime(state_dir=str(tmp_path / "state")) if kind == "process" else FakeRuntime()
    )
    try:
        sandbox_id = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
        await runtime.stop_pod_sandbox(sandbox_id)
        for sid in (sandbox_id, "nope"):
            with pytest.raises(PortForwardError, match=f"^sandbox {sid} is not ready$"):
                await runtime.port_forward(sid, 80)
    finally:
        await runtime.close()


async def test_the_fake_runtime_refuses_even_when_something_listens_on_its_pod_ip() -> None:
    runtime = FakeRuntime(pod_cidr="127.1.0.0/30")
    sandbox_id = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    ip = await sandbox_ip(runtime, sandbox_id)
    connected = asyncio.Event()

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connected.set()
        writer.close()

    server = await asyncio.start_server(record, ip, 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        with pytest.raises(PortForwardError) as refused:
            await runtime.port_forward(sandbox_id, port)
    assert (
        str(refused.value)
        == f"failed to connect to {ip}:{port} inside the pod: simulated pods have no network"
    )
    assert not connected.is_set()
    await runtime.close()

"""The fake runtime on a FakeClock: start delays, scripted crashes, probes, stats."""

from __future__ import annotations

import asyncio
from pathlib import Path

from minikube_py.clock import FakeClock
from nodeagent import logs
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerConfig, ContainerState, PodSandboxConfig


async def setup(clock: FakeClock, env: list[tuple[str, str]], log_path: str = "") -> tuple[FakeRuntime, str]:
    runtime = FakeRuntime(clock, start_delay=1.0, start_jitter=0.5, seed=1)
    sid = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    cid = await runtime.create_container(sid, ContainerConfig("app", "nginx", [], env=env, log_path=log_path))
    return runtime, cid


async def test_start_waits_the_delay_with_jitter_on_the_clock() -> None:
    clock = FakeClock()
    runtime, cid = await setup(clock, [])
    start = asyncio.create_task(runtime.start_container(cid))
    await asyncio.sleep(0)  # the start is now sleeping on the clock
    await clock.step(0.9)
    assert not start.done() and (await runtime.container_status(cid)).state is ContainerState.CREATED
    await clock.step(0.6)
    await start
    status = await runtime.container_status(cid)
    assert status.state is ContainerState.RUNNING and 1.0 <= status.started_at - status.created_at < 1.5


async def test_scripted_crash_after_n_seconds(tmp_path: Path) -> None:
    clock = FakeClock()
    log_path = str(tmp_path / "0.log")
    runtime, cid = await setup(clock, [("FAKE_EXIT_AFTER", "3"), ("FAKE_EXIT_CODE", "1")], log_path)
    start = asyncio.create_task(runtime.start_container(cid))
    await asyncio.sleep(0)  # the start is now sleeping on the clock
    await clock.step(2)
    await start
    started_at = (await runtime.container_status(cid)).started_at
    await clock.step(started_at + 2.9 - clock.now())
    assert (await runtime.container_status(cid)).state is ContainerState.RUNNING
    await clock.step(0.2)
    status = await runtime.container_status(cid)
    assert (status.state, status.exit_code, status.reason) == (ContainerState.EXITED, 1, "Error")
    assert status.finished_at == status.started_at + 3
    assert logs.read_log(log_path) == b"fake container app started\nfake container app exited with code 1\n"


async def test_probes_fail_after_the_scripted_time() -> None:
    clock = FakeClock()
    runtime, cid = await setup(clock, [("FAKE_PROBE_FAIL_AFTER", "10")])
    start = asyncio.create_task(runtime.start_container(cid))
    await asyncio.sleep(0)  # the start is now sleeping on the clock
    await clock.step(2)
    await start
    started_at = (await runtime.container_status(cid)).started_at
    assert (await runtime.exec_sync(cid, ["cat", "/tmp/healthy"], 1)).exit_code == 0
    await clock.step(started_at + 10 - clock.now())
    assert (await runtime.exec_sync(cid, ["cat", "/tmp/healthy"], 1)).exit_code == 1


async def test_synthetic_stats_grow_with_time() -> None:
    clock = FakeClock()
    runtime, cid = await setup(clock, [("FAKE_MEMORY_BYTES", "1000")])
    start = asyncio.create_task(runtime.start_container(cid))
    await asyncio.sleep(0)  # the start is now sleeping on the clock
    await clock.step(2)
    await start
    await clock.step((await runtime.container_status(cid)).started_at + 10 - clock.now())
    [stats] = await runtime.container_stats()
    assert (stats.cpu_usage_core_nanoseconds, stats.memory_working_set_bytes) == (100_000_000, 1000)


async def test_thousands_of_containers_are_cheap() -> None:
    runtime = FakeRuntime(FakeClock(), start_delay=0, start_jitter=0)
    sid = await runtime.run_pod_sandbox(PodSandboxConfig("uid", "web", "default"))
    config = ContainerConfig("app", "nginx", [], env=[("FAKE_EXIT_AFTER", "5")])
    ids = [await runtime.create_container(sid, config) for _ in range(3000)]
    await asyncio.gather(*(runtime.start_container(cid) for cid in ids))
    assert len(asyncio.all_tasks()) == 1  # no task per container
    await runtime.clock.sleep(0)  # type: ignore[attr-defined]
    assert all(s.state is ContainerState.RUNNING for s in await runtime.list_containers())

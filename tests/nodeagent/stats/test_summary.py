"""The Summary API computed from a fake runtime on a fake clock: pods grouped by their labels,
CPU rates from two samples, a simulated node as the sum of its pods, upstream's JSON."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from minikube_py.clock import FakeClock
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.stats.host import ProcessHost, SimulatedHost
from nodeagent.stats.summary import SummaryProvider, summary_json
from nodeagent.stats.usage import CpuRates
from tests.nodeagent.stats.fakepods import start_pod

GI = 1024**3
MI = 1024**2


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def runtime(clock: FakeClock) -> FakeRuntime:
    return FakeRuntime(clock, start_delay=0, start_jitter=0)


def provider(runtime: FakeRuntime, clock: FakeClock, memory: int = 8 * GI) -> SummaryProvider:
    return SummaryProvider("fake-1", runtime, SimulatedHost(memory, 100 * GI, clock.now()), clock)


async def test_pods_are_grouped_by_their_labels_with_synthetic_usage(
    runtime: FakeRuntime, clock: FakeClock
) -> None:
    env = {"FAKE_CPU_MILLIS": "250", "FAKE_MEMORY_BYTES": str(100 * MI)}
    await start_pod(runtime, "web", {"app": env, "side": {}})
    await start_pod(runtime, "db", {"db": {"FAKE_MEMORY_BYTES": str(GI)}}, namespace="data")
    await clock.step(10)
    summary = await provider(runtime, clock).summary()
    pods = {p.name: p for p in summary.pods}
    assert set(pods) == {"web", "db"}
    web = pods["web"]
    assert (web.namespace, web.uid) == ("default", "uid-web")
    assert [c.name for c in web.containers] == ["app", "side"]
    app, side = web.containers
    # first sample: the average since the container started
    assert app.cpu_usage_nano_cores == 250_000_000
    assert app.cpu_usage_core_nanoseconds == 10 * 250_000_000
    assert side.cpu_usage_nano_cores == 10_000_000  # the runtime's default 10m
    assert web.memory_working_set_bytes == 100 * MI + 16 * MI
    assert pods["db"].namespace == "data"


async def test_cpu_rate_comes_from_the_delta_between_two_samples(
    runtime: FakeRuntime, clock: FakeClock
) -> None:
    await start_pod(runtime, "web", {"app": {"FAKE_CPU_MILLIS": "500"}})
    stats = provider(runtime, clock)
    await clock.step(4)
    first = await stats.summary()
    await clock.step(6)
    second = await stats.summary()
    assert first.pods[0].containers[0].cpu_usage_nano_cores == 500_000_000
    assert second.pods[0].containers[0].cpu_usage_nano_cores == 500_000_000
    assert second.pods[0].cpu_usage_core_nanoseconds == 10 * 500_000_000


async def test_a_simulated_node_is_the_sum_of_its_pods(runtime: FakeRuntime, clock: FakeClock) -> None:
    await start_pod(runtime, "a", {"c": {"FAKE_MEMORY_BYTES": str(GI), "FAKE_CPU_MILLIS": "100"}})
    await start_pod(runtime, "b", {"c": {"FAKE_MEMORY_BYTES": str(2 * GI), "FAKE_CPU_MILLIS": "300"}})
    await clock.step(2)
    node = (await provider(runtime, clock, memory=8 * GI).summary()).node
    assert node.memory_working_set_bytes == 3 * GI
    assert node.memory_available_bytes == 5 * GI
    assert node.cpu_usage_nano_cores == 400_000_000
    assert (node.fs_capacity_bytes, node.fs_available_bytes) == (100 * GI, 100 * GI)


async def test_usage_beyond_capacity_leaves_nothing_available(runtime: FakeRuntime, clock: FakeClock) -> None:
    await start_pod(runtime, "big", {"c": {"FAKE_MEMORY_BYTES": str(64 * GI)}})
    assert (await provider(runtime, clock, memory=32 * GI).summary()).node.memory_available_bytes == 0


async def test_exited_containers_are_not_counted(runtime: FakeRuntime, clock: FakeClock) -> None:
    await start_pod(runtime, "job", {"c": {"FAKE_EXIT_AFTER": "1"}})
    await clock.step(2)
    summary = await provider(runtime, clock).summary()
    assert summary.pods == ()
    assert summary.node.memory_working_set_bytes == 0


async def test_summary_json_has_upstreams_shape(
    runtime: FakeRuntime, clock: FakeClock, tmp_path: Path
) -> None:
    logs = tmp_path / "default_web_uid-web"
    await start_pod(runtime, "web", {"app": {"FAKE_MEMORY_BYTES": "4096"}}, log_directory=str(logs))
    body = summary_json(await provider(runtime, clock).summary())
    node = body["node"]
    assert node["nodeName"] == "fake-1"
    assert set(node["cpu"]) == {"time", "usageNanoCores", "usageCoreNanoSeconds"}
    assert set(node["memory"]) == {"time", "availableBytes", "usageBytes", "workingSetBytes"}
    assert set(node["fs"]) >= {"availableBytes", "capacityBytes", "usedBytes"}
    [pod] = body["pods"]
    assert pod["podRef"] == {"name": "web", "namespace": "default", "uid": "uid-web"}
    assert pod["containers"][0]["name"] == "app"
    assert pod["containers"][0]["memory"]["workingSetBytes"] == 4096
    assert pod["memory"]["workingSetBytes"] == 4096
    assert pod["startTime"].endswith("Z")
    log_size = (logs / "app" / "0.log").stat().st_size
    assert log_size > 0 and pod["ephemeral-storage"]["usedBytes"] == log_size


@pytest.mark.parametrize(
    ("samples", "rates"),
    [
        # (total ns, at, since) -> rate
        ([(0, 10.0, None), (5_000_000_000, 20.0, None)], [0, 500_000_000]),
        ([(2_000_000_000, 10.0, 0.0)], [200_000_000]),  # first sample: average since the start
        ([(0, 10.0, None), (1_000, 10.5, None)], [0, 0]),  # closer than 1 s: the last rate is kept
        ([(0, 10.0, None), (4_000_000_000, 12.0, None), (4_000_000_000, 14.0, None)], [0, 2 * 10**9, 0]),
    ],
)
def test_cpu_rates(samples: list[tuple[int, float, float | None]], rates: list[int]) -> None:
    cpu = CpuRates()
    assert [cpu.rate("c", total, at, since) for total, at, since in samples] == rates


def test_the_host_of_a_process_node_is_read_from_proc(tmp_path: Path) -> None:
    sample = ProcessHost(str(tmp_path)).sample((), 0.0)
    assert sample.memory_available_bytes > 0 and sample.memory_working_set_bytes > 0
    assert sample.cpu_usage_core_nanoseconds > 0 and sample.cpu_usage_nano_cores is None
    fs = os.statvfs(tmp_path)
    assert sample.fs_capacity_bytes == fs.f_blocks * fs.f_frsize
    assert 0 < sample.start_time < 4e9

"""Simulated usage: the ``minikube-py.io/simulated-cpu`` and ``simulated-memory`` annotations of
a pod set the usage the Summary reports for each of its containers, read live at every sample;
values that do not parse are ignored; the simulated node sums the scripted usage."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.clock import FakeClock
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.stats.host import SimulatedHost
from nodeagent.stats.simulated import SIMULATED_CPU, SIMULATED_MEMORY, simulated_usage
from nodeagent.stats.summary import SummaryProvider
from tests.nodeagent.stats.fakepods import start_pod

GI, MI = 1024**3, 1024**2


def pod(annotations: dict[str, str]) -> dict[str, Any]:
    return {"metadata": {"name": "web", "uid": "uid-web", "annotations": annotations}}


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({SIMULATED_CPU: "400m"}, (400_000_000, None)),
        ({SIMULATED_CPU: "2", SIMULATED_MEMORY: "128Mi"}, (2_000_000_000, 128 * MI)),
        ({SIMULATED_MEMORY: "1Gi"}, (None, GI)),
        ({SIMULATED_CPU: "lots", SIMULATED_MEMORY: "-1Mi"}, (None, None)),
        ({}, (None, None)),
    ],
)
def test_annotations_parse_as_quantities(annotations: dict[str, str], expected: tuple[Any, Any]) -> None:
    assert simulated_usage(pod(annotations)) == expected


async def test_the_summary_reports_the_annotations_live() -> None:
    clock = FakeClock()
    runtime = FakeRuntime(clock, start_delay=0, start_jitter=0)
    await start_pod(runtime, "web", {"app": {"FAKE_CPU_MILLIS": "20"}, "side": {}})
    pods = {"uid-web": pod({SIMULATED_CPU: "400m", SIMULATED_MEMORY: "64Mi"})}
    provider = SummaryProvider(
        "fake-1", runtime, SimulatedHost(8 * GI, 100 * GI, clock.now()), clock, lambda: pods
    )
    await clock.step(2)
    summary = await provider.summary()
    web = summary.pods[0]
    assert [c.cpu_usage_nano_cores for c in web.containers] == [400_000_000, 400_000_000]
    assert web.memory_working_set_bytes == 2 * 64 * MI
    assert summary.node.cpu_usage_nano_cores == 800_000_000  # a simulated node sums its pods
    pods["uid-web"] = pod({SIMULATED_CPU: "10m"})  # kubectl annotate --overwrite
    await clock.step(2)
    web = (await provider.summary()).pods[0]
    assert [c.cpu_usage_nano_cores for c in web.containers] == [10_000_000, 10_000_000]
    assert web.memory_working_set_bytes == 2 * 16 * MI  # the runtime's own again

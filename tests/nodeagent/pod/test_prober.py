"""Probes: thresholds, startup gating, events, and the exec/httpGet/tcpSocket handlers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from minikube_py.clock import FakeClock
from minikube_py.events import FakeRecorder
from nodeagent.pod.probe import run_probe
from nodeagent.pod.prober import ProbeManager
from nodeagent.pod.runtimestatus import LABEL_POD_UID, group_by_pod
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerConfig, PodSandboxConfig
from tests.cluster import free_port
from tests.nodeagent.pod.builders import UID, make_pod

PROBE = {"exec": {"command": ["check"]}, "periodSeconds": 10, "failureThreshold": 3}


class ProcessNamed:
    """A runtime as httpGet and tcpSocket probes see it: only its name (they never call it)."""

    name = "process"


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@contextlib.asynccontextmanager
async def probing(env: list[tuple[str, str]], **probes: Any) -> AsyncIterator[tuple[Any, ...]]:
    """A running fake container with ``probes`` (readinessProbe=..., ...) under a ProbeManager."""
    clock = FakeClock()
    runtime = FakeRuntime(clock, start_delay=0, start_jitter=0)
    sandbox = await runtime.run_pod_sandbox(PodSandboxConfig(UID, "web", "default"))
    cid = await runtime.create_container(
        sandbox, ContainerConfig("c", "img", ["x"], env=env, labels={LABEL_POD_UID: UID})
    )
    await runtime.start_container(cid)
    pod = make_pod("c")
    pod["spec"]["containers"][0].update(probes)
    changes: list[str] = []
    recorder = FakeRecorder()
    manager = ProbeManager(runtime, recorder, clock, changes.append)
    task = asyncio.ensure_future(manager.run())
    await settle()
    status = group_by_pod(await runtime.list_pod_sandboxes(), await runtime.list_containers())[UID]
    manager.update(pod, status)
    await settle()
    try:
        yield manager, clock, changes, recorder, pod, status
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_readiness_passes_after_its_first_success() -> None:
    async with probing([], readinessProbe=PROBE) as (manager, _clock, changes, _rec, pod, status):
        # probed at once (no initial delay): ready, and the pod's worker was woken
        assert changes == [UID]
        assert manager.results(UID, status, pod) == ({"c"}, {"c"})


async def test_liveness_fails_after_the_failure_threshold_with_events() -> None:
    async with probing([("FAKE_PROBE_FAIL", "1")], livenessProbe=PROBE) as (
        manager,
        clock,
        changes,
        rec,
        _pod,
        _status,
    ):
        assert manager.failed(UID) == {}
        await clock.step(10)
        await settle()
        assert manager.failed(UID) == {}  # 2 failures of 3
        await clock.step(10)
        await settle()
        assert manager.failed(UID) == {"c": "liveness"}
        assert changes == [UID]
        assert rec.events.count("Warning Unhealthy Liveness probe failed: fake: scripted failure") == 3


async def test_liveness_waits_for_the_startup_probe() -> None:
    startup = {"exec": {"command": ["s"]}, "periodSeconds": 1, "failureThreshold": 30}
    env = [("FAKE_PROBE_FAIL", "1")]
    async with probing(env, livenessProbe=PROBE, startupProbe=startup) as (
        manager,
        clock,
        _c,
        rec,
        pod,
        status,
    ):
        await clock.step(25)
        await settle()
        assert manager.failed(UID) == {}  # only the startup probe ran
        assert all("Startup probe failed" in e for e in rec.events)
        assert manager.results(UID, status, pod) == (set(), set())  # not started, so not ready
        await clock.step(10)
        await settle()
        assert manager.failed(UID) == {"c": "startup"}


async def test_initial_delay_postpones_the_first_try() -> None:
    probe = {**PROBE, "initialDelaySeconds": 30}
    async with probing([], readinessProbe=probe) as (manager, clock, _changes, _rec, pod, status):
        assert manager.results(UID, status, pod) == (set(), {"c"})
        await clock.step(30)
        await settle()
        assert manager.results(UID, status, pod) == ({"c"}, {"c"})


async def test_a_stopped_container_loses_its_workers() -> None:
    async with probing([], readinessProbe=PROBE) as (manager, _clock, _changes, _rec, pod, status):
        stopped = type(status)(UID, status.sandboxes, [])
        manager.update(pod, stopped)
        assert manager._workers == {}


async def test_http_get_succeeds_on_2xx_3xx_and_fails_with_the_status_code() -> None:
    codes = {"/ok": 200, "/moved": 302, "/bad": 503}

    async def handle(request: web.Request) -> web.Response:
        assert request.headers["X-Probe"] == "yes"
        return web.Response(
            status=codes[request.path], headers={"Location": "/ok"} if request.path == "/moved" else None
        )

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    container = {"name": "c", "ports": [{"name": "http", "containerPort": port}]}
    try:
        for path, expected in (
            ("/ok", (True, "")),
            ("/moved", (True, "")),
            ("/bad", (False, "HTTP probe failed with statuscode: 503")),
        ):
            probe = {
                "httpGet": {
                    "path": path,
                    "port": "http",
                    "httpHeaders": [{"name": "X-Probe", "value": "yes"}],
                }
            }
            assert await run_probe(probe, container, "127.0.0.1", ProcessNamed(), "") == expected
    finally:
        await runner.cleanup()


async def test_tcp_socket_fails_when_nothing_listens() -> None:
    port = free_port()
    ok, message = await run_probe(
        {"tcpSocket": {"port": port}}, {"name": "c"}, "127.0.0.1", ProcessNamed(), ""
    )
    assert (ok, message) == (False, f"dial tcp 127.0.0.1:{port}: connect: connection refused")

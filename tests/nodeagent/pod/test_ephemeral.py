"""Ephemeral containers on the node: started once (even before the init containers are done),
never restarted, never keeping a pod alive; reported in ``ephemeralContainerStatuses``; the
runtimes accept a PID-namespace target only when it runs in the same pod."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.clock import FakeClock
from nodeagent.pod.actions import compute_pod_actions
from nodeagent.pod.status import generate_pod_status
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerConfig, CreateContainerError, PodSandboxConfig
from tests.nodeagent.pod.builders import EXITED, RUNNING, container, make_pod, runtime_status, sandbox


def with_debugger(pod: dict[str, Any], target: str = "a") -> dict[str, Any]:
    debugger = {"name": "dbg", "image": "busybox", "stdin": True, "targetContainerName": target}
    pod["spec"]["ephemeralContainers"] = [debugger]
    return pod


def names(containers: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in containers]


def test_an_ephemeral_container_starts_once_in_the_running_sandbox() -> None:
    pod = with_debugger(make_pod("a"))
    running = container(pod, "a", RUNNING)
    actions = compute_pod_actions(pod, runtime_status(running, sandboxes=(sandbox(),)))
    assert names(actions.ephemeral_containers_to_start) == ["dbg"] and not actions.kill_pod
    assert actions.containers_to_start == []
    # once it ran (and exited), it is never started again
    done = runtime_status(running, container(pod, "dbg", EXITED, exit_code=0), sandboxes=(sandbox(),))
    assert compute_pod_actions(pod, done).ephemeral_containers_to_start == []


def test_ephemeral_containers_start_before_the_init_containers_are_done() -> None:
    pod = with_debugger(make_pod("a", init=("i1",)), target="i1")
    status = runtime_status(container(pod, "i1", RUNNING), sandboxes=(sandbox(),))
    actions = compute_pod_actions(pod, status)
    assert names(actions.ephemeral_containers_to_start) == ["dbg"]


def test_no_ephemeral_container_in_a_new_sandbox_and_none_keeps_a_pod_alive() -> None:
    pod = with_debugger(make_pod("a", restart_policy="Never"))
    assert compute_pod_actions(pod, runtime_status()).ephemeral_containers_to_start == []
    status = runtime_status(
        container(pod, "a", EXITED), container(pod, "dbg", RUNNING), sandboxes=(sandbox(),)
    )
    assert compute_pod_actions(pod, status).kill_pod


def test_ephemeral_container_statuses_are_reported_never_ready() -> None:
    pod = with_debugger(make_pod("a"))
    runtime = runtime_status(container(pod, "a", RUNNING), sandboxes=(sandbox(),))
    status = generate_pod_status(pod, runtime, runtime_name="fake", host_ip="127.0.0.1", now=1e9)
    [waiting] = status["ephemeralContainerStatuses"]
    assert waiting["name"] == "dbg" and waiting["state"] == {"waiting": {"reason": "ContainerCreating"}}
    runtime = runtime_status(
        container(pod, "a", RUNNING), container(pod, "dbg", RUNNING), sandboxes=(sandbox(),)
    )
    status = generate_pod_status(pod, runtime, runtime_name="fake", host_ip="127.0.0.1", now=1e9)
    [running] = status["ephemeralContainerStatuses"]
    assert "running" in running["state"] and running["ready"] is False
    assert running["containerID"] == "fake://dbg-0"
    assert status["phase"] == "Running" and [s["name"] for s in status["containerStatuses"]] == ["a"]
    assert {c["type"]: c["status"] for c in status["conditions"]}["Ready"] == "True"


async def test_the_runtime_takes_a_target_container_id_only_when_it_runs_in_the_same_pod() -> None:
    runtime = FakeRuntime(FakeClock(), start_delay=0, start_jitter=0)
    pod_a = await runtime.run_pod_sandbox(PodSandboxConfig("uid-a", "a", "default"))
    pod_b = await runtime.run_pod_sandbox(PodSandboxConfig("uid-b", "b", "default"))
    target = await runtime.create_container(pod_a, ContainerConfig("app", "busybox", ["sleep"]))
    debugger = ContainerConfig("dbg", "busybox", ["sh"], stdin=True, target_container_id=target)
    with pytest.raises(CreateContainerError, match="is not running"):
        await runtime.create_container(pod_a, debugger)  # created, not running yet
    await runtime.start_container(target)
    with pytest.raises(CreateContainerError):
        await runtime.create_container(pod_b, debugger)  # another pod's container
    joined = await runtime.create_container(pod_a, debugger)
    await runtime.start_container(joined)
    assert (await runtime.container_status(joined)).state is RUNNING

"""generate_pod_status: phase, conditions and container statuses as upstream derives them."""

from __future__ import annotations

from typing import Any

import pytest

from nodeagent.pod.runtimestatus import PodRuntimeStatus
from nodeagent.pod.status import generate_pod_status
from tests.nodeagent.pod.builders import EXITED, RUNNING, container, make_pod, runtime_status, sandbox

NOW = 1_800_000_000.0


def status_of(pod: dict[str, Any], runtime: PodRuntimeStatus, **kwargs: Any) -> dict[str, Any]:
    return generate_pod_status(pod, runtime, runtime_name="fake", host_ip="127.0.0.1", now=NOW, **kwargs)


def conditions(status: dict[str, Any]) -> dict[str, str]:
    return {c["type"]: c["status"] for c in status["conditions"]}


@pytest.mark.parametrize(
    ("policy", "codes", "phase"),
    [
        ("Always", [None, None], "Running"),
        ("Always", [0, None], "Running"),
        ("Always", [1, 0], "Running"),  # exited, will be restarted
        ("OnFailure", [0, 0], "Succeeded"),
        ("OnFailure", [1, 0], "Running"),  # the failed one will be restarted
        ("Never", [0, 0], "Succeeded"),
        ("Never", [0, 2], "Failed"),
        ("Never", [None, 0], "Running"),
    ],
)
def test_phase_follows_the_containers_and_the_restart_policy(
    policy: str, codes: list[int | None], phase: str
) -> None:
    pod = make_pod("a", "b", restart_policy=policy)
    states = [
        container(pod, n, RUNNING) if code is None else container(pod, n, EXITED, exit_code=code)
        for n, code in zip(("a", "b"), codes, strict=True)
    ]
    assert status_of(pod, runtime_status(*states, sandboxes=(sandbox(),)))["phase"] == phase


def test_a_pod_not_started_yet_is_pending_and_containers_wait_creating() -> None:
    pod = make_pod("a")
    status = status_of(pod, runtime_status(sandboxes=(sandbox(),)))
    assert status["phase"] == "Pending"
    [c] = status["containerStatuses"]
    assert c["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert (c["ready"], c["started"], c["restartCount"]) == (False, False, 0)
    assert conditions(status) == {
        "PodScheduled": "True",
        "PodReadyToStartContainers": "True",
        "Initialized": "True",
        "Ready": "False",
        "ContainersReady": "False",
    }
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert (ready["reason"], ready["message"]) == (
        "ContainersNotReady",
        "containers with unready status: [a]",
    )


def test_pending_init_containers_keep_the_pod_initializing() -> None:
    pod = make_pod("a", init=("i1",))
    status = status_of(pod, runtime_status(container(pod, "i1", RUNNING), sandboxes=(sandbox(),)))
    assert status["phase"] == "Pending"
    assert status["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    initialized = next(c for c in status["conditions"] if c["type"] == "Initialized")
    assert (initialized["status"], initialized["reason"], initialized["message"]) == (
        "False",
        "ContainersNotInitialized",
        "containers with incomplete status: [i1]",
    )


def test_a_failed_init_container_of_a_never_pod_fails_it() -> None:
    pod = make_pod("a", init=("i1",), restart_policy="Never")
    status = status_of(pod, runtime_status(container(pod, "i1", EXITED, exit_code=3), sandboxes=(sandbox(),)))
    assert status["phase"] == "Failed"
    assert status["initContainerStatuses"][0]["state"]["terminated"]["exitCode"] == 3


def test_a_running_pod_is_ready_with_its_ip_and_start_time() -> None:
    pod = make_pod("a")
    status = status_of(
        pod, runtime_status(container(pod, "a", RUNNING), sandboxes=(sandbox(ip="127.1.0.9"),))
    )
    assert (status["phase"], status["podIP"], status["podIPs"], status["hostIP"]) == (
        "Running",
        "127.1.0.9",
        [{"ip": "127.1.0.9"}],
        "127.0.0.1",
    )
    [c] = status["containerStatuses"]
    assert list(c["state"]) == ["running"] and c["ready"] and c["started"]
    assert c["containerID"] == "fake://a-0"
    assert set(conditions(status).values()) == {"True"}
    assert status["qosClass"] == "BestEffort"  # the apiserver's, kept


def test_a_crash_looping_container_waits_with_its_last_termination() -> None:
    pod = make_pod("a")
    exited = container(pod, "a", EXITED, exit_code=1, attempt=3)
    message = "back-off 40s restarting failed container=a pod=web_default(uid-1)"
    status = status_of(
        pod, runtime_status(exited, sandboxes=(sandbox(),)), waiting={"a": ("CrashLoopBackOff", message)}
    )
    [c] = status["containerStatuses"]
    assert c["state"] == {"waiting": {"reason": "CrashLoopBackOff", "message": message}}
    assert c["lastState"]["terminated"]["exitCode"] == 1 and c["lastState"]["terminated"]["reason"] == "Error"
    assert c["restartCount"] == 3


def test_a_restarted_container_reports_the_previous_one_as_last_state() -> None:
    pod = make_pod("a")
    runtime = runtime_status(
        container(pod, "a", EXITED, exit_code=137, attempt=0),
        container(pod, "a", RUNNING, attempt=1),
        sandboxes=(sandbox(),),
    )
    [c] = status_of(pod, runtime)["containerStatuses"]
    assert (list(c["state"]), c["lastState"]["terminated"]["exitCode"], c["restartCount"]) == (
        ["running"],
        137,
        1,
    )


def test_readiness_results_gate_ready() -> None:
    pod = make_pod("a", "b")
    runtime = runtime_status(
        container(pod, "a", RUNNING), container(pod, "b", RUNNING), sandboxes=(sandbox(),)
    )
    status = status_of(pod, runtime, ready={"a"})
    assert [c["ready"] for c in status["containerStatuses"]] == [True, False]
    assert conditions(status)["Ready"] == "False"


def test_transition_times_are_kept_while_a_condition_holds() -> None:
    pod = make_pod("a")
    runtime = runtime_status(container(pod, "a", RUNNING), sandboxes=(sandbox(),))
    first = status_of(pod, runtime)
    later = generate_pod_status(
        {**pod, "status": first}, runtime, runtime_name="fake", host_ip="127.0.0.1", now=NOW + 60
    )
    assert later["conditions"] == first["conditions"]
    assert later["startTime"] == first["startTime"]


def test_a_succeeded_pod_is_not_ready_because_it_completed() -> None:
    pod = make_pod("a", restart_policy="Never")
    status = status_of(pod, runtime_status(container(pod, "a", EXITED), sandboxes=(sandbox(ready=False),)))
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert (status["phase"], ready["status"], ready["reason"]) == ("Succeeded", "False", "PodCompleted")
    assert status["containerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"

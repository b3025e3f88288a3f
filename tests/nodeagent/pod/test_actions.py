"""compute_pod_actions: what a sync must do, table-driven over pod specs and runtime states."""

from __future__ import annotations

import pytest

from nodeagent.pod.actions import compute_pod_actions, should_restart
from tests.nodeagent.pod.builders import (
    CREATED,
    EXITED,
    RUNNING,
    container,
    make_pod,
    runtime_status,
    sandbox,
)


def names(containers: list[dict]) -> list[str]:
    return [c["name"] for c in containers]


def test_a_new_pod_gets_a_sandbox_and_all_its_containers() -> None:
    pod = make_pod("a", "b")
    actions = compute_pod_actions(pod, runtime_status())
    assert (actions.create_sandbox, actions.attempt, names(actions.containers_to_start)) == (
        True,
        0,
        ["a", "b"],
    )


def test_a_new_pod_with_init_containers_starts_the_first_init_container_only() -> None:
    pod = make_pod("a", init=("i1", "i2"))
    actions = compute_pod_actions(pod, runtime_status())
    assert actions.create_sandbox and actions.next_init_container["name"] == "i1"
    assert actions.containers_to_start == []


def test_a_dead_sandbox_is_recreated_with_the_next_attempt() -> None:
    pod = make_pod("a")
    actions = compute_pod_actions(pod, runtime_status(sandboxes=(sandbox(ready=False, attempt=2),)))
    assert (actions.kill_pod, actions.create_sandbox, actions.attempt) == (True, True, 3)


def test_a_never_pod_that_ran_is_not_started_again_after_its_sandbox_died() -> None:
    pod = make_pod("a", restart_policy="Never")
    status = runtime_status(container(pod, "a", EXITED, exit_code=0), sandboxes=(sandbox(ready=False),))
    actions = compute_pod_actions(pod, status)
    assert (actions.kill_pod, actions.create_sandbox) == (True, False)


@pytest.mark.parametrize(
    ("policy", "exit_code", "restart"),
    [
        ("Always", 0, True),
        ("Always", 1, True),
        ("OnFailure", 0, False),
        ("OnFailure", 2, True),
        ("Never", 0, False),
        ("Never", 1, False),
    ],
)
def test_an_exited_container_restarts_by_the_restart_policy(
    policy: str, exit_code: int, restart: bool
) -> None:
    pod = make_pod("a", restart_policy=policy)
    status = runtime_status(container(pod, "a", EXITED, exit_code=exit_code), sandboxes=(sandbox(),))
    actions = compute_pod_actions(pod, status)
    assert names(actions.containers_to_start) == (["a"] if restart else [])
    assert actions.kill_pod is (not restart)  # nothing will run any more: stop the sandbox
    assert should_restart(pod, status.latest("a")) is restart


def test_init_containers_run_one_at_a_time_in_order() -> None:
    pod = make_pod("a", init=("i1", "i2"))
    running = runtime_status(container(pod, "i1", RUNNING), sandboxes=(sandbox(),))
    assert compute_pod_actions(pod, running).next_init_container is None  # wait for i1
    done = runtime_status(container(pod, "i1", EXITED), sandboxes=(sandbox(),))
    assert compute_pod_actions(pod, done).next_init_container["name"] == "i2"
    both = runtime_status(container(pod, "i1", EXITED), container(pod, "i2", EXITED), sandboxes=(sandbox(),))
    actions = compute_pod_actions(pod, both)
    assert actions.next_init_container is None and names(actions.containers_to_start) == ["a"]


def test_a_failed_init_container_is_retried_or_fails_the_pod() -> None:
    always = make_pod("a", init=("i1",))
    failed = runtime_status(container(always, "i1", EXITED, exit_code=1), sandboxes=(sandbox(),))
    assert compute_pod_actions(always, failed).next_init_container["name"] == "i1"
    never = make_pod("a", init=("i1",), restart_policy="Never")
    failed = runtime_status(container(never, "i1", EXITED, exit_code=1), sandboxes=(sandbox(),))
    actions = compute_pod_actions(never, failed)
    assert actions.kill_pod and actions.next_init_container is None and not actions.containers_to_start


def test_a_running_container_whose_spec_changed_is_killed_and_restarted() -> None:
    pod = make_pod("a")
    status = runtime_status(container(pod, "a", RUNNING, changed=True), sandboxes=(sandbox(),))
    actions = compute_pod_actions(pod, status)
    assert actions.containers_to_kill == {"a-0": "Container a definition changed"}
    assert names(actions.containers_to_start) == ["a"]


def test_a_liveness_failure_kills_and_restarts_unless_never() -> None:
    pod = make_pod("a")
    status = runtime_status(container(pod, "a", RUNNING), sandboxes=(sandbox(),))
    actions = compute_pod_actions(pod, status, probe_failures={"a": "liveness"})
    assert actions.containers_to_kill == {"a-0": "Container a failed liveness probe"}
    assert names(actions.containers_to_start) == ["a"]
    never = make_pod("a", restart_policy="Never")
    status = runtime_status(container(never, "a", RUNNING), sandboxes=(sandbox(),))
    assert compute_pod_actions(never, status, probe_failures={"a": "liveness"}).containers_to_start == []


def test_a_healthy_running_pod_needs_nothing() -> None:
    pod = make_pod("a", "b")
    status = runtime_status(
        container(pod, "a", RUNNING), container(pod, "b", RUNNING), sandboxes=(sandbox(),)
    )
    actions = compute_pod_actions(pod, status)
    assert (
        actions.kill_pod,
        actions.create_sandbox,
        actions.containers_to_start,
        actions.containers_to_kill,
    ) == (
        False,
        False,
        [],
        {},
    )


def test_a_created_but_not_started_container_is_started() -> None:
    pod = make_pod("a")
    status = runtime_status(container(pod, "a", CREATED), sandboxes=(sandbox(),))
    assert names(compute_pod_actions(pod, status).containers_to_start) == ["a"]

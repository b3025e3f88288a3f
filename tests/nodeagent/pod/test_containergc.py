"""Container GC with upstream's default policy, on the fake runtime: dead containers beyond one
per pod container name go with their logs; a deleted pod loses everything."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from minikube_py.clock import FakeClock
from nodeagent.pod.containergc import ContainerGC, GCPolicy, evictable_containers
from nodeagent.pod.runtimestatus import LABEL_CONTAINER_NAME, LABEL_POD_UID
from nodeagent.runtime.fake import FakeRuntime
from nodeagent.runtime.interface import ContainerState, ContainerStatus
from tests.nodeagent.stats.fakepods import start_pod


def container(
    uid: str, name: str, attempt: int, running: bool = False, finished: float = 100.0
) -> ContainerStatus:
    state = ContainerState.RUNNING if running else ContainerState.EXITED
    return ContainerStatus(
        f"{uid}-{name}-{attempt}", "s", name, attempt, "img", state, float(attempt),
        finished_at=0.0 if running else finished, labels={LABEL_POD_UID: uid, LABEL_CONTAINER_NAME: name},
    )  # fmt: skip


CASES = [
    ("the current container and one dead one are kept",
     [container("p", "c", 0), container("p", "c", 1), container("p", "c", 2, running=True)], {"p"},
     ["p-c-0"]),
    ("a crash-looping container keeps its previous one",
     [container("p", "c", 0), container("p", "c", 1), container("p", "c", 2)], {"p"}, ["p-c-0"]),
    ("counted per container name",
     [container("p", "a", 0), container("p", "a", 1), container("p", "b", 0), container("p", "b", 1)],
     {"p"}, []),
    ("a deleted pod loses every dead container",
     [container("gone", "c", 0), container("gone", "c", 1)], set(), ["gone-c-0", "gone-c-1"]),
    ("running containers of a deleted pod are left to the pod manager",
     [container("gone", "c", 0, running=True)], set(), []),
]  # fmt: skip


@pytest.mark.parametrize(("what", "containers", "pods", "removed"), CASES, ids=[c[0] for c in CASES])
def test_evictable_containers(
    what: str, containers: list[ContainerStatus], pods: set[str], removed: list[str]
) -> None:
    doomed = evictable_containers(containers, pods.__contains__, GCPolicy(), now=200.0)
    assert sorted(c.id for c in doomed) == removed


def test_min_age_keeps_recently_dead_containers() -> None:
    dead = [container("gone", "c", 0, finished=150.0)]
    assert evictable_containers(dead, lambda uid: False, GCPolicy(min_age=60), now=200.0) == []
    assert evictable_containers(dead, lambda uid: False, GCPolicy(min_age=30), now=200.0) == dead


async def test_garbage_collect_removes_containers_and_their_logs(tmp_path: Path) -> None:
    clock = FakeClock()
    runtime = FakeRuntime(clock, start_delay=0, start_jitter=0)
    logs = tmp_path / "default_web_uid-web"
    for attempt in range(3):
        await start_pod(
            runtime, "web", {"c": {"FAKE_EXIT_AFTER": "1"}}, attempt=attempt, log_directory=str(logs)
        )
        await clock.step(2)
    (logs / "c" / "0.log.20260101-000000").write_text("rotated\n")
    existing = {"uid-web"}
    gc = ContainerGC(runtime, existing.__contains__, clock)
    assert len(await gc.garbage_collect()) == 1
    assert sorted(p.name for p in (logs / "c").iterdir()) == ["1.log", "2.log"]
    assert sorted(c.attempt for c in await runtime.list_containers()) == [1, 2]
    existing.clear()  # the pod was deleted (and stopped by its worker)
    for sandbox in await runtime.list_pod_sandboxes():
        await runtime.stop_pod_sandbox(sandbox.id)
    assert len(await gc.garbage_collect()) == 2
    assert await runtime.list_containers() == []
    assert await runtime.list_pod_sandboxes() == []
    assert not logs.exists()


async def test_run_collects_every_period() -> None:
    clock = FakeClock()
    runtime = FakeRuntime(clock, start_delay=0, start_jitter=0)
    await start_pod(runtime, "job", {"c": {"FAKE_EXIT_AFTER": "1"}})
    gc = ContainerGC(runtime, lambda uid: False, clock, period=60)
    task = asyncio.create_task(gc.run())
    await asyncio.sleep(0)
    await clock.step(30)
    assert len(await runtime.list_containers()) == 1
    await clock.step(31)
    assert await runtime.list_containers() == []
    task.cancel()

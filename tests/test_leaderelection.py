"""LeaderElector against FakeClient on a FakeClock: one leader, hand-over, expiry, lost renewal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable

import pytest

from minikube_py.api.errors import ApiError
from minikube_py.client.resourcetypes import LEASES
from minikube_py.clock import FakeClock
from minikube_py.leaderelection import LeaderElector, LeadershipLost
from minikube_py.testing.fakeclient import FakeClient

NS, NAME = "kube-system", "kube-controller-manager"
MICRO_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


async def advance(clock: FakeClock, seconds: float, tick: float = 0.5) -> None:
    for _ in range(round(seconds / tick)):
        await clock.step(tick)


def elector(fake: FakeClient, clock: FakeClock, identity: str) -> LeaderElector:
    return LeaderElector(fake, namespace=NS, name=NAME, identity=identity, clock=clock)


def lead_recording(log: list[str], who: str) -> Callable[[], Awaitable[None]]:
    async def lead() -> None:
        log.append(f"{who} started")
        try:
            await asyncio.Event().wait()
        finally:
            log.append(f"{who} stopped")

    return lead


def lease_spec(fake: FakeClient) -> dict[str, object]:
    lease = fake.stored(LEASES, NS, NAME)
    assert lease is not None
    spec: dict[str, object] = lease["spec"]
    return spec


async def cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_only_one_leads_and_cancellation_hands_over() -> None:
    fake, clock, log = FakeClient(), FakeClock(), []
    a, b = elector(fake, clock, "a"), elector(fake, clock, "b")
    task_a = asyncio.ensure_future(a.run(lead_recording(log, "a")))
    await settle()
    task_b = asyncio.ensure_future(b.run(lead_recording(log, "b")))
    for _ in range(20):
        await advance(clock, 1.5)
        assert (a.is_leader(), b.is_leader()) == (True, False)
    assert log == ["a started"]
    spec = lease_spec(fake)
    assert spec["holderIdentity"] == "a" and spec["leaseDurationSeconds"] == 15
    assert spec["leaseTransitions"] == 0
    assert re.fullmatch(MICRO_TIME, str(spec["renewTime"])) and spec["renewTime"] != spec["acquireTime"]

    await cancel(task_a)
    assert log == ["a started", "a stopped"]
    spec = lease_spec(fake)
    assert (spec["holderIdentity"], spec["leaseDurationSeconds"]) == ("", 1)  # released
    assert not a.is_leader()
    await advance(clock, 2.0 * 2.2 + 0.5)  # b's next acquire retry, jitter included
    assert b.is_leader() and log[-1] == "b started"
    spec = lease_spec(fake)
    assert spec["holderIdentity"] == "b" and spec["leaseTransitions"] == 1
    await cancel(task_b)


async def test_expired_lease_is_taken_over_after_lease_duration_of_observation() -> None:
    fake, clock, log = FakeClient(), FakeClock(), []
    fake.seed(
        LEASES,
        {
            "metadata": {"name": NAME, "namespace": NS},
            "spec": {
                "holderIdentity": "ghost",
                "leaseDurationSeconds": 15,
                "acquireTime": "2020-01-01T00:00:00.000000Z",
                "renewTime": "2020-01-01T00:00:00.000000Z",  # remote time is not trusted
                "leaseTransitions": 4,
            },
        },
    )
    b = elector(fake, clock, "b")
    task = asyncio.ensure_future(b.run(lead_recording(log, "b")))
    await settle()
    await advance(clock, 14.5)
    assert not b.is_leader() and log == []
    await advance(clock, 0.5 + 2.0 * 2.2 + 0.5)
    assert b.is_leader() and log == ["b started"]
    spec = lease_spec(fake)
    assert spec["holderIdentity"] == "b" and spec["leaseTransitions"] == 5
    await cancel(task)


async def test_renewed_lease_is_never_taken_over() -> None:
    fake, clock = FakeClient(), FakeClock()
    a, b = elector(fake, clock, "a"), elector(fake, clock, "b")
    task_a = asyncio.ensure_future(a.run(lead_recording([], "a")))
    await settle()
    fake.fail("update", "leases", ApiError(500, "InternalError", "blip"), times=3)  # a few failed renewals
    task_b = asyncio.ensure_future(b.run(lead_recording([], "b")))
    await advance(clock, 60)
    assert a.is_leader() and not b.is_leader()
    await cancel(task_b)
    await cancel(task_a)


async def test_renewal_failing_past_renew_deadline_cancels_lead_and_raises() -> None:
    fake, clock, log = FakeClient(), FakeClock(), []
    a = elector(fake, clock, "a")
    task = asyncio.ensure_future(a.run(lead_recording(log, "a")))
    await settle()
    assert a.is_leader()
    fake.fail("update", "leases", ApiError(500, "InternalError", "etcd down"), times=1000)
    await advance(clock, 2.0 + 9.5)  # first failed renewal at 2 s; deadline 10 s later
    assert a.is_leader() and log == ["a started"] and not task.done()
    await advance(clock, 1.0)
    assert task.done()
    with pytest.raises(LeadershipLost):
        await task
    assert log == ["a started", "a stopped"]
    assert not a.is_leader()


async def test_lead_returning_releases_and_lead_errors_propagate() -> None:
    fake, clock = FakeClient(), FakeClock()
    a = elector(fake, clock, "a")

    async def short() -> None:
        await clock.sleep(1)

    task = asyncio.ensure_future(a.run(short))
    await settle()
    await clock.step(1)
    await task
    assert lease_spec(fake)["holderIdentity"] == ""

    async def broken() -> None:
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        await a.run(broken)
    assert lease_spec(fake)["holderIdentity"] == "" and lease_spec(fake)["leaseTransitions"] == 1


async def test_conflicting_write_means_someone_else_won() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.fail("create", "leases", ApiError(409, "AlreadyExists", "leases already exists"), times=1)
    a = elector(fake, clock, "a")
    task = asyncio.ensure_future(a.run(lead_recording([], "a")))
    await settle()
    assert not a.is_leader()
    await advance(clock, 5.0)
    assert a.is_leader()
    await cancel(task)


def test_rejects_inconsistent_timing() -> None:
    with pytest.raises(ValueError):
        LeaderElector(
            FakeClient(), namespace=NS, name=NAME, identity="a", lease_duration=5, renew_deadline=10
        )
    with pytest.raises(ValueError):
        LeaderElector(FakeClient(), namespace=NS, name=NAME, identity="")

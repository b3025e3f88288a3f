"""EventRecorder against FakeClient: create, aggregation, cluster-scoped objects, failures."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator

import pytest

from minikube_py.api.errors import ApiError
from minikube_py.client.resourcetypes import EVENTS
from minikube_py.clock import FakeClock
from minikube_py.events import BUFFER_SIZE, COMBINED, SPAM_BURST, EventRecorder, FakeRecorder
from minikube_py.testing.fakeclient import FakeClient

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "prod", "uid": "u-1", "resourceVersion": "7"},
}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "u-n1", "resourceVersion": "3"}}


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


@pytest.fixture
def fake() -> FakeClient:
    return FakeClient()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


@pytest.fixture
async def recorder(fake: FakeClient, clock: FakeClock) -> AsyncIterator[EventRecorder]:
    rec = EventRecorder(fake, "replicaset-controller", clock=clock, host="host-a")
    task = asyncio.ensure_future(rec.run())
    yield rec
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_creates_a_core_v1_event(recorder: EventRecorder, fake: FakeClient) -> None:
    recorder.event(POD, "Normal", "Scheduled", "assigned prod/web-1 to n1")
    await settle()
    [event] = fake.all(EVENTS)
    assert re.fullmatch(r"web-1\.[0-9a-f]{16}", event["metadata"]["name"])
    assert event["metadata"]["namespace"] == "prod"
    assert event["involvedObject"] == {
        "kind": "Pod",
        "namespace": "prod",
        "name": "web-1",
        "uid": "u-1",
        "apiVersion": "v1",
        "resourceVersion": "7",
    }
    assert (event["type"], event["reason"], event["message"]) == (
        "Normal",
        "Scheduled",
        "assigned prod/web-1 to n1",
    )
    assert event["source"] == {"component": "replicaset-controller", "host": "host-a"}
    assert event["reportingComponent"] == "replicaset-controller"
    assert event["reportingInstance"] == "host-a"
    assert event["firstTimestamp"] == event["lastTimestamp"] == "2027-01-15T08:00:00Z"
    assert event["count"] == 1


async def test_repeat_is_aggregated_into_a_patch(
    recorder: EventRecorder, fake: FakeClient, clock: FakeClock
) -> None:
    recorder.event(POD, "Warning", "FailedCreate", "quota exceeded")
    await settle()
    await clock.step(30)
    recorder.event(POD, "Warning", "FailedCreate", "quota exceeded")
    await settle()
    [event] = fake.all(EVENTS)
    assert event["count"] == 2
    assert event["firstTimestamp"] == "2027-01-15T08:00:00Z"
    assert event["lastTimestamp"] == "2027-01-15T08:00:30Z"
    [patch] = fake.filter_actions("patch", "events")
    assert patch.name == event["metadata"]["name"] and patch.namespace == "prod"


async def test_different_message_or_old_repeat_creates_new_events(
    recorder: EventRecorder, fake: FakeClient, clock: FakeClock
) -> None:
    recorder.event(POD, "Normal", "Pulled", "image a")
    recorder.event(POD, "Normal", "Pulled", "image b")
    await settle()
    assert len(fake.all(EVENTS)) == 2
    await clock.step(601)
    recorder.event(POD, "Normal", "Pulled", "image a")  # outside the 10 minute window
    await settle()
    assert len(fake.all(EVENTS)) == 3
    assert fake.filter_actions("patch", "events") == []


async def test_cluster_scoped_object_event_goes_to_default(recorder: EventRecorder, fake: FakeClient) -> None:
    recorder.event(NODE, "Normal", "NodeReady", "node n1 is ready")
    await settle()
    [event] = fake.all(EVENTS)
    assert event["metadata"]["namespace"] == "default"
    assert "namespace" not in event["involvedObject"]


async def test_write_failure_is_logged_and_dropped(
    recorder: EventRecorder, fake: FakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail("create", "events", ApiError(500, "InternalError", "etcd down"), times=1)
    with caplog.at_level(logging.WARNING, logger="events"):
        recorder.event(POD, "Normal", "Created", "one")
        await settle()
    assert fake.all(EVENTS) == []
    assert any("etcd down" in r.getMessage() for r in caplog.records)
    recorder.event(POD, "Normal", "Created", "two")  # the recorder keeps going
    await settle()
    assert [e["message"] for e in fake.all(EVENTS)] == ["two"]


async def test_patch_of_a_deleted_event_creates_it_again(
    recorder: EventRecorder, fake: FakeClient, clock: FakeClock
) -> None:
    recorder.event(POD, "Normal", "Killing", "stopping")
    await settle()
    [event] = fake.all(EVENTS)
    await fake.resource(EVENTS, "prod").delete(event["metadata"]["name"])
    recorder.event(POD, "Normal", "Killing", "stopping")
    await settle()
    assert len(fake.all(EVENTS)) == 1


async def test_event_never_blocks_or_raises(fake: FakeClient, caplog: pytest.LogCaptureFixture) -> None:
    rec = EventRecorder(fake, "c", clock=FakeClock())  # not running: nothing drains the buffer
    with caplog.at_level(logging.ERROR, logger="events"):
        for i in range(BUFFER_SIZE + 5):
            rec.event(POD, "Normal", f"R{i}", "m")  # one reason each: no spam filtering
        rec.event(POD, "Bogus", "R", "bad type")
        rec.event({}, "Normal", "R", "no metadata")
    assert sum("buffer full" in r.getMessage() for r in caplog.records) == 6  # incl. "no metadata"
    assert any("unsupported event type" in r.getMessage() for r in caplog.records)


async def test_names_are_unique_at_one_instant(recorder: EventRecorder, fake: FakeClient) -> None:
    for reason in ("A", "B", "C"):
        recorder.event(POD, "Normal", reason, "same instant")
    await settle()
    assert len({e["metadata"]["name"] for e in fake.all(EVENTS)}) == 3


def test_fake_recorder() -> None:
    rec = FakeRecorder()
    rec.event(POD, "Normal", "SuccessfulCreate", "Created pod: x")
    assert rec.events == ["Normal SuccessfulCreate Created pod: x"]


async def test_spam_filter_keeps_25_events_per_object_and_reason_then_refills(
    recorder: EventRecorder, fake: FakeClient, clock: FakeClock
) -> None:
    for i in range(40):
        recorder.event(POD, "Normal", "Pulled", "same message")  # one key: patches, not creates
        recorder.event(NODE, "Normal", f"Other{i}", "x")  # other keys are not limited by POD's
    await settle()
    pulled = [e for e in fake.all(EVENTS) if e["reason"] == "Pulled"]
    assert [e["count"] for e in pulled] == [SPAM_BURST]
    assert len([e for e in fake.all(EVENTS) if e["reason"].startswith("Other")]) == 40
    await clock.step(300)  # one token back
    recorder.event(POD, "Normal", "Pulled", "same message")
    recorder.event(POD, "Normal", "Pulled", "same message")
    await settle()
    [again] = [e for e in fake.all(EVENTS) if e["reason"] == "Pulled"]
    assert again["count"] == SPAM_BURST + 1


async def test_similar_events_are_combined_after_ten(recorder: EventRecorder, fake: FakeClient) -> None:
    for i in range(20):
        recorder.event(POD, "Normal", "SuccessfulCreate", f"Created pod: p{i}")
    await settle()
    events = fake.all(EVENTS)
    distinct = [e for e in events if not e["message"].startswith(COMBINED)]
    [combined] = [e for e in events if e["message"].startswith(COMBINED)]
    assert len(distinct) == 9
    assert combined["message"] == COMBINED + "Created pod: p19" and combined["count"] == 11

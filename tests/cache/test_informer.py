"""SharedInformer against FakeClient: sync, ordered notifications, relist diffs, resync,
failing and late handlers, indexes."""

from __future__ import annotations

import asyncio
import logging

import pytest

from minikube_py.api.unstructured import Object
from minikube_py.cache import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    EventHandlerFuncs,
    SharedInformer,
    wait_for_cache_sync,
)
from minikube_py.client.resourcetypes import PODS
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from tests.cache.helpers import Recorder, background, eventually, pod, settle


def make(fake: FakeClient, clock: FakeClock, resync_period: float = 0.0) -> tuple[SharedInformer, Recorder]:
    informer = SharedInformer(fake.resource(PODS), PODS, clock=clock, resync_period=resync_period)
    recorder = Recorder()
    informer.add_event_handler(recorder)
    return informer, recorder


async def test_initial_list_is_delivered_and_synced() -> None:
    fake, clock = FakeClient(), FakeClock()
    a, b = fake.seed(PODS, pod("a"), pod("b", "other"))
    informer, recorder = make(fake, clock)
    assert not informer.has_synced()
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced, clock=clock)
        assert informer.last_sync_resource_version() == str(fake.revision)
        assert [o["metadata"]["name"] for o in informer.indexer.by_index(NAMESPACE_INDEX, "other")] == ["b"]
        await eventually(lambda: len(recorder.events) == 2)
        rv_a, rv_b = a["metadata"]["resourceVersion"], b["metadata"]["resourceVersion"]
        assert recorder.events == [f"add default/a@{rv_a} initial", f"add other/b@{rv_b} initial"]


async def test_events_after_list_arrive_in_order() -> None:
    fake, clock = FakeClient(), FakeClock()
    informer, recorder = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        await eventually(lambda: informer.reflector.watches == 1)
        await pods.create(pod("a"))
        await pods.patch("a", {"metadata": {"labels": {"x": "1"}}})
        await pods.delete("a")
        await eventually(lambda: len(recorder.events) == 3)
        assert recorder.events == [
            "add default/a@2",
            "update default/a@2 -> default/a@3",
            "delete default/a@4",
        ]
        assert informer.indexer.list() == []


async def test_reset_rewatch_misses_nothing_and_does_not_relist() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a"))
    informer, recorder = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        await eventually(lambda: informer.reflector.watches == 1)
        fake.reset_watches()
        await pods.create(pod("b"))
        await pods.delete("a")
        await eventually(lambda: len(recorder.events) == 3)
        assert recorder.events == ["add default/a@2 initial", "add default/b@3", "delete default/a@4"]
        assert len(fake.filter_actions("list", "pods")) == 1


async def test_relist_after_gone_reports_adds_updates_and_unknown_deletes() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a"), pod("b"))
    informer, recorder = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        await eventually(lambda: informer.reflector.watches == 1)
        fake.reset_watches()
        await pods.delete("b")  # rv 4
        await pods.create(pod("c"))  # rv 5
        fake.compact()
        await eventually(lambda: informer.reflector.lists == 2)
        await eventually(lambda: len(recorder.events) == 5)
        assert recorder.events[2:] == [
            "update default/a@2 -> default/a@2",  # a relist re-reports what it finds
            "add default/c@5",  # not initial: the informer had synced long ago
            "delete-unknown default/b last=default/b@3",
        ]
        assert sorted(informer.indexer.list_keys()) == ["default/a", "default/c"]


async def test_dropped_event_repaired_by_relist() -> None:
    fake, clock = FakeClient(), FakeClock()
    informer, recorder = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        await eventually(lambda: informer.reflector.watches == 1)
        fake.drop_watch_events(1)
        await pods.create(pod("lost"))  # rv 2, never sent
        await pods.create(pod("seen"))  # rv 3
        await eventually(lambda: recorder.events == ["add default/seen@3"])
        await settle()
        assert informer.indexer.get_by_key("default/lost") is None
        fake.reset_watches()
        await pods.create(pod("later"))  # rv 4
        fake.compact()
        await eventually(lambda: informer.reflector.lists == 2)
        await eventually(lambda: len(recorder.events) == 4)
        assert sorted(recorder.events[1:]) == [
            "add default/later@4",
            "add default/lost@2",
            "update default/seen@3 -> default/seen@3",
        ]


async def test_resync_redelivers_updates_periodically() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a"))
    informer, recorder = make(fake, clock, resync_period=30.0)
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        await eventually(lambda: len(recorder.events) == 1)
        await clock.step(29)
        await settle()
        assert len(recorder.events) == 1
        await clock.step(1)
        await eventually(lambda: len(recorder.events) == 2)
        await clock.step(30)
        await eventually(lambda: len(recorder.events) == 3)
        assert recorder.events[1:] == ["update default/a@2 -> default/a@2"] * 2


async def test_failing_handler_is_logged_and_stops_nobody(caplog: pytest.LogCaptureFixture) -> None:
    fake, clock = FakeClient(), FakeClock()
    informer, recorder = make(fake, clock)
    calls: list[str] = []

    def explode(obj: Object) -> None:
        calls.append(obj["metadata"]["name"])
        raise RuntimeError("handler bug")

    informer.add_event_handler(EventHandlerFuncs(add=explode))
    pods = fake.resource(PODS, "default")
    with caplog.at_level(logging.ERROR, logger="informer"):
        async with background(informer.run()):
            await wait_for_cache_sync(informer.has_synced)
            await eventually(lambda: informer.reflector.watches == 1)
            await pods.create(pod("a"))
            await pods.create(pod("b"))
            await pods.delete("a")
            await eventually(lambda: len(recorder.events) == 3 and len(calls) == 2)
    assert calls == ["a", "b"]  # the failing handler keeps getting later events
    assert recorder.events == ["add default/a@2", "add default/b@3", "delete default/a@4"]
    failures = [r for r in caplog.records if r.name == "informer" and "event handler" in r.getMessage()]
    assert len(failures) == 2


async def test_late_handler_gets_initial_adds_then_live_events() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a"), pod("b"))
    informer, _ = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        await eventually(lambda: informer.reflector.watches == 1)
        late = Recorder()
        informer.add_event_handler(late)
        await pods.create(pod("c"))
        await eventually(lambda: len(late.events) == 3)
        assert late.events == ["add default/a@2 initial", "add default/b@3 initial", "add default/c@4"]


async def test_event_handler_funcs_with_missing_callbacks() -> None:
    fake, clock = FakeClient(), FakeClock()
    informer, recorder = make(fake, clock)
    deleted: list[Object | DeletedFinalStateUnknown] = []
    informer.add_event_handler(EventHandlerFuncs(delete=deleted.append))
    pods = fake.resource(PODS, "default")
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        await eventually(lambda: informer.reflector.watches == 1)
        await pods.create(pod("a"))
        await pods.delete("a")
        await eventually(lambda: len(deleted) == 1 and len(recorder.events) == 2)
    assert isinstance(deleted[0], dict) and deleted[0]["metadata"]["name"] == "a"


async def test_add_indexers_and_run_twice_rejected() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a", app="web"), pod("b", app="db"))
    informer, _ = make(fake, clock)

    def by_app(obj: Object) -> list[str]:
        return [obj["metadata"]["labels"]["app"]]

    informer.add_indexers({"app": by_app})
    async with background(informer.run()):
        await wait_for_cache_sync(informer.has_synced)
        assert informer.indexer.index_keys("app", "web") == ["default/a"]
        with pytest.raises(RuntimeError):
            await informer.run()


async def test_wait_for_cache_sync_polls_other_callables_on_the_clock() -> None:
    clock = FakeClock()
    flag = {"ready": False}
    async with background(wait_for_cache_sync(lambda: flag["ready"], clock=clock)) as waiter:
        await eventually(clock.has_sleepers)
        flag["ready"] = True
        assert not waiter.done()
        await clock.step(0.1)
        await eventually(waiter.done)


async def test_a_full_listener_buffer_lets_other_tasks_run() -> None:
    """Regression: ``Queue.get`` on a non-empty buffer never suspends, so a relist of 20,000
    objects kept the event loop (the apiserver, in ``up``) busy until every handler call was
    done, and cancellation could not get in. A listener now yields every ``YIELD_EVERY``."""
    from minikube_py.cache.informer import YIELD_EVERY, EventHandlerFuncs, _Add, _Listener

    order: list[str] = []
    listener = _Listener(EventHandlerFuncs(add=lambda obj: order.append("event")), "test")
    for i in range(YIELD_EVERY * 5):
        listener.queue.put_nowait(_Add({"metadata": {"name": str(i)}}, False))

    async def other_work() -> None:
        order.append("other")

    delivering = asyncio.ensure_future(listener.run())
    other = asyncio.ensure_future(other_work())
    while len(order) < YIELD_EVERY * 5 + 1:
        await asyncio.sleep(0)
    delivering.cancel()
    await other
    assert order.index("other") <= YIELD_EVERY

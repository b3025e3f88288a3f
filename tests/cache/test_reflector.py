"""Reflector against FakeClient: list, watch, resume, relist on Gone, bookmarks, backoff."""

from __future__ import annotations

import pytest

from minikube_py.api.errors import ApiError
from minikube_py.cache import Backoff, Indexer, Reflector
from minikube_py.client.resourcetypes import CONFIGMAPS, PODS
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from tests.cache.helpers import background, eventually, pod, settle


def make(fake: FakeClient, clock: FakeClock, page_size: int = 500) -> tuple[Reflector, Indexer]:
    store = Indexer()
    reflector = Reflector(
        fake.resource(PODS), PODS, store, clock=clock, rand=lambda: 0.0, page_size=page_size
    )
    return reflector, store


def rvs(store: Indexer) -> dict[str, str]:
    return {store.key(o): o["metadata"]["resourceVersion"] for o in store.list()}


async def test_lists_in_pages_then_watches_from_list_rv() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, *(pod(f"p{i}") for i in range(5)))
    reflector, store = make(fake, clock, page_size=2)
    async with background(reflector.run()):
        await eventually(lambda: len(fake.filter_actions("watch", "pods")) == 1)
        assert sorted(store.list_keys()) == [f"default/p{i}" for i in range(5)]
        assert len(fake.filter_actions("list", "pods")) == 3  # pages of 2, 2, 1
        assert reflector.lists == 1
        assert reflector.last_sync_resource_version() == str(fake.revision)
        assert fake.filter_actions("watch", "pods")[0].body == str(fake.revision)
        assert all(o["kind"] == "Pod" and o["apiVersion"] == "v1" for o in store.list())


async def test_watch_events_are_applied_in_order() -> None:
    fake, clock = FakeClient(), FakeClock()
    reflector, store = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(reflector.run()):
        await eventually(lambda: reflector.watches == 1)
        await pods.create(pod("a"))
        await pods.create(pod("b"))
        await pods.patch("a", {"metadata": {"labels": {"x": "1"}}})
        await pods.delete("b")
        await eventually(lambda: reflector.last_sync_resource_version() == str(fake.revision))
        assert store.list_keys() == ["default/a"]
        assert store.get_by_key("default/a")["metadata"]["labels"] == {"x": "1"}  # type: ignore[index]


async def test_reset_rewatches_from_last_rv_without_relist() -> None:
    fake, clock = FakeClient(), FakeClock()
    reflector, store = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(reflector.run()):
        await eventually(lambda: reflector.watches == 1)
        await pods.create(pod("a"))
        await eventually(lambda: store.get_by_key("default/a") is not None)
        seen = reflector.last_sync_resource_version()
        fake.reset_watches()
        # written while no watch is open
        await pods.create(pod("b"))
        await pods.patch("a", {"metadata": {"labels": {"x": "1"}}})
        await eventually(lambda: rvs(store) == {o: rv for o, rv in _server_rvs(fake).items()})
        assert reflector.lists == 1
        assert len(fake.filter_actions("list", "pods")) == 1
        assert [a.body for a in fake.filter_actions("watch", "pods")][1] == seen


def _server_rvs(fake: FakeClient) -> dict[str, str]:
    return {
        f"{o['metadata']['namespace']}/{o['metadata']['name']}": o["metadata"]["resourceVersion"]
        for o in fake.all(PODS)
    }


async def test_gone_after_compaction_relists() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a"), pod("b"))
    reflector, store = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(reflector.run()):
        await eventually(lambda: reflector.watches == 1)
        fake.reset_watches()
        await pods.delete("b")
        await pods.create(pod("c"))
        fake.compact()
        await eventually(lambda: reflector.lists == 2)
        await eventually(lambda: reflector.watches == 3)
        assert sorted(store.list_keys()) == ["default/a", "default/c"]
        assert not clock.has_sleepers()  # relisting after Gone needed no backoff


async def test_dropped_event_is_repaired_only_by_relist() -> None:
    fake, clock = FakeClient(), FakeClock()
    reflector, store = make(fake, clock)
    pods = fake.resource(PODS, "default")
    async with background(reflector.run()):
        await eventually(lambda: reflector.watches == 1)
        fake.drop_watch_events(1)
        await pods.create(pod("lost"))
        await pods.create(pod("seen"))
        await eventually(lambda: store.get_by_key("default/seen") is not None)
        await settle()
        assert store.get_by_key("default/lost") is None  # the watch never said
        fake.reset_watches()
        await pods.create(pod("later"))
        fake.compact()  # the reflector's RV is now too old: Gone, relist
        await eventually(lambda: reflector.lists == 2)
        assert sorted(store.list_keys()) == ["default/later", "default/lost", "default/seen"]


async def test_bookmark_advances_resource_version_only() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a"))
    reflector, store = make(fake, clock)
    async with background(reflector.run()):
        await eventually(lambda: reflector.watches == 1)
        before = reflector.last_sync_resource_version()
        await fake.resource(CONFIGMAPS, "default").create({"metadata": {"name": "cm"}})
        await settle()
        assert reflector.last_sync_resource_version() == before
        fake.resource(PODS).send_bookmark()
        await eventually(lambda: reflector.last_sync_resource_version() == str(fake.revision))
        assert int(reflector.last_sync_resource_version()) > int(before)
        assert store.list_keys() == ["default/a"]
        # the next watch resumes from the bookmark
        fake.reset_watches()
        await eventually(lambda: reflector.watches == 2)
        assert fake.filter_actions("watch", "pods")[-1].body == str(fake.revision)


async def test_list_failures_back_off_on_the_clock() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.seed(PODS, pod("a"))
    fake.fail("list", "pods", ApiError(500, "InternalError", "boom"), times=2)
    reflector, store = make(fake, clock)
    async with background(reflector.run()):
        await eventually(clock.has_sleepers)
        assert len(fake.filter_actions("list", "pods")) == 1
        await clock.step(0.7)
        await settle()
        assert len(fake.filter_actions("list", "pods")) == 1  # first delay is 0.8 s
        await clock.step(0.1)
        await eventually(lambda: len(fake.filter_actions("list", "pods")) == 2)
        await eventually(clock.has_sleepers)
        await clock.step(1.5)
        await settle()
        assert len(fake.filter_actions("list", "pods")) == 2  # then 1.6 s
        await clock.step(0.1)
        await eventually(lambda: reflector.lists == 1)
        assert store.list_keys() == ["default/a"]


async def test_watch_failure_backs_off_and_resumes_without_relist() -> None:
    fake, clock = FakeClient(), FakeClock()
    fake.fail("watch", "pods", ApiError(500, "InternalError", "boom"), times=1)
    reflector, store = make(fake, clock)
    async with background(reflector.run()):
        await eventually(clock.has_sleepers)
        await fake.resource(PODS).create(pod("a"))
        await clock.step(0.8)
        await eventually(lambda: store.get_by_key("default/a") is not None)
        assert reflector.lists == 1
        assert reflector.watches == 2


async def test_repeated_empty_watches_back_off() -> None:
    fake, clock = FakeClient(), FakeClock()
    reflector, _ = make(fake, clock)
    async with background(reflector.run()):
        await eventually(lambda: reflector.watches == 1)
        fake.reset_watches()  # first empty close: watch again at once
        await eventually(lambda: reflector.watches == 2)
        assert not clock.has_sleepers()
        fake.reset_watches()  # second in a row: back off
        await eventually(clock.has_sleepers)
        assert reflector.watches == 2
        await clock.step(0.8)
        await eventually(lambda: reflector.watches == 3)
        assert reflector.lists == 1


@pytest.mark.parametrize(
    ("rand", "delays"),
    [(0.0, [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0]), (0.5, [1.2, 2.4, 4.8, 9.6, 19.2, 30.0])],
)
async def test_backoff_sequence(rand: float, delays: list[float]) -> None:
    clock = FakeClock()
    backoff = Backoff(clock, rand=lambda: rand)
    assert [round(backoff.next_delay(), 6) for _ in delays] == delays


async def test_backoff_resets_after_a_healthy_period() -> None:
    clock = FakeClock()
    backoff = Backoff(clock, rand=lambda: 0.0)
    assert [backoff.next_delay() for _ in range(3)] == [0.8, 1.6, 3.2]
    await clock.step(121)
    assert backoff.next_delay() == 0.8

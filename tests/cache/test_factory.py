"""SharedInformerFactory: one informer per distinct arguments, started once in a TaskGroup,
selectors bound into list and watch."""

from __future__ import annotations

import asyncio

from minikube_py.cache import SharedInformerFactory
from minikube_py.client.resourcetypes import CONFIGMAPS, PODS
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from tests.cache.helpers import Recorder, background, eventually, pod


def test_same_arguments_same_informer() -> None:
    factory = SharedInformerFactory(FakeClient(), clock=FakeClock())
    pods = factory.informer(PODS)
    assert factory.informer(PODS) is pods
    assert factory.informer(PODS, namespace="a") is factory.informer(PODS, namespace="a")
    others = {
        id(factory.informer(PODS, namespace="a")),
        id(factory.informer(PODS, label_selector="app=web")),
        id(factory.informer(PODS, field_selector="spec.nodeName=n1")),
        id(factory.informer(CONFIGMAPS)),
    }
    assert len(others | {id(pods)}) == 5


async def test_start_runs_each_informer_once_and_syncs() -> None:
    fake = FakeClient()
    fake.seed(PODS, pod("a", app="web"), pod("b", app="db"), pod("c", "other", app="web"))
    factory = SharedInformerFactory(fake, clock=FakeClock())
    all_pods = factory.informer(PODS)
    web = factory.informer(PODS, label_selector="app=web")
    in_other = factory.informer(PODS, namespace="other")
    recorder = Recorder()
    web.add_event_handler(recorder)

    async def main() -> None:
        async with asyncio.TaskGroup() as tasks:
            factory.start(tasks)
            factory.start(tasks)  # idempotent
            await factory.wait_for_cache_sync()
            late = factory.informer(CONFIGMAPS)
            factory.start(tasks)  # starts only the new one
            await factory.wait_for_cache_sync()
            assert late.has_synced()
            await asyncio.Event().wait()

    async with background(main()):
        await eventually(lambda: len(fake.filter_actions("list", "configmaps")) == 1)
        assert all(i.has_synced() for i in (all_pods, web, in_other))
        assert len(fake.filter_actions("list", "pods")) == 3
        assert sorted(all_pods.indexer.list_keys()) == ["default/a", "default/b", "other/c"]
        assert sorted(web.indexer.list_keys()) == ["default/a", "other/c"]
        assert in_other.indexer.list_keys() == ["other/c"]
        # the label selector is bound into the watch too
        await eventually(lambda: web.reflector.watches == 1)
        await fake.resource(PODS, "default").create(pod("d", app="db"))
        await fake.resource(PODS, "default").create(pod("e", app="web"))
        await eventually(lambda: web.indexer.get_by_key("default/e") is not None)
        assert web.indexer.get_by_key("default/d") is None
        await eventually(lambda: len(recorder.events) == 3)
        assert recorder.events[-1].startswith("add default/e@")

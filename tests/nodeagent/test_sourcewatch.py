"""Volumes refreshed from per-object watches: ``SourceWatches`` with ``VolumeManager`` on real
files (the fake client's watches; the node agent's assembly is tested end to end)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from minikube_py.client.resourcetypes import CONFIGMAPS, SECRETS
from minikube_py.clock import FakeClock
from minikube_py.testing.fakeclient import FakeClient
from nodeagent.volumes import VolumeManager
from nodeagent.volumes.sourcewatch import SourceWatches, volume_sources
from tests.cache.helpers import eventually, settle

UID = "uid-1"


def cm(name: str, data: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}, "data": data, **extra}


def pod(*volumes: dict[str, Any], uid: str = UID) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "namespace": "default", "uid": uid},
        "spec": {"containers": [{"name": "c"}], "volumes": list(volumes)},
    }


def files(directory: Path) -> dict[str, bytes]:
    if not directory.exists():
        return {}
    return {p.name: p.read_bytes() for p in directory.iterdir() if not p.name.startswith("..")}


class Node:
    """A VolumeManager with running SourceWatches; ``woken`` lists the pods woken."""

    def __init__(self, client: FakeClient, root: Path, clock: FakeClock) -> None:
        self.client, self.clock = client, clock
        self.sources = SourceWatches(client, clock=clock, refresh_delay=5.0)
        self.woken: list[str] = []
        self.sources.notify = self.woken.append
        self.volumes = VolumeManager(client, root, clock=clock, sources=self.sources)

    def path(self, plugin: str, name: str, uid: str = UID) -> Path:
        return self.volumes.root / "pods" / uid / "volumes" / plugin / name

    def watches(self) -> int:
        return len(self.client.filter_actions("watch", "configmaps"))


@pytest.fixture
async def node(tmp_path: Path) -> AsyncIterator[Node]:
    client = FakeClient()
    client.seed(CONFIGMAPS, cm("cfg", {"key": "one"}))
    client.seed(SECRETS, {"metadata": {"name": "sec", "namespace": "default"}, "data": {"pw": "YQ=="}})
    the_node = Node(client, tmp_path, FakeClock())
    task = asyncio.create_task(the_node.sources.run())
    yield the_node
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def test_volume_sources_are_the_volumes_objects_only() -> None:
    the_pod = pod(
        {"name": "a", "configMap": {"name": "cfg"}},
        {"name": "b", "secret": {"secretName": "sec"}},
        {"name": "c", "projected": {"sources": [{"configMap": {"name": "p"}}, {"secret": {"name": "q"}}]}},
        {"name": "d", "emptyDir": {}},
    )
    assert list(volume_sources(the_pod)) == [
        ("configmaps", "default", "cfg"),
        ("secrets", "default", "sec"),
        ("configmaps", "default", "p"),
        ("secrets", "default", "q"),
    ]


async def test_a_change_wakes_the_pod_after_the_refresh_delay_and_the_refresh_reads_the_watch(
    node: Node,
) -> None:
    the_pod = pod({"name": "config", "configMap": {"name": "cfg"}})
    await node.volumes.setup_pod_volumes(the_pod)
    path = node.path("kubernetes.io~configmap", "config")
    assert files(path) == {"key": b"one"}
    # the object is read from its watch (listed by name), not with a GET
    assert node.client.filter_actions("get", "configmaps") == []
    lists = node.client.filter_actions("list", "configmaps")
    assert len(lists) == 1
    await node.client.resource(CONFIGMAPS, "default").update(cm("cfg", {"key": "two"}))
    await node.client.resource(CONFIGMAPS, "default").update(cm("cfg", {"key": "three"}))
    await settle()
    assert node.woken == []  # not before the refresh delay
    await eventually(lambda: node.sources.pending() == {UID})
    await node.clock.step(5.0)
    await eventually(lambda: node.woken == [UID])  # two changes, one wake-up
    await node.volumes.refresh_pod_volumes(the_pod)
    assert files(path) == {"key": b"three"}
    assert node.client.filter_actions("get", "configmaps") == []


async def test_optional_sources_that_appear_and_disappear(node: Node) -> None:
    the_pod = pod({"name": "maybe", "configMap": {"name": "later", "optional": True}})
    await node.volumes.setup_pod_volumes(the_pod)
    path = node.path("kubernetes.io~configmap", "maybe")
    assert files(path) == {}
    await node.client.resource(CONFIGMAPS, "default").create(cm("later", {"k": "v"}))
    await eventually(lambda: node.sources.pending() == {UID})
    await node.clock.step(5.0)
    await eventually(lambda: node.woken == [UID])
    await node.volumes.refresh_pod_volumes(the_pod)
    assert files(path) == {"k": b"v"}
    await node.client.resource(CONFIGMAPS, "default").delete("later")
    await eventually(lambda: node.sources.pending() == {UID})
    await node.clock.step(5.0)
    await eventually(lambda: node.woken == [UID, UID])
    await node.volumes.refresh_pod_volumes(the_pod)
    assert files(path) == {}


async def test_secret_in_a_projected_volume_is_refreshed(node: Node) -> None:
    the_pod = pod({"name": "all", "projected": {"sources": [{"secret": {"name": "sec"}}]}})
    await node.volumes.setup_pod_volumes(the_pod)
    path = node.path("kubernetes.io~projected", "all")
    assert files(path) == {"pw": b"a"}
    secret = {"metadata": {"name": "sec", "namespace": "default"}}
    await node.client.resource(SECRETS, "default").update(
        {**secret, "data": {"pw": base64.b64encode(b"b").decode()}}
    )
    await eventually(lambda: node.sources.pending() == {UID})
    await node.clock.step(5.0)
    await eventually(lambda: node.woken == [UID])
    await node.volumes.refresh_pod_volumes(the_pod)
    assert files(path) == {"pw": b"b"}


async def test_immutable_objects_are_not_watched_but_still_served(node: Node) -> None:
    await node.client.resource(CONFIGMAPS, "default").create(cm("frozen", {"k": "v"}, immutable=True))
    the_pod = pod({"name": "f", "configMap": {"name": "frozen"}})
    await node.volumes.setup_pod_volumes(the_pod)
    await eventually(lambda: ("configmaps", "default", "frozen") not in node.sources.watched())
    await node.volumes.refresh_pod_volumes(the_pod)
    assert files(node.path("kubernetes.io~configmap", "f")) == {"k": b"v"}
    assert node.client.filter_actions("get", "configmaps") == []


async def test_a_watch_lasts_while_some_pod_uses_it(node: Node) -> None:
    key = ("configmaps", "default", "cfg")
    first = pod({"name": "config", "configMap": {"name": "cfg"}}, uid="a")
    second = pod({"name": "config", "configMap": {"name": "cfg"}}, uid="b")
    await node.volumes.setup_pod_volumes(first)
    await node.volumes.setup_pod_volumes(second)
    assert node.sources.watched() == {key}
    await eventually(lambda: node.watches() == 1)  # one watch for both pods
    node.volumes.cleanup_pod_volumes("a")
    assert node.sources.watched() == {key}
    node.volumes.cleanup_pod_volumes("b")
    assert node.sources.watched() == set()
    # a pod whose spec no longer names it drops it too (its sources are tracked on each sync)
    await node.volumes.setup_pod_volumes(first)
    await node.volumes.refresh_pod_volumes(pod({"name": "scratch", "emptyDir": {}}, uid="a"))
    assert node.sources.watched() == set()


async def test_without_running_watches_the_objects_are_read_with_get(tmp_path: Path) -> None:
    client = FakeClient()
    client.seed(CONFIGMAPS, cm("cfg", {"key": "one"}))
    sources = SourceWatches(client, clock=FakeClock())  # never run
    volumes = VolumeManager(client, tmp_path, sources=sources)
    await volumes.setup_pod_volumes(pod({"name": "config", "configMap": {"name": "cfg"}}))
    assert len(client.filter_actions("get", "configmaps")) == 1

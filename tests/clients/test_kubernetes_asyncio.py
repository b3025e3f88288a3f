"""kubernetes_asyncio, unmodified, against ``up`` (control plane only): typed lists, and watches
of ConfigMaps and Pods seeing ADDED, MODIFIED and DELETED, both replayed from a list's
resourceVersion and live. The library sends ``watch=True`` (Python's spelling of the boolean),
which upstream takes as true like any value but ``0``/``false``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from kubernetes_asyncio import client, config, watch

from tests.clients.support import module_cluster
from tests.cluster import Cluster

pytestmark = pytest.mark.e2e
NS = "default"
WATCH_TIMEOUT = 30


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    yield from module_cluster(tmp_path_factory, "kubernetes-asyncio", nodes=0)


@pytest.fixture
async def core(cluster: Cluster) -> AsyncIterator[client.CoreV1Api]:
    api = await config.new_client_from_config(config_file=str(cluster.kubeconfig))
    async with api:
        yield client.CoreV1Api(api)


def config_map(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": labels},
        "data": {"k": "v"},
    }


async def test_lists_are_typed(core: client.CoreV1Api) -> None:
    namespaces = await core.list_namespace()
    assert {"default", "kube-system"} <= {ns.metadata.name for ns in namespaces.items}
    assert all(isinstance(ns, client.V1Namespace) for ns in namespaces.items)
    await core.create_namespaced_config_map(NS, config_map("listed", {"list": "yes"}))
    listed = await core.list_namespaced_config_map(NS, label_selector="list=yes")
    assert [cm.metadata.name for cm in listed.items] == ["listed"]
    assert isinstance(listed, client.V1ConfigMapList) and listed.metadata.resource_version
    pods = await core.list_pod_for_all_namespaces()
    assert pods.items == [] and pods.metadata.resource_version
    await core.delete_namespaced_config_map("listed", NS)


async def events_until_deleted(
    list_call: Any, rv: str, name: str, **selector: str
) -> list[tuple[str, str, Any]]:
    """(type, name, object) of each event of a watch of ``list_call`` in ``NS`` from ``rv``
    (``selector``: its label or field selector), until ``name``'s DELETED."""
    w = watch.Watch()
    stream = w.stream(list_call, NS, **selector, resource_version=rv, timeout_seconds=WATCH_TIMEOUT)
    seen: list[tuple[str, str, Any]] = []
    async with asyncio.timeout(WATCH_TIMEOUT):
        async for event in stream:
            seen.append((event["type"], event["object"].metadata.name, event["object"]))
            if seen[-1][:2] == ("DELETED", name):
                break
    w.stop()
    return seen


async def test_watch_configmaps_from_a_resource_version(core: client.CoreV1Api) -> None:
    labels = {"watch": "replayed"}
    rv = (
        await core.list_namespaced_config_map(NS, label_selector="watch=replayed")
    ).metadata.resource_version
    await core.create_namespaced_config_map(NS, config_map("replayed", labels))
    await core.patch_namespaced_config_map("replayed", NS, {"data": {"k": "changed"}})
    await core.delete_namespaced_config_map("replayed", NS)
    seen = await events_until_deleted(
        core.list_namespaced_config_map, rv, "replayed", label_selector="watch=replayed"
    )
    assert [(kind, name) for kind, name, _ in seen] == [
        ("ADDED", "replayed"),
        ("MODIFIED", "replayed"),
        ("DELETED", "replayed"),
    ]
    assert all(isinstance(obj, client.V1ConfigMap) for _, _, obj in seen)
    assert seen[1][2].data == {"k": "changed"}


async def test_watch_configmaps_live(core: client.CoreV1Api) -> None:
    """A watch without a resourceVersion: the existing object as ADDED, then changes as they
    happen."""
    await core.create_namespaced_config_map(NS, config_map("live", {"watch": "live"}))
    queue: asyncio.Queue[tuple[str, str, Any]] = asyncio.Queue()

    async def consume() -> None:
        w = watch.Watch()
        async for event in w.stream(
            core.list_namespaced_config_map, NS, label_selector="watch=live", timeout_seconds=WATCH_TIMEOUT
        ):
            await queue.put((event["type"], event["object"].metadata.name, event["object"]))
            if event["type"] == "DELETED":
                w.stop()

    consumer = asyncio.create_task(consume())
    try:
        async with asyncio.timeout(WATCH_TIMEOUT):
            assert (await queue.get())[:2] == ("ADDED", "live")
            await core.patch_namespaced_config_map("live", NS, {"data": {"k": "live-change"}})
            kind, name, obj = await queue.get()
            assert (kind, name, obj.data) == ("MODIFIED", "live", {"k": "live-change"})
            await core.delete_namespaced_config_map("live", NS)
            assert (await queue.get())[:2] == ("DELETED", "live")
            await consumer
    finally:
        consumer.cancel()


async def test_watch_pods(core: client.CoreV1Api) -> None:
    """A pod created, labelled and deleted (no node: it stays Pending, so deletion is at once)."""
    rv = (await core.list_namespaced_pod(NS)).metadata.resource_version
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "watched"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]},
    }
    await core.create_namespaced_pod(NS, pod)
    await core.patch_namespaced_pod("watched", NS, {"metadata": {"labels": {"seen": "yes"}}})
    await core.delete_namespaced_pod("watched", NS)
    seen = await events_until_deleted(
        core.list_namespaced_pod, rv, "watched", field_selector="metadata.name=watched"
    )
    kinds = [kind for kind, _, _ in seen]
    assert kinds[0] == "ADDED" and kinds[-1] == "DELETED" and "MODIFIED" in kinds[1:-1], kinds
    assert all(isinstance(obj, client.V1Pod) for _, _, obj in seen)
    assert any(
        (obj.metadata.labels or {}).get("seen") == "yes" for kind, _, obj in seen if kind == "MODIFIED"
    )
    assert seen[0][2].status.phase == "Pending"

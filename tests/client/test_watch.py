"""Watches through ``RESTClient`` against a real HTTPS apiserver: event order after a list's
RV, selectors, server-side timeouts, ``Gone`` for a resourceVersion the watch cache no longer
holds, and the HTTP stream being released when the consumer stops."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from minikube_py.client import ADDED, DELETED, MODIFIED, Gone, RESTClient, WatchEvent, load_kubeconfig
from minikube_py.client.resourcetypes import CONFIGMAPS
from minikube_py.client.transport import AiohttpTransport
from tests.client.apiserver import RunningApiserver

# the watch cache's window (apiserver.storage.cacher.Cacher capacity): older RVs are Gone
CACHE_WINDOW = 1000


def configmap(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}}


async def collect(events: AsyncIterator[WatchEvent], count: int) -> list[WatchEvent]:
    got: list[WatchEvent] = []
    async with contextlib.aclosing(events) as stream:  # type: ignore[type-var]
        async for event in stream:
            got.append(event)
            if len(got) == count:
                break
    return got


async def test_watch_sees_changes_after_the_list_in_order(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    await cms.create(configmap("before"))
    rv = (await cms.list())["metadata"]["resourceVersion"]
    watch = asyncio.create_task(collect(cms.watch(resource_version=rv), 3))
    created = await cms.create(configmap("w"))
    await cms.update({**created, "data": {"k": "v"}})
    await cms.delete("w")
    events = await asyncio.wait_for(watch, 10)
    assert [(e.type, e.object["metadata"]["name"]) for e in events] == [
        (ADDED, "w"),
        (MODIFIED, "w"),
        (DELETED, "w"),
    ]
    rvs = [int(e.object["metadata"]["resourceVersion"]) for e in events]
    assert rvs == sorted(rvs) and rvs[0] > int(rv)
    assert events[1].object["data"] == {"k": "v"}


async def test_watch_filters_by_label_and_spans_namespaces(client: RESTClient) -> None:
    everywhere = client.resource(CONFIGMAPS)
    rv = (await everywhere.list())["metadata"]["resourceVersion"]
    watch = asyncio.create_task(collect(everywhere.watch(resource_version=rv, label_selector="pick=yes"), 2))
    await client.resource(CONFIGMAPS, "default").create(configmap("skip", pick="no"))
    await client.resource(CONFIGMAPS, "default").create(configmap("a", pick="yes"))
    await client.resource(CONFIGMAPS, "kube-system").create(configmap("b", pick="yes"))
    events = await asyncio.wait_for(watch, 10)
    assert [(e.object["metadata"]["namespace"], e.object["metadata"]["name"]) for e in events] == [
        ("default", "a"),
        ("kube-system", "b"),
    ]


async def test_watch_without_rv_starts_with_the_current_state(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    await cms.create(configmap("existing"))
    events = await asyncio.wait_for(collect(cms.watch(field_selector="metadata.name=existing"), 1), 10)
    assert [(e.type, e.object["metadata"]["name"]) for e in events] == [(ADDED, "existing")]


async def test_server_timeout_ends_the_stream_cleanly(client: RESTClient) -> None:
    cms = client.resource(CONFIGMAPS, "default")
    rv = (await cms.list())["metadata"]["resourceVersion"]
    loop = asyncio.get_running_loop()
    start = loop.time()
    events = [e async for e in cms.watch(resource_version=rv, timeout_seconds=1)]
    assert events == []
    assert 0.8 < loop.time() - start < 5


async def test_watch_from_a_resource_version_older_than_the_cache_is_gone(
    apiserver: RunningApiserver,
) -> None:
    async with RESTClient.from_kubeconfig(apiserver.kubeconfig, qps=0) as client:
        cms = client.resource(CONFIGMAPS, "default")
        old = (await cms.list())["metadata"]["resourceVersion"]
        semaphore = asyncio.Semaphore(50)

        async def create(i: int) -> None:
            async with semaphore:
                await cms.create(configmap(f"churn-{i}"))

        await asyncio.gather(*(create(i) for i in range(CACHE_WINDOW + 1)))  # push `old` out
        with pytest.raises(Gone) as err:
            async for _ in cms.watch(resource_version=old, timeout_seconds=5):
                pytest.fail("no event is expected before Gone")
        assert (err.value.code, err.value.reason) == (410, "Expired")
        assert "too old resource version" in err.value.message
        recent = (await cms.list(limit=1))["metadata"]["resourceVersion"]
        assert [e async for e in cms.watch(resource_version=recent, timeout_seconds=1)] == []


def single_connection_client(apiserver: RunningApiserver) -> RESTClient:
    """A client whose pool holds one connection and waits at most 2 s for it: a watch stream
    left open would make the next request fail with a pool timeout."""
    config = load_kubeconfig(apiserver.kubeconfig)
    transport = AiohttpTransport(config.ssl_context(), limit=1)
    config = dataclasses.replace(config, timeout=2.0)
    return RESTClient(config, transport=transport)


async def test_breaking_out_of_a_watch_releases_the_stream(apiserver: RunningApiserver) -> None:
    async with single_connection_client(apiserver) as client:
        cms = client.resource(CONFIGMAPS, "default")
        await cms.create(configmap("x"))
        for _ in range(3):
            events = await collect(cms.watch(), 1)  # aclosing + break
            assert events[0].object["metadata"]["name"] == "x"
            assert (await cms.get("x"))["metadata"]["name"] == "x"  # the connection is free


async def test_a_plain_break_releases_the_stream_once_the_generator_is_dropped(
    apiserver: RunningApiserver,
) -> None:
    async with single_connection_client(apiserver) as client:
        cms = client.resource(CONFIGMAPS, "default")
        await cms.create(configmap("y"))
        async for _event in cms.watch():
            break  # no aclosing: the event loop's async-generator finalizer closes it
        await asyncio.sleep(0.05)
        assert (await cms.get("y"))["metadata"]["name"] == "y"


async def test_cancelling_the_consumer_releases_the_stream(apiserver: RunningApiserver) -> None:
    async with single_connection_client(apiserver) as client:
        cms = client.resource(CONFIGMAPS, "default")
        rv = (await cms.list())["metadata"]["resourceVersion"]
        started = asyncio.Event()

        async def consume() -> None:
            async with contextlib.aclosing(cms.watch(resource_version=rv)) as stream:  # type: ignore[type-var]
                started.set()
                async for _ in stream:
                    pass

        task = asyncio.create_task(consume())
        await started.wait()
        await asyncio.sleep(0.2)  # the stream is established and idle
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await cms.list()  # the connection is free

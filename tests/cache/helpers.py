"""Shared helpers for the cache tests: a recording handler, polling without real waits, and
running a coroutine in the background for the length of a test."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.cache import DeletedFinalStateUnknown


def pod(name: str, namespace: str = "default", **labels: str) -> Object:
    return {"metadata": {"name": name, "namespace": namespace, "labels": dict(labels)}, "spec": {}}


def describe(obj: Object) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}@{meta.get('resourceVersion', '')}"


class Recorder:
    """A ResourceEventHandler that writes one line per notification."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def on_add(self, obj: Object, is_in_initial_list: bool) -> None:
        self.events.append(f"add {describe(obj)}{' initial' if is_in_initial_list else ''}")

    def on_update(self, old: Object, new: Object) -> None:
        self.events.append(f"update {describe(old)} -> {describe(new)}")

    def on_delete(self, obj: Object | DeletedFinalStateUnknown) -> None:
        if isinstance(obj, DeletedFinalStateUnknown):
            self.events.append(f"delete-unknown {obj.key} last={describe(obj.obj)}")
        else:
            self.events.append(f"delete {describe(obj)}")

    def names(self, prefix: str = "") -> list[str]:
        return [e for e in self.events if e.startswith(prefix)]


async def eventually(predicate: Callable[[], bool], timeout: float = 1.0) -> None:
    """Yield to the loop until ``predicate()`` holds (fails after ``timeout`` real seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.001)


async def settle(rounds: int = 50) -> None:
    """Let every runnable task run for a while (for asserting that something did NOT happen)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


@contextlib.asynccontextmanager
async def background(coro: Coroutine[Any, Any, None]) -> AsyncIterator[asyncio.Task[None]]:
    """Run ``coro`` as a task for the body of the ``async with``; cancel it afterwards."""
    task = asyncio.create_task(coro)
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

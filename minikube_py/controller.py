"""The controller worker runner: the engine every controller shares (ARCHITECTURE §3).

A controller is policy only: event handlers compute keys and add them to a
``RateLimitingQueue``, and ``sync(key)`` makes the world match the desired state for one key.
``run_workers`` is the loop around it (client-go ``processNextWorkItem``):

    key = get() -> await sync(key) -> forget(key) on success, add_rate_limited(key) on error -> done(key)

A failing sync is never fatal: it is logged (one line) and retried with per-item exponential
backoff. The queue guarantees no key is synced by two workers at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from minikube_py.clock import Clock, RealClock
from minikube_py.metrics import REGISTRY, Registry
from minikube_py.workqueue import RateLimitingQueue

SyncFunc = Callable[[str], Awaitable[None]]

CACHE_SYNC_POLL = 0.1  # seconds between informer has_synced checks (upstream polls every 100 ms)
SHUTDOWN_GRACE = 2.0  # seconds (event loop time) workers get to finish their current key


def register_queue_metrics(name: str, queue: RateLimitingQueue[str], registry: Registry = REGISTRY) -> None:
    """Upstream's workqueue metrics for ``queue``, labelled ``name``: depth, adds, retries."""
    registry.gauge("workqueue_depth", "Current depth of workqueue").set_func(lambda: len(queue), name=name)
    adds = registry.counter("workqueue_adds_total", "Total number of adds handled by workqueue")
    adds.set_func(lambda: queue.adds, name=name)
    registry.counter("workqueue_retries_total", "Total number of retries handled by workqueue").inc(
        0, name=name
    )


class Controller(Protocol):
    """What the controller manager runs: ``run`` until cancelled, with ``workers`` workers."""

    name: str

    async def run(self, workers: int) -> None: ...


async def run_workers(
    name: str,
    queue: RateLimitingQueue[str],
    sync: SyncFunc,
    workers: int,
    synced: Sequence[Callable[[], bool]] = (),
    clock: Clock | None = None,
) -> None:
    """Wait for ``synced`` caches, then run the queue's delay loop and ``workers`` workers
    until cancelled. On cancellation the queue is shut down and each worker finishes the key
    it holds (for at most ``SHUTDOWN_GRACE`` seconds) before the cancellation propagates."""
    register_queue_metrics(name, queue)
    try:
        await wait_for_cache_sync(name, synced, clock or RealClock())
        async with asyncio.TaskGroup() as tg:
            tg.create_task(queue.run())
            tasks = [tg.create_task(_process_items(name, queue, sync)) for _ in range(workers)]
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                queue.shut_down()
                if tasks:
                    await asyncio.wait(tasks, timeout=SHUTDOWN_GRACE)
                raise
    finally:
        queue.shut_down()


async def wait_for_cache_sync(name: str, synced: Sequence[Callable[[], bool]], clock: Clock) -> None:
    """Return once every ``synced`` check is true, polling on ``clock``."""
    if all(check() for check in synced):
        return
    log = logging.getLogger(name)
    log.info("waiting for caches to sync")
    while not all(check() for check in synced):
        await clock.sleep(CACHE_SYNC_POLL)
    log.info("caches are synced")


async def _process_items(name: str, queue: RateLimitingQueue[str], sync: SyncFunc) -> None:
    """One worker: sync keys until the queue shuts down."""
    log = logging.getLogger(name)
    retries = REGISTRY.counter("workqueue_retries_total", "Total number of retries handled by workqueue")
    while not queue.shutting_down():
        key = await queue.get()
        if key is None:
            return
        try:
            await sync(key)
        except Exception as exc:
            log.error("error syncing %r: %s; requeued", key, exc)
            retries.inc(name=name)
            queue.add_rate_limited(key)
        else:
            queue.forget(key)
        finally:
            queue.done(key)

"""SharedInformerFactory: one ``SharedInformer`` per (resource, namespace, selectors), shared
by every controller of a process (client-go's ``informers.SharedInformerFactory``).

Controllers ask for informers in their constructors (``factory.informer(PODS)``) and register
handlers; the process then calls ``start(tasks)`` once all controllers exist, and each
controller waits for the caches it reads (``wait_for_cache_sync``). Asking again with the same
arguments returns the same informer, so one list+watch serves every controller.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from minikube_py.api.scheme import ResourceType
from minikube_py.api.unstructured import Object
from minikube_py.cache.informer import SharedInformer, wait_for_cache_sync
from minikube_py.client.interfaces import Client, ListerWatcher, WatchEvent
from minikube_py.clock import Clock, RealClock

_InformerKey = tuple[ResourceType, str | None, str, str]


class FilteredListerWatcher:
    """A ``ListerWatcher`` with its label and field selectors bound (the informer's reflector
    passes none of its own)."""

    def __init__(self, inner: ListerWatcher, *, label_selector: str = "", field_selector: str = "") -> None:
        self._inner = inner
        self.label_selector = label_selector
        self.field_selector = field_selector

    async def list(
        self,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str | None = None,
        limit: int = 0,
        continue_: str = "",
    ) -> Object:
        return await self._inner.list(
            label_selector=label_selector or self.label_selector,
            field_selector=field_selector or self.field_selector,
            resource_version=resource_version,
            limit=limit,
            continue_=continue_,
        )

    def watch(
        self,
        *,
        resource_version: str = "",
        label_selector: str = "",
        field_selector: str = "",
        allow_bookmarks: bool = True,
        timeout_seconds: int | None = None,
    ) -> AsyncIterator[WatchEvent]:
        return self._inner.watch(
            resource_version=resource_version,
            label_selector=label_selector or self.label_selector,
            field_selector=field_selector or self.field_selector,
            allow_bookmarks=allow_bookmarks,
            timeout_seconds=timeout_seconds,
        )


class SharedInformerFactory:
    """Hands out shared informers over ``client``; all use ``clock`` and ``resync_period``."""

    def __init__(self, client: Client, *, clock: Clock | None = None, resync_period: float = 0.0) -> None:
        self._client = client
        self._clock: Clock = clock or RealClock()
        self._resync_period = resync_period
        self._informers: dict[_InformerKey, SharedInformer] = {}
        self._started: set[_InformerKey] = set()

    def informer(
        self,
        resource_type: ResourceType,
        namespace: str | None = None,
        *,
        field_selector: str = "",
        label_selector: str = "",
    ) -> SharedInformer:
        """The informer for these arguments, created on first request (not started)."""
        key: _InformerKey = (resource_type, namespace, field_selector, label_selector)
        informer = self._informers.get(key)
        if informer is None:
            lister_watcher = FilteredListerWatcher(
                self._client.resource(resource_type, namespace),
                label_selector=label_selector,
                field_selector=field_selector,
            )
            informer = SharedInformer(
                lister_watcher, resource_type, clock=self._clock, resync_period=self._resync_period
            )
            self._informers[key] = informer
        return informer

    def start(self, tasks: asyncio.TaskGroup) -> None:
        """Run every informer requested so far and not yet started, as tasks of ``tasks``."""
        for key, informer in self._informers.items():
            if key in self._started or informer.is_started():
                continue
            self._started.add(key)
            tasks.create_task(informer.run(), name=f"informer-{informer.name}")

    async def wait_for_cache_sync(self) -> None:
        """Return once every started informer has synced."""
        started = [self._informers[key].has_synced for key in self._started]
        await wait_for_cache_sync(*started, clock=self._clock)

"""``SourceWatches``: the ConfigMaps and Secrets the node's pods mount, each watched on its own
(upstream's watch-based configMap and secret managers, ``configMapAndSecretChangeDetectionStrategy:
Watch``).

A pod's references (configMap and secret volumes, and those sources of projected volumes) are
registered when its volumes are set up (``track``) and dropped when its volumes are removed
(``forget``). An object is watched while some pod references it: a list and watch with
``fieldSelector=metadata.name=<name>`` in its namespace, because the node authorizer lets a
node read exactly the objects its pods reference, one by one. Volumes read the watched copies
(``get``, which waits for the first list), so refreshing volumes costs no API calls.

A change of a watched object (created, updated, deleted) wakes each pod that uses it (the
``notify`` callback, the pod workers' ``wake``) ``refresh_delay`` seconds later; changes within
that delay coalesce into one wake-up, and the pod's next sync rewrites its files. Upstream's
kubelet only notices at its next periodic pod sync (``syncFrequency``, 1 min, plus jitter), so
files lag a change by up to about a minute there; here by ``refresh_delay`` (default
``DEFAULT_REFRESH_DELAY``) plus one sync.

An object seen with ``immutable: true`` is no longer watched (upstream: immutable objects need no
watching): its copy is kept and served as long as pods reference it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from minikube_py.api.unstructured import Object
from minikube_py.cache.factory import FilteredListerWatcher
from minikube_py.cache.informer import SharedInformer
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client.interfaces import Client
from minikube_py.client.resourcetypes import CONFIGMAPS, SECRETS
from minikube_py.clock import Clock, RealClock

log = logging.getLogger("nodeagent.volumes")
DEFAULT_REFRESH_DELAY = 1.0  # seconds from a source's change to the wake-up of its pods
SYNC_TIMEOUT = 5.0  # how long ``get`` waits for a new watch's first list before asking directly
RESOURCE_TYPES = {"configmaps": CONFIGMAPS, "secrets": SECRETS}
SourceKey = tuple[str, str, str]  # (resource, namespace, name)


def volume_sources(pod: Mapping[str, Any]) -> Iterator[SourceKey]:
    """The ConfigMaps and Secrets the pod's volumes show (env vars are read once at start)."""
    namespace = str(pod["metadata"].get("namespace") or "default")
    for volume in (pod.get("spec") or {}).get("volumes") or []:
        sources = [volume]
        if "projected" in volume:
            sources = list((volume["projected"] or {}).get("sources") or [])
        for source in sources:
            if config_map := source.get("configMap"):
                yield "configmaps", namespace, str(config_map.get("name") or "")
            if secret := source.get("secret"):
                yield "secrets", namespace, str(secret.get("secretName", secret.get("name")) or "")


class NotWatchedError(Exception):
    """The object is not watched (no pod tracks it, or the watches are not running)."""


@dataclass
class _Watch:
    informer: SharedInformer
    pods: set[str] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    frozen: Object | None = None  # the immutable object, once seen (the watch then stops)


class _Changes:
    """The informer's handler: a change after the first list wakes the object's pods."""

    def __init__(self, watches: SourceWatches, key: SourceKey) -> None:
        self._watches, self._key = watches, key

    def on_add(self, obj: Object, is_in_initial_list: bool) -> None:
        self._watches._seen(self._key, obj, changed=not is_in_initial_list)

    def on_update(self, old: Object, new: Object) -> None:
        self._watches._seen(self._key, new, changed=old.get("metadata") != new.get("metadata"))

    def on_delete(self, obj: Object | DeletedFinalStateUnknown) -> None:
        self._watches._changed(self._key)


class SourceWatches:
    """Per-object watches of the sources of the node's pods' volumes (see the module doc)."""

    def __init__(
        self, client: Client, *, clock: Clock | None = None, refresh_delay: float = DEFAULT_REFRESH_DELAY
    ) -> None:
        self._client = client
        self._clock: Clock = clock or RealClock()
        self.refresh_delay = refresh_delay
        self.notify: Callable[[str], None] = lambda uid: None  # wakes a pod (set by its owner)
        self._watches: dict[SourceKey, _Watch] = {}
        self._by_pod: dict[str, set[SourceKey]] = {}
        self._pending: set[str] = set()  # pods with a wake-up scheduled
        self._tasks: asyncio.TaskGroup | None = None

    async def run(self) -> None:
        """Own the watches' tasks until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            self._tasks = tasks
            for watch in self._watches.values():
                self._start(watch)
            try:
                await asyncio.Event().wait()
            finally:
                self._tasks = None

    def track(self, pod: Mapping[str, Any]) -> None:
        """Watch the sources of ``pod``'s volumes (and stop watching those it no longer has)."""
        uid = str(pod["metadata"]["uid"])
        wanted = {key for key in volume_sources(pod) if key[2]}
        for key in self._by_pod.get(uid, set()) - wanted:
            self._release(uid, key)
        for key in wanted:
            watch = self._watches.get(key)
            if watch is None:
                watch = self._watches[key] = _Watch(self._informer(key))
                self._start(watch)
            watch.pods.add(uid)
        self._by_pod[uid] = wanted

    def forget(self, uid: str) -> None:
        """The pod is gone: drop its references (a watch nobody needs stops)."""
        for key in self._by_pod.pop(uid, set()):
            self._release(uid, key)
        self._pending.discard(uid)

    def watched(self) -> set[SourceKey]:
        """The objects being watched now (immutable ones are kept but not watched)."""
        return {key for key, watch in self._watches.items() if watch.frozen is None}

    def pending(self) -> set[str]:
        """The pods with a wake-up scheduled (a source changed less than the delay ago)."""
        return set(self._pending)

    async def get(self, resource: str, namespace: str, name: str) -> Object | None:
        """The watched copy of the object, None when it does not exist; raises
        ``NotWatchedError`` when it is not watched (not tracked, or the watches are not running), and
        ``TimeoutError`` when its first list did not complete within ``SYNC_TIMEOUT``."""
        watch = self._watches.get((resource, namespace, name))
        if watch is None or (watch.frozen is None and watch.task is None):
            raise NotWatchedError(f"{resource} {namespace}/{name} is not watched")
        if watch.frozen is not None:
            return watch.frozen
        async with asyncio.timeout(SYNC_TIMEOUT):
            await watch.informer.wait_synced()
        return watch.informer.indexer.get_by_key(f"{namespace}/{name}")

    # -- internals --------------------------------------------------------------------------

    def _informer(self, key: SourceKey) -> SharedInformer:
        resource, namespace, name = key
        rt = RESOURCE_TYPES[resource]
        lister = FilteredListerWatcher(
            self._client.resource(rt, namespace), field_selector=f"metadata.name={name}"
        )
        informer = SharedInformer(lister, rt, clock=self._clock)
        informer.add_event_handler(_Changes(self, key))
        return informer

    def _start(self, watch: _Watch) -> None:
        if self._tasks is not None and watch.task is None and watch.frozen is None:
            watch.task = self._tasks.create_task(watch.informer.run(), name="source-watch")

    def _release(self, uid: str, key: SourceKey) -> None:
        watch = self._watches.get(key)
        if watch is None:
            return
        watch.pods.discard(uid)
        if not watch.pods:
            del self._watches[key]
            if watch.task is not None:
                watch.task.cancel()

    def _seen(self, key: SourceKey, obj: Object, *, changed: bool) -> None:
        watch = self._watches.get(key)
        if watch is None:
            return
        if obj.get("immutable") is True and watch.frozen is None:
            watch.frozen = obj
            if watch.task is not None:
                watch.task.cancel()
                watch.task = None
        if changed:
            self._changed(key)

    def _changed(self, key: SourceKey) -> None:
        watch = self._watches.get(key)
        for uid in sorted(watch.pods if watch is not None else ()):
            if uid in self._pending:
                continue
            if self.refresh_delay <= 0 or self._tasks is None:
                self.notify(uid)
            else:
                self._pending.add(uid)
                self._tasks.create_task(self._wake_later(uid), name=f"source-wake-{uid}")

    async def _wake_later(self, uid: str) -> None:
        await self._clock.sleep(self.refresh_delay)
        if uid in self._pending:
            self._pending.discard(uid)
            log.debug("a source of pod %s changed: refreshing its volumes", uid)
            self.notify(uid)

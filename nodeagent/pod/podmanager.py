"""The pods of one node: informer updates -> pod workers -> sync -> status (upstream ``syncLoop``).

``PodManager`` ties the pieces together for one node:

- pods bound to the node (an informer with ``spec.nodeName=<node>``) go to their worker
  (``handlers()``); a pod leaving the API is terminated;
- the PLEG relists the runtime every second and wakes the worker of each pod that changed;
- a worker's sync reads the pod's runtime status (never older than its previous sync), runs
  ``PodSyncer.sync_pod``, reads the status again and writes the API status if it changed;
- terminating stops every container within the grace period; when a deleted pod is fully
  stopped its final status is written, it is deleted with grace 0, and its sandbox, volumes
  and logs are removed. A pod that finished on its own keeps its logs until it is deleted.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from nodeagent.pod.pleg import PLEG
from nodeagent.pod.runtimestatus import PodRuntimeStatus
from nodeagent.pod.status import generate_pod_status
from nodeagent.pod.statusmanager import StatusManager
from nodeagent.pod.sync import PodEnvironment, PodSyncer, SyncResult, _grace
from nodeagent.pod.workers import PodWorkers
from nodeagent.runtime.interface import ContainerRuntime

Object = dict[str, Any]
log = logging.getLogger("nodeagent.pods")


class PodManager:
    def __init__(
        self,
        client: Client,
        node_name: str,
        runtime: ContainerRuntime,
        environment: PodEnvironment,
        recorder: Recorder,
        clock: Clock,
        *,
        host_ip: str = "127.0.0.1",
    ) -> None:
        self.node_name = node_name
        self.runtime = runtime
        self.environment = environment
        self.clock = clock
        self.host_ip = host_ip
        self.status_manager = StatusManager(client)
        self.syncer = PodSyncer(runtime, environment, recorder, clock)
        self.workers = PodWorkers(self._sync, self._terminate, self._finished, clock)
        self.pleg = PLEG(runtime, clock, self.workers.wake)
        self._synced_at: dict[str, float] = {}
        self._results: dict[str, SyncResult] = {}
        self._removed: set[str] = set()  # pods gone from the API

    def handlers(self) -> EventHandlerFuncs:
        return EventHandlerFuncs(
            add=self._updated, update=lambda _old, new: self._updated(new), delete=self._deleted
        )

    async def run(self) -> None:
        """Run the workers and the PLEG until cancelled (the informer is the caller's)."""
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self.workers.run())
            tasks.create_task(self.pleg.run())

    def _updated(self, pod: Object) -> None:
        if (pod.get("spec") or {}).get("nodeName") == self.node_name:
            self.workers.update_pod(pod)

    def _deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        self._removed.add(pod["metadata"]["uid"])
        self.workers.removed(pod["metadata"]["uid"])

    async def _status(self, uid: str) -> PodRuntimeStatus:
        return await self.pleg.status(uid, self._synced_at.get(uid, float("-inf")))

    async def _sync(self, pod: Object) -> float | None:
        uid = pod["metadata"]["uid"]
        result = await self.syncer.sync_pod(pod, await self._status(uid))
        self._synced_at[uid] = self.clock.monotonic()
        self._results[uid] = result
        await self._write_status(pod, await self._status(uid), result)
        return result.requeue_after

    async def _write_status(self, pod: Object, runtime: PodRuntimeStatus, result: SyncResult | None) -> None:
        status = generate_pod_status(
            pod,
            runtime,
            runtime_name=self.runtime.name,
            host_ip=self.host_ip,
            now=self.clock.now(),
            waiting=result.waiting if result is not None else None,
        )
        await self.status_manager.set_pod_status(pod, status)

    async def _terminate(self, pod: Object) -> None:
        uid = pod["metadata"]["uid"]
        status = await self._status(uid)
        await self.syncer.kill_pod(pod, status, grace=_grace(pod))
        self._synced_at[uid] = self.clock.monotonic()

    async def _finished(self, pod: Object) -> None:
        meta = pod["metadata"]
        uid = meta["uid"]
        runtime = await self._status(uid)
        removed = uid in self._removed
        if not removed:
            await self._write_status(pod, runtime, None)  # Succeeded/Failed, or the final one
            if not meta.get("deletionTimestamp"):
                return  # finished on its own: kept (with its logs) until deleted
            await self.status_manager.delete_pod(pod)
        self._removed.discard(uid)
        for sandbox in runtime.sandboxes:
            await self.runtime.remove_pod_sandbox(sandbox.id)
        await self.environment.cleanup_pod(pod)
        self.syncer.backoff.forget(f"{uid}/")
        self.status_manager.forget(uid)
        self._synced_at.pop(uid, None)
        self._results.pop(uid, None)
        self.workers.forget(uid)

"""The pods of one node: informer updates -> pod workers -> sync -> status (upstream ``syncLoop``).

``PodManager`` ties the pieces together for one node:

- pods bound to the node (an informer with ``spec.nodeName=<node>``) go to their worker
  (``handlers()``); a pod leaving the API is terminated;
- the PLEG relists the runtime every second and wakes the worker of each pod that changed;
- a worker's sync reads the pod's runtime status (never older than its previous sync), runs
  ``PodSyncer.sync_pod`` (restarting containers whose liveness or startup probe failed),
  reads the status again, updates the probe workers and writes the API status (readiness
  from the probes) if it changed;
- terminating stops every container within the grace period; when a deleted pod is fully
  stopped its final status is written, it is deleted with grace 0, and its sandbox, volumes
  and logs are removed. A pod that finished on its own keeps its logs until it is deleted.
"""

from __future__ import annotations

import asyncio
import logging

from minikube_py.api.unstructured import Object
from minikube_py.cache.informer import EventHandlerFuncs
from minikube_py.cache.store import DeletedFinalStateUnknown
from minikube_py.client.interfaces import Client
from minikube_py.clock import Clock
from minikube_py.events import Recorder
from nodeagent.pod.dnsconfig import DNSConfigurer
from nodeagent.pod.evicted import EvictedPods
from nodeagent.pod.mirror import is_mirror_pod
from nodeagent.pod.pleg import PLEG
from nodeagent.pod.prober import ProbeManager
from nodeagent.pod.runtimestatus import PodRuntimeStatus
from nodeagent.pod.status import generate_pod_status
from nodeagent.pod.statusmanager import StatusManager
from nodeagent.pod.sync import PodEnvironment, PodSyncer, SyncResult, _grace
from nodeagent.pod.workers import PodWorkers, WorkerState, is_terminal
from nodeagent.runtime.interface import ContainerRuntime

log = logging.getLogger("nodeagent.pods")


def status_only_change(old: Object, new: Object) -> bool:
    """True when ``new`` differs from ``old`` only in its status and bookkeeping metadata."""
    volatile = ("resourceVersion", "managedFields", "generation")
    old_meta = {k: v for k, v in (old.get("metadata") or {}).items() if k not in volatile}
    new_meta = {k: v for k, v in (new.get("metadata") or {}).items() if k not in volatile}
    return old_meta == new_meta and old.get("spec") == new.get("spec")


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
        dns: DNSConfigurer | None = None,
    ) -> None:
        self.node_name = node_name
        self.runtime = runtime
        self.environment = environment
        self.clock = clock
        self.host_ip = host_ip
        self.status_manager = StatusManager(client)
        self.syncer = PodSyncer(runtime, environment, recorder, clock, dns=dns)
        self.workers = PodWorkers(self._sync, self._terminate, self._finished, clock)
        self.pleg = PLEG(runtime, clock, self.workers.wake)
        self.prober = ProbeManager(runtime, recorder, clock, self.workers.wake)
        self._synced_at: dict[str, float] = {}
        self._results: dict[str, SyncResult] = {}
        self._removed: set[str] = set()  # pods gone from the API
        self.evicted = EvictedPods(clock)  # the eviction manager's (see evict_pod)

    def handlers(self) -> EventHandlerFuncs:
        return EventHandlerFuncs(add=self._updated, update=self._changed, delete=self._deleted)

    async def run(self) -> None:
        """Run the workers and the PLEG until cancelled (the informer is the caller's)."""
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self.workers.run())
            tasks.create_task(self.pleg.run())
            tasks.create_task(self.prober.run())

    def update_static_pod(self, pod: Object) -> None:
        """A pod from the node's manifests (``staticpods``): run it like the API's pods."""
        self.workers.update_pod(pod)

    def remove_static_pod(self, pod: Object) -> None:
        """A static pod whose manifest went away: terminate it."""
        self._deleted(pod)

    # -- for the eviction manager and the container GC (nodeagent.housekeeping) --

    def active_pods(self) -> list[Object]:
        """The pods running here that could be evicted (not terminating, not finished)."""
        return [
            p for uid, p in self.workers.known().items()
            if self.workers.state(uid) is WorkerState.SYNCING and not is_terminal(p)
            and not p["metadata"].get("deletionTimestamp")
        ]  # fmt: skip

    async def evict_pod(self, pod: Object, message: str) -> None:
        """Fail ``pod`` with reason Evicted and stop it (its worker does, see ``EvictedPods``)."""
        self.workers.update_pod(self.evicted.add(pod, message))

    def pod_exists(self, uid: str) -> bool:
        """Whether the node still has the pod (running, terminating, or finished and kept)."""
        return self.workers.state(uid) is not None

    def _updated(self, pod: Object, *, wake: bool = True) -> None:
        if (pod.get("spec") or {}).get("nodeName") == self.node_name and not is_mirror_pod(pod):
            self.workers.update_pod(self.evicted.apply(pod), wake=wake)

    def _changed(self, old: Object, new: Object) -> None:
        """As upstream's pod config: a change of the status alone (mostly this agent's own
        writes coming back) is kept but does not sync the pod again."""
        finished = is_terminal(new) and not is_terminal(old)  # time to terminate it
        self._updated(new, wake=finished or not status_only_change(old, new))

    def _deleted(self, obj: Object | DeletedFinalStateUnknown) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if is_mirror_pod(pod):
            return  # never run: its static pod is
        self._removed.add(pod["metadata"]["uid"])
        self.workers.removed(pod["metadata"]["uid"])

    async def _status(self, uid: str) -> PodRuntimeStatus:
        return await self.pleg.status(uid, self._synced_at.get(uid, float("-inf")))

    async def _sync(self, pod: Object) -> float | None:
        uid = pod["metadata"]["uid"]
        result = await self.syncer.sync_pod(pod, await self._status(uid), self.prober.failed(uid))
        self._synced_at[uid] = self.clock.monotonic()
        self._results[uid] = result
        runtime = await self._status(uid)
        self.prober.update(pod, runtime)
        await self._write_status(pod, runtime, result)
        return result.requeue_after

    async def _write_status(self, pod: Object, runtime: PodRuntimeStatus, result: SyncResult | None) -> None:
        ready, started = self.prober.results(pod["metadata"]["uid"], runtime, pod)
        previous = self.status_manager.last_status(pod)
        status = generate_pod_status(
            pod if previous is None else {**pod, "status": {**(pod.get("status") or {}), **previous}},
            runtime,
            runtime_name=self.runtime.name,
            host_ip=self.host_ip,
            now=self.clock.now(),
            waiting=result.waiting if result is not None else None,
            ready=ready,
            started=started,
        )
        await self.status_manager.set_pod_status(pod, self.evicted.status(pod, status))

    async def _terminate(self, pod: Object) -> None:
        uid = pod["metadata"]["uid"]
        self.prober.forget(uid)
        status = await self._status(uid)
        await self.syncer.kill_pod(pod, status, grace=self.evicted.grace(pod, _grace(pod)))
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
        self.evicted.forget(uid)
        self._synced_at.pop(uid, None)
        self._results.pop(uid, None)
        self.workers.forget(uid)

"""The pod lifecycle event generator (upstream ``GenericPLEG``): relist the runtime, diff.

Every ``period`` (1 s) the PLEG lists the runtime's sandboxes and containers, groups them by
pod and compares each container's and sandbox's state with the previous relist; every pod with
a change is reported to ``on_change(uid)`` (the pod workers sync it). Its blind spot, as
upstream's: a container that starts and exits within one period shows up only as exited.

The relist doubles as the runtime-status cache the syncs read: ``status(uid, newer_than)``
returns the pod's status from a relist that started after ``newer_than`` (relisting at once
if the last one is older), so a sync never acts on a view from before its previous sync.
Concurrent callers share one relist.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from minikube_py.clock import Clock
from nodeagent.pod.runtimestatus import PodRuntimeStatus, group_by_pod
from nodeagent.runtime.interface import ContainerRuntime

log = logging.getLogger("nodeagent.pleg")
RELIST_PERIOD = 1.0
State = dict[str, str]  # sandbox or container id -> state


class PLEG:
    def __init__(
        self,
        runtime: ContainerRuntime,
        clock: Clock,
        on_change: Callable[[str], None],
        period: float = RELIST_PERIOD,
    ) -> None:
        self.runtime = runtime
        self.clock = clock
        self.on_change = on_change
        self.period = period
        self.relisted_at = float("-inf")  # monotonic time the last relist started
        self._pods: dict[str, PodRuntimeStatus] = {}
        self._states: dict[str, State] = {}
        self._relisting: asyncio.Future[None] | None = None

    async def run(self) -> None:
        """Relist every ``period`` until cancelled; a failed relist is logged and retried."""
        while True:
            try:
                await self.relist()
            except Exception:
                log.exception("relisting the runtime failed")
            await self.clock.sleep(self.period)

    async def status(self, uid: str, newer_than: float) -> PodRuntimeStatus:
        """The pod's runtime status from a relist started after ``newer_than`` (monotonic)."""
        if self.relisted_at <= newer_than:
            await self.relist()
        return self._pods.get(uid) or PodRuntimeStatus(uid)

    def pods(self) -> dict[str, PodRuntimeStatus]:
        """Every pod of the last relist, by uid (shared: do not mutate)."""
        return self._pods

    async def relist(self) -> None:
        """List the runtime and report changed pods; joins a relist already running."""
        if self._relisting is not None:
            await asyncio.shield(self._relisting)
            return
        self._relisting = asyncio.get_running_loop().create_future()
        try:
            started = self.clock.monotonic()
            sandboxes = await self.runtime.list_pod_sandboxes()
            containers = await self.runtime.list_containers()
            pods = group_by_pod(sandboxes, containers)
            states = {uid: _states(pod) for uid, pod in pods.items()}
            changed = [
                uid for uid in states.keys() | self._states.keys() if states.get(uid) != self._states.get(uid)
            ]
            self._pods, self._states, self.relisted_at = pods, states, started
            self._relisting.set_result(None)
        except BaseException as err:
            self._relisting.set_exception(err)
            raise
        finally:
            relisting, self._relisting = self._relisting, None
            if relisting.done() and not relisting.cancelled():
                relisting.exception()  # retrieved: a failure is raised to the caller only
        for uid in changed:
            self.on_change(uid)


def _states(pod: PodRuntimeStatus) -> State:
    states = {s.id: s.state.value for s in pod.sandboxes}
    states.update({c.id: c.state.value for c in pod.containers})
    return states

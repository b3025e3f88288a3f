"""Container garbage collection (upstream ``kuberuntime`` ``containerGC``).

Every ``period`` (1 min, upstream's ContainerGCPeriod) ``garbage_collect`` removes dead
containers with upstream's default policy (``MinAge`` 0, ``MaxPerPodContainer`` 1,
``MaxContainers`` -1, i.e. unlimited):

- of a pod the node still has, per container name: the newest container (the current one,
  whose state the pod's status shows) is never touched, and of the older dead ones the
  newest ``max_per_pod_container`` are kept (``kubectl logs --previous``); the rest go;
- of a pod that was deleted (``pod_exists(uid)`` is False): every dead container, then its
  sandboxes once nothing of it runs, and its log directory.

A removed container's log files go with it (the current file and its rotations).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from minikube_py.clock import Clock
from nodeagent.pod.runtimestatus import LABEL_CONTAINER_NAME, LABEL_POD_UID
from nodeagent.runtime.interface import ContainerRuntime, ContainerState, ContainerStatus, SandboxState

log = logging.getLogger("nodeagent.gc")
CONTAINER_GC_PERIOD = 60.0


@dataclass(frozen=True)
class GCPolicy:
    min_age: float = 0.0  # seconds a container must have been dead
    max_per_pod_container: int = 1  # dead containers kept per pod and container name (-1: all)
    max_containers: int = -1  # dead containers kept on the node (-1: no limit; not enforced)


def evictable_containers(
    containers: Sequence[ContainerStatus], pod_exists: Callable[[str], bool], policy: GCPolicy, now: float
) -> list[ContainerStatus]:
    """The containers to remove (see the module docstring)."""
    units: dict[tuple[str, str], list[ContainerStatus]] = {}
    for c in containers:
        key = (c.labels.get(LABEL_POD_UID, ""), c.labels.get(LABEL_CONTAINER_NAME, c.name))
        units.setdefault(key, []).append(c)
    doomed: list[ContainerStatus] = []
    for (uid, _name), unit in units.items():
        unit.sort(key=lambda c: (c.attempt, c.created_at), reverse=True)
        dead = [c for c in unit if _dead(c, policy, now)]
        if not pod_exists(uid):
            doomed += dead
            continue
        older = [c for c in dead if c is not unit[0]]
        keep = len(older) if policy.max_per_pod_container < 0 else policy.max_per_pod_container
        doomed += older[keep:]
    return doomed


def _dead(c: ContainerStatus, policy: GCPolicy, now: float) -> bool:
    if c.state is ContainerState.RUNNING:
        return False
    return now - (c.finished_at or c.created_at) >= policy.min_age


class ContainerGC:
    """Collects the dead containers of one node's runtime."""

    def __init__(
        self,
        runtime: ContainerRuntime,
        pod_exists: Callable[[str], bool],
        clock: Clock,
        policy: GCPolicy | None = None,
        period: float = CONTAINER_GC_PERIOD,
    ) -> None:
        self.runtime = runtime
        self.pod_exists = pod_exists
        self.clock = clock
        self.policy = policy or GCPolicy()
        self.period = period

    async def run(self) -> None:
        """Collect every ``period`` (the first time after one period) until cancelled."""
        while True:
            await self.clock.sleep(self.period)
            try:
                await self.garbage_collect()
            except Exception:
                log.exception("container garbage collection failed")

    async def garbage_collect(self) -> list[str]:
        """One pass; returns the ids of the containers removed."""
        containers = await self.runtime.list_containers()
        doomed = evictable_containers(containers, self.pod_exists, self.policy, self.clock.now())
        for c in doomed:
            await self.runtime.remove_container(c.id)
            remove_container_log(c.log_path)
        removed = {c.id for c in doomed}
        left = {c.labels.get(LABEL_POD_UID, "") for c in containers if c.id not in removed}
        for sandbox in await self.runtime.list_pod_sandboxes():
            gone = not self.pod_exists(sandbox.uid) and sandbox.uid not in left
            if gone and sandbox.state is SandboxState.NOTREADY:
                await self.runtime.remove_pod_sandbox(sandbox.id)
        for c in doomed:
            uid = c.labels.get(LABEL_POD_UID, "")
            if uid and not self.pod_exists(uid) and uid not in left:
                remove_pod_logs(c.log_path, uid)
        if doomed:
            log.info("container GC removed %d dead containers", len(doomed))
        return sorted(removed)


def remove_container_log(path: str) -> None:
    """A container's log file and its rotations (``N.log``, ``N.log.<timestamp>``)."""
    if not path:
        return
    directory, base = os.path.split(path)
    try:
        entries = [e.path for e in os.scandir(directory) if e.name == base or e.name.startswith(base + ".")]
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            os.unlink(entry)


def remove_pod_logs(container_log: str, uid: str) -> None:
    """The log directory ``<ns>_<pod>_<uid>`` holding ``container_log`` (a deleted pod's)."""
    pod_dir = os.path.dirname(os.path.dirname(container_log))
    if container_log and os.path.basename(pod_dir).endswith("_" + uid):
        shutil.rmtree(pod_dir, ignore_errors=True)

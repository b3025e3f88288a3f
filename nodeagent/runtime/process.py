"""The ``process`` runtime: every container is a real OS process.

Each container's first process is the container init (``namespaces.py``): it runs in its own
process group (a new session), builds the container's filesystem view when it has mounts (a
mount namespace per container, in a user namespace when not root; nothing is created on host
paths), sets ``RLIMIT_AS`` to the memory limit, changes to the working directory and execs the
argv with exactly ``ContainerConfig.env``. stdout/stderr are read by asyncio tasks and written
to ``log_path`` in the CRI format (rotated) and to attached sessions (``containerio``): a
container created with ``stdin`` keeps a stdin pipe, one with ``tty`` runs on a pseudo-terminal.
Commands run inside containers through ``nsexec``. When the first process exits, the rest of its
process group is killed (as a PID namespace would) and the container is EXITED.

Memory limits: cgroup v2 is not used (this runtime only sets ``RLIMIT_AS``), so the kernel
does not kill on the limit; allocations fail instead. A container with a memory limit that
exits non-zero is reported ``OOMKilled`` when its last stderr output mentions an allocation
failure (``MemoryError``, ``Cannot allocate memory``, ``out of memory``, ``bad_alloc``) or it was
SIGKILLed while nobody was stopping it (the kernel OOM killer). CPU limits are not enforced.

Pod IPs come from ``PodIPAllocator`` (127.1.0.0/16): loopback, so processes bind them as is.

This module is the CRI-shaped bookkeeping (sandboxes, containers, exec, stats); one container's
process mechanics (init spec, spawn, watch, exit reason, stop) are ``ProcessContainer`` in
``processcontainer``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Coroutine, Sequence
from typing import Any

from nodeagent import logs
from nodeagent.runtime import procfs
from nodeagent.runtime.interface import (
    ContainerConfig,
    ContainerState,
    ContainerStats,
    ContainerStatus,
    ExecProcess,
    ExecResult,
    NotFoundError,
    PodSandboxConfig,
    PodSandboxStatus,
    RuntimeError_,
    StartContainerError,
)
from nodeagent.runtime.nsexec import ExecTarget, exec_stream, exec_sync
from nodeagent.runtime.podip import DEFAULT_POD_CIDR
from nodeagent.runtime.processcontainer import ProcessContainer, validate_config
from nodeagent.runtime.sandboxes import Sandboxes

__all__ = ["VERSION", "ProcessRuntime", "validate_config"]

VERSION = "0.1.0"


class ProcessRuntime:
    """Containers as processes; ``state_dir`` holds per-container scratch (new roots)."""

    name = "process"

    def __init__(
        self,
        state_dir: str | None = None,
        pod_cidr: str = DEFAULT_POD_CIDR,
        userns: bool | None = None,
        log_max_size: int = logs.MAX_SIZE,
        log_max_files: int = logs.MAX_FILES,
    ) -> None:
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="nodeagent-process-")
        self.userns = os.geteuid() != 0 if userns is None else userns
        self._sandboxes = Sandboxes(pod_cidr)
        self._log_limits = (log_max_size, log_max_files)
        self._containers: dict[str, ProcessContainer] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def version(self) -> str:
        return f"{self.name}://{VERSION}"

    # sandboxes

    async def run_pod_sandbox(self, config: PodSandboxConfig) -> str:
        return self._sandboxes.run(config, time.time())

    async def stop_pod_sandbox(self, sandbox_id: str) -> None:
        if self._sandboxes.get(sandbox_id) is None:
            return
        await asyncio.gather(*(self.stop_container(cid, 0) for cid in self._in_sandbox(sandbox_id)))
        self._sandboxes.stopped(sandbox_id)

    async def remove_pod_sandbox(self, sandbox_id: str) -> None:
        if self._sandboxes.get(sandbox_id) is None:
            return
        await self.stop_pod_sandbox(sandbox_id)
        for cid in self._in_sandbox(sandbox_id):
            await self.remove_container(cid)
        self._sandboxes.removed(sandbox_id)

    async def list_pod_sandboxes(self) -> list[PodSandboxStatus]:
        return self._sandboxes.list()

    def _in_sandbox(self, sandbox_id: str) -> list[str]:
        return [cid for cid, c in self._containers.items() if c.status.sandbox_id == sandbox_id]

    # containers

    async def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        self._sandboxes.ready(sandbox_id)
        validate_config(config)
        cid = uuid.uuid4().hex
        status = ContainerStatus(
            cid, sandbox_id, config.name, config.attempt, config.image, ContainerState.CREATED,
            time.time(), log_path=config.log_path, labels=dict(config.labels),
        )  # fmt: skip
        self._containers[cid] = ProcessContainer(
            status, config, os.path.join(self.state_dir, "containers", cid)
        )
        return cid

    async def start_container(self, container_id: str) -> None:
        c = self._get(container_id)
        if c.status.state is not ContainerState.CREATED:
            raise StartContainerError(f"container {container_id} is {c.status.state.value}, not created")
        await c.start(self.userns)
        self._spawn(c.watch(self._log_limits))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop_container(self, container_id: str, timeout: float) -> None:
        c = self._containers.get(container_id)
        if c is None or c.process is None or c.status.state is not ContainerState.RUNNING:
            return
        await c.stop(timeout)

    async def remove_container(self, container_id: str) -> None:
        if container_id not in self._containers:
            return
        await self.stop_container(container_id, 0)
        c = self._containers.pop(container_id)
        await asyncio.to_thread(shutil.rmtree, c.dir, True)

    async def list_containers(self) -> list[ContainerStatus]:
        return [c.status for c in self._containers.values()]

    async def container_status(self, container_id: str) -> ContainerStatus:
        return self._get(container_id).status

    def _get(self, container_id: str) -> ProcessContainer:
        c = self._containers.get(container_id)
        if c is None:
            raise NotFoundError(f"container {container_id} not found")
        return c

    async def exec_sync(self, container_id: str, command: Sequence[str], timeout: float) -> ExecResult:
        return await exec_sync(self._exec_target(container_id), command, timeout)

    async def exec_stream(
        self,
        container_id: str,
        command: Sequence[str],
        *,
        stdin: bool,
        tty: bool,
        size: tuple[int, int] | None = None,
    ) -> ExecProcess:
        return await exec_stream(self._exec_target(container_id), command, stdin=stdin, tty=tty, size=size)

    async def attach(self, container_id: str, *, stdin: bool) -> ExecProcess:
        c = self._get(container_id)
        if c.io is None or c.status.state is not ContainerState.RUNNING:
            raise RuntimeError_(f"container {container_id} is not running")
        return c.io.attach(stdin)

    def _exec_target(self, container_id: str) -> ExecTarget:
        c = self._get(container_id)
        if c.process is None or c.status.state is not ContainerState.RUNNING:
            raise RuntimeError_(f"container {container_id} is not running")
        return ExecTarget(c.process.pid, c.config, self.userns)

    async def container_stats(self) -> list[ContainerStats]:
        running = {
            c.process.pid: c
            for c in self._containers.values()
            if c.process is not None and c.status.state is ContainerState.RUNNING
        }
        usage = await asyncio.to_thread(procfs.usage_by_process_group, set(running))
        now = time.time()
        return [
            ContainerStats(c.status.id, usage[pid].cpu_nanoseconds, usage[pid].rss_bytes, now)
            for pid, c in running.items()
        ]

    async def close(self) -> None:
        await asyncio.gather(*(self.stop_pod_sandbox(sid) for sid in self._sandboxes.ids()))
        await asyncio.gather(*(self.stop_container(cid, 0) for cid in list(self._containers)))
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.to_thread(shutil.rmtree, os.path.join(self.state_dir, "containers"), True)

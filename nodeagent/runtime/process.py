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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nodeagent import logs
from nodeagent.runtime import namespaces, procfs
from nodeagent.runtime.containerio import ContainerIO
from nodeagent.runtime.interface import (
    ContainerConfig,
    ContainerState,
    ContainerStats,
    ContainerStatus,
    CreateContainerError,
    ExecProcess,
    ExecResult,
    NotFoundError,
    PodSandboxConfig,
    PodSandboxStatus,
    RuntimeError_,
    SandboxState,
    StartContainerError,
)
from nodeagent.runtime.nsexec import ExecTarget, exec_stream, exec_sync
from nodeagent.runtime.podip import DEFAULT_POD_CIDR, PodIPAllocator

VERSION = "0.1.0"
OOM_MARKERS = (b"MemoryError", b"Cannot allocate memory", b"out of memory", b"bad_alloc")


@dataclass
class _Container:
    status: ContainerStatus
    config: ContainerConfig
    dir: str
    process: asyncio.subprocess.Process | None = None
    io: ContainerIO | None = None
    stopping: bool = False
    exited: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def namespaced(self) -> bool:
        return bool(self.config.mounts)


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
        self.ips = PodIPAllocator(pod_cidr)
        self._log_limits = (log_max_size, log_max_files)
        self._sandboxes: dict[str, PodSandboxStatus] = {}
        self._containers: dict[str, _Container] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def version(self) -> str:
        return f"{self.name}://{VERSION}"

    # sandboxes

    async def run_pod_sandbox(self, config: PodSandboxConfig) -> str:
        sandbox_id = uuid.uuid4().hex
        self._sandboxes[sandbox_id] = PodSandboxStatus(
            sandbox_id, config.uid, config.name, config.namespace, config.attempt,
            SandboxState.READY, self.ips.allocate(), time.time(),
        )  # fmt: skip
        return sandbox_id

    async def stop_pod_sandbox(self, sandbox_id: str) -> None:
        sandbox = self._sandboxes.get(sandbox_id)
        if sandbox is None:
            return
        ids = [cid for cid, c in self._containers.items() if c.status.sandbox_id == sandbox_id]
        await asyncio.gather(*(self.stop_container(cid, 0) for cid in ids))
        self.ips.release(sandbox.ip)
        self._sandboxes[sandbox_id] = replace(sandbox, state=SandboxState.NOTREADY, ip="")

    async def remove_pod_sandbox(self, sandbox_id: str) -> None:
        if sandbox_id not in self._sandboxes:
            return
        await self.stop_pod_sandbox(sandbox_id)
        ids = [cid for cid, c in self._containers.items() if c.status.sandbox_id == sandbox_id]
        for cid in ids:
            await self.remove_container(cid)
        del self._sandboxes[sandbox_id]

    async def list_pod_sandboxes(self) -> list[PodSandboxStatus]:
        return list(self._sandboxes.values())

    # containers

    async def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        sandbox = self._sandboxes.get(sandbox_id)
        if sandbox is None or sandbox.state is not SandboxState.READY:
            raise CreateContainerError(f"sandbox {sandbox_id} is not ready")
        validate_config(config)
        cid = uuid.uuid4().hex
        status = ContainerStatus(
            cid, sandbox_id, config.name, config.attempt, config.image, ContainerState.CREATED,
            time.time(), log_path=config.log_path, labels=dict(config.labels),
        )  # fmt: skip
        self._containers[cid] = _Container(status, config, os.path.join(self.state_dir, "containers", cid))
        return cid

    async def start_container(self, container_id: str) -> None:
        c = self._get(container_id)
        if c.status.state is not ContainerState.CREATED:
            raise StartContainerError(f"container {container_id} is {c.status.state.value}, not created")
        spec = self._init_spec(c)
        spec_r, spec_w = os.pipe()
        status_r, status_w = os.pipe()
        c.io = ContainerIO(c.config, None)
        try:
            c.process = await asyncio.create_subprocess_exec(
                sys.executable, "-I", namespaces.__file__, str(spec_r), str(status_w), **c.io.stdio(),
                pass_fds=(spec_r, status_w), start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(spec_r)
            os.close(status_w)
            c.io.started(c.process)
        message = await asyncio.to_thread(_exchange, spec_w, json.dumps(spec).encode(), status_r)
        if message:
            await c.process.wait()
            c.status = replace(
                c.status, state=ContainerState.EXITED, started_at=time.time(), finished_at=time.time(),
                exit_code=128, reason="StartError", message=message,
            )  # fmt: skip
            c.io.finish(128)
            c.exited.set()
            raise StartContainerError(message)
        c.status = replace(c.status, state=ContainerState.RUNNING, started_at=time.time())
        self._spawn(self._watch(c))

    def _init_spec(self, c: _Container) -> dict[str, object]:
        rootfs, stage = os.path.join(c.dir, "rootfs"), os.path.join(c.dir, "stage")
        if c.namespaced:
            os.makedirs(rootfs, exist_ok=True)
            os.makedirs(stage, exist_ok=True)
        return {
            "argv": list(c.config.command),
            "env": list(dict(c.config.env).items()),
            "working_dir": c.config.working_dir,
            "mounts": [
                {"host_path": m.host_path, "container_path": m.container_path, "read_only": m.read_only}
                for m in c.config.mounts
            ],
            "rootfs": rootfs,
            "stage": stage,
            "userns": self.userns,
            "memory_bytes": c.config.resources.memory_bytes,
            "tty": c.config.tty,
        }

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _watch(self, c: _Container) -> None:
        """Copy output to the log until the first process exits, then record the exit."""
        assert c.process is not None and c.io is not None
        if c.config.log_path:
            c.io.writer = logs.CRILogWriter(c.config.log_path, *self._log_limits)
        readers = await c.io.pump(c.process)
        returncode = await c.process.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(c.process.pid, signal.SIGKILL)  # the rest of the group, as a PID namespace would
        await asyncio.wait(readers, timeout=2.0)
        for reader in readers:
            reader.cancel()
        exit_code = 128 - returncode if returncode < 0 else returncode
        c.status = replace(
            c.status, state=ContainerState.EXITED, finished_at=time.time(), exit_code=exit_code,
            reason=self._exit_reason(c, returncode),
        )  # fmt: skip
        c.io.finish(exit_code)
        c.exited.set()

    @staticmethod
    def _exit_reason(c: _Container, returncode: int) -> str:
        if returncode == 0:
            return "Completed"
        if c.config.resources.memory_bytes and (
            any(c.io is not None and marker in c.io.stderr_tail for marker in OOM_MARKERS)
            or (returncode == -signal.SIGKILL and not c.stopping)
        ):
            return "OOMKilled"
        return "Error"

    async def stop_container(self, container_id: str, timeout: float) -> None:
        c = self._containers.get(container_id)
        if c is None or c.process is None or c.status.state is not ContainerState.RUNNING:
            return
        c.stopping = True
        _signal_group(c.process.pid, signal.SIGTERM if timeout > 0 else signal.SIGKILL)
        try:
            await asyncio.wait_for(c.exited.wait(), timeout=max(timeout, 0.001))
        except TimeoutError:
            _signal_group(c.process.pid, signal.SIGKILL)
            await c.exited.wait()

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

    def _get(self, container_id: str) -> _Container:
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
        await asyncio.gather(*(self.stop_pod_sandbox(sid) for sid in list(self._sandboxes)))
        await asyncio.gather(*(self.stop_container(cid, 0) for cid in list(self._containers)))
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.to_thread(shutil.rmtree, os.path.join(self.state_dir, "containers"), True)


def validate_config(config: ContainerConfig) -> None:
    """What ``create_container`` can reject before anything runs."""
    if not config.command:
        raise CreateContainerError(
            f"container {config.name}: no command (image {config.image} has no default)"
        )
    for m in config.mounts:
        if not os.path.isabs(m.container_path):
            raise CreateContainerError(f"mount path {m.container_path!r} must be absolute")
        if not os.path.exists(m.host_path):
            raise CreateContainerError(f"mount source {m.host_path!r} for {m.container_path} does not exist")


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _exchange(spec_w: int, spec: bytes, status_r: int) -> str:
    """Hand the spec to the init and read its verdict ("" once the exec succeeded)."""
    try:
        with os.fdopen(spec_w, "wb") as f:
            f.write(spec)
    except BrokenPipeError:
        pass
    with os.fdopen(status_r, "rb") as f:
        return f.read().decode(errors="replace")

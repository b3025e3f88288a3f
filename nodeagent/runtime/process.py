"""The ``process`` runtime: every container is a real OS process.

Each container's first process is the container init (``namespaces.py``): it runs in its own
process group (a new session), creates the container's namespaces (mount, UTS, IPC, PID; in a
user namespace when not root) and its root (the node's files read-only, private scratch,
volumes; nothing is created on host paths), runs the command as the container's user (PID 2,
under the container's PID 1), with ``RLIMIT_AS`` at the memory limit, in the working directory
and with exactly ``ContainerConfig.env`` (plus ``HOSTNAME``). See "Isolation" in
``nodeagent/README.md``. stdout/stderr are read by asyncio tasks and written
to ``log_path`` in the CRI format (rotated) and to attached sessions (``containerio``): a
container created with ``stdin`` keeps a stdin pipe, one with ``tty`` runs on a pseudo-terminal.
Commands run inside containers through ``nsexec``. When the command exits, the container's PID 1
exits (the kernel kills the rest of its PID namespace), the rest of its process group is
killed too (the same where the kernel refuses PID namespaces) and the container is EXITED.
A pod's UTS and IPC namespaces (and its PID namespace with ``shareProcessNamespace``) are held
by a ``Pause`` which its containers join; a container with ``target_container_id`` joins its
target's instead.

Memory limits: cgroups are not used (this runtime only sets ``RLIMIT_AS``), so the kernel
does not kill on the limit; allocations fail instead. A container with a memory limit that
exits non-zero is reported ``OOMKilled`` when its last stderr output mentions an allocation
failure (``MemoryError``, ``Cannot allocate memory``, ``out of memory``, ``bad_alloc``) or it was
SIGKILLed while nobody was stopping it (the kernel OOM killer). CPU limits are not enforced.

A container's image is applied at creation (``imagelayer``): its ENV under the container's, its
WORKDIR, and the host programs standing in for a known image's files (read-only binds).

Pod IPs come from ``PodIPAllocator`` (the node's /24): loopback, so processes bind them as is.

This module is the CRI-shaped bookkeeping (sandboxes, containers, exec, stats); one container's
process mechanics (init spec, spawn, watch, exit reason, stop) are ``ProcessContainer`` in
``processcontainer``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Coroutine, Sequence
from typing import Any

from nodeagent import logs
from nodeagent.runtime import imagelayer, namespaces, procfs
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
    PortForwardError,
    RuntimeError_,
    SandboxState,
    StartContainerError,
)
from nodeagent.runtime.nsexec import ExecTarget, exec_stream, exec_sync
from nodeagent.runtime.podip import DEFAULT_POD_CIDR
from nodeagent.runtime.portdial import dial_pod
from nodeagent.runtime.processcontainer import (
    Isolation,
    Join,
    Pause,
    ProcessContainer,
    container_user,
    pod_namespaces,
    validate_config,
)
from nodeagent.runtime.resolvconf import with_resolv_conf, write_sandbox_resolv_conf
from nodeagent.runtime.sandboxes import Sandboxes

__all__ = ["VERSION", "ProcessRuntime", "validate_config"]

VERSION = "0.1.0"

log = logging.getLogger("nodeagent")

MISSING_NAMESPACE = {
    "mnt": "containers share the node's file system read-write and volumes cannot be mounted",
    "uts": "containers see the node's hostname",
    "ipc": "containers share the node's System V IPC",
    "pid": "containers see and may signal the node's processes",
}


async def probe_namespaces(userns: bool) -> list[str]:
    """The namespace kinds the container init can create here (``namespaces.py --probe``)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-I", namespaces.__file__, "--probe", "1" if userns else "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    stdout, _ = await proc.communicate()
    try:
        kinds = json.loads(stdout)
    except ValueError:
        return []
    return [str(k) for k in kinds]


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
        hidden: Sequence[str] = (),
    ) -> None:
        """``hidden``: host directories every container sees empty (the agent passes the
        cluster's data directory: the store, keys and every pod's volumes live there)."""
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="nodeagent-process-")
        self.userns = os.geteuid() != 0 if userns is None else userns
        self._isolation: Isolation | None = None
        self._hidden = tuple(hidden)
        self._hostnames: dict[str, str] = {}  # sandbox id -> the pod's hostname
        self._pauses: dict[str, Pause] = {}  # sandbox id -> its shared namespaces
        self._sandboxes = Sandboxes(pod_cidr)
        self._log_limits = (log_max_size, log_max_files)
        self._containers: dict[str, ProcessContainer] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._warned: set[str] = set()

    async def version(self) -> str:
        return f"{self.name}://{VERSION}"

    # sandboxes

    async def run_pod_sandbox(self, config: PodSandboxConfig) -> str:
        hostname = config.hostname or config.name
        isolation = await self.isolation()
        kinds = pod_namespaces(isolation, config.share_process_namespace)
        pause = await Pause.start(isolation, hostname, kinds) if kinds else None
        try:
            sandbox_id = self._sandboxes.run(config, time.time())
        except RuntimeError_:
            if pause is not None:
                await pause.stop()
            raise
        self._hostnames[sandbox_id] = hostname
        if pause is not None:
            self._pauses[sandbox_id] = pause
        shm = self._shm(sandbox_id)
        os.makedirs(shm)
        os.chmod(shm, 0o1777)  # the pod's /dev/shm, shared by its containers
        if config.dns_config is not None:  # the containers' /etc/resolv.conf, as containerd's
            write_sandbox_resolv_conf(os.path.dirname(shm), config.dns_config)
        return sandbox_id

    def _shm(self, sandbox_id: str) -> str:
        return os.path.join(self.state_dir, "sandboxes", sandbox_id, "shm")

    async def isolation(self) -> Isolation:
        """The namespaces this kernel lets the runtime create (probed once; each refused kind
        is logged once, with what it means for the containers)."""
        if self._isolation is None:
            kinds = await probe_namespaces(self.userns)
            for kind, meaning in MISSING_NAMESPACE.items():
                if kind not in kinds:
                    log.warning("process runtime: the kernel refuses %s namespaces: %s", kind, meaning)
            self._isolation = Isolation(tuple(kinds), self.userns, self._hidden)
        return self._isolation

    async def stop_pod_sandbox(self, sandbox_id: str) -> None:
        if self._sandboxes.get(sandbox_id) is None:
            return
        await asyncio.gather(*(self.stop_container(cid, 0) for cid in self._in_sandbox(sandbox_id)))
        if (pause := self._pauses.pop(sandbox_id, None)) is not None:
            await pause.stop()
        self._sandboxes.stopped(sandbox_id)

    async def remove_pod_sandbox(self, sandbox_id: str) -> None:
        if self._sandboxes.get(sandbox_id) is None:
            return
        await self.stop_pod_sandbox(sandbox_id)
        for cid in self._in_sandbox(sandbox_id):
            await self.remove_container(cid)
        self._sandboxes.removed(sandbox_id)
        self._hostnames.pop(sandbox_id, None)
        await asyncio.to_thread(shutil.rmtree, os.path.dirname(self._shm(sandbox_id)), True)

    async def list_pod_sandboxes(self) -> list[PodSandboxStatus]:
        return self._sandboxes.list()

    def _in_sandbox(self, sandbox_id: str) -> list[str]:
        return [cid for cid, c in self._containers.items() if c.status.sandbox_id == sandbox_id]

    # containers

    async def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        self._sandboxes.ready(sandbox_id)
        validate_config(config)
        sandbox_config = self._sandboxes.config(sandbox_id)
        if sandbox_config is not None and sandbox_config.dns_config is not None:
            config = with_resolv_conf(
                config, os.path.join(os.path.dirname(self._shm(sandbox_id)), "resolv.conf")
            )
        config = await self._with_image(config)
        cid = uuid.uuid4().hex
        status = ContainerStatus(
            cid, sandbox_id, config.name, config.attempt, config.image, ContainerState.CREATED,
            time.time(), log_path=config.log_path, labels=dict(config.labels),
        )  # fmt: skip
        scratch = os.path.join(self.state_dir, "containers", cid)
        self._containers[cid] = ProcessContainer(status, config, scratch, self._hostnames.get(sandbox_id, ""))
        return cid

    async def _with_image(self, config: ContainerConfig) -> ContainerConfig:
        """The image's ENV, WORKDIR and host programs applied (``imagelayer``); what the node
        lacks for an image is logged once."""
        can_mount = "mnt" in (await self.isolation()).namespaces
        root = os.path.join(self.state_dir, "images")
        config, warning = await asyncio.to_thread(imagelayer.with_image, config, root, can_mount)
        if warning and warning not in self._warned:
            self._warned.add(warning)
            log.warning("process runtime: %s", warning)
        return config

    async def start_container(self, container_id: str) -> None:
        c = self._get(container_id)
        if c.status.state is not ContainerState.CREATED:
            raise StartContainerError(f"container {container_id} is {c.status.state.value}, not created")
        isolation = await self.isolation()
        try:
            join = self._join(c, isolation)
        except StartContainerError as err:
            c.failed_to_start(str(err))
            raise
        await c.start(isolation, join, self._shm(c.status.sandbox_id))
        self._spawn(c.watch(self._log_limits))

    def _join(self, c: ProcessContainer, isolation: Isolation) -> Join | None:
        """The namespaces ``c`` joins: its target container's PID, UTS and IPC (``kubectl
        debug --target``), else its pod's (``pod_namespaces``), else none."""
        target_id = c.config.target_container_id
        if target_id:
            target = self._containers.get(target_id)
            if target is None or target.status.state is not ContainerState.RUNNING:
                raise StartContainerError(f"target container {target_id} is not running")
            if target.status.sandbox_id != c.status.sandbox_id:
                raise StartContainerError(f"target container {target_id} is not in the same pod")
            kinds = [k for k in ("uts", "ipc", "pid") if k in isolation.namespaces]
            return Join(target.init_pid, ("user", *kinds) if isolation.userns else tuple(kinds))
        pause = self._pauses.get(c.status.sandbox_id)
        return Join(pause.init_pid, pause.kinds) if pause is not None else None

    def namespace_pid(self, container_id: str) -> int:
        """The host pid whose ``/proc/<pid>/ns/*`` are the running container's namespaces."""
        c = self._get(container_id)
        if c.status.state is not ContainerState.RUNNING:
            raise RuntimeError_(f"container {container_id} is not running")
        return c.init_pid

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
        assert self._isolation is not None
        user = container_user(c.config, self.userns)
        return ExecTarget(c.init_pid, c.config, self._isolation, user, c.hostname)

    async def port_forward(
        self, sandbox_id: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        sandbox = self._sandboxes.get(sandbox_id)
        if sandbox is None or sandbox.state is not SandboxState.READY or not sandbox.ip:
            raise PortForwardError(f"sandbox {sandbox_id} is not ready")
        return await dial_pod(sandbox.ip, port)

    async def container_stats(self) -> list[ContainerStats]:
        running = {
            c.process.pid: c
            for c in self._containers.values()
            if c.process is not None and c.status.state is ContainerState.RUNNING
        }
        inits = frozenset(pid for c in running.values() for pid in c.init_pids())
        usage = await asyncio.to_thread(procfs.usage_by_process_group, set(running), inits)
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
        await asyncio.to_thread(shutil.rmtree, os.path.join(self.state_dir, "sandboxes"), True)

"""One container of the ``process`` runtime as a real OS process: ``ProcessContainer``.

Owns the container-process mechanics that ``ProcessRuntime`` (``process.py``) drives:
checking a ``ContainerConfig`` before anything runs (``validate_config``), building the spec
for the container init (``namespaces.py``), spawning the init in a new session and handing it
the spec over a pipe, watching the first process until it exits (output to the CRI log and to
attached sessions through ``containerio``; the rest of the process group is then killed, as a
PID namespace would), the exit reason (``Completed``, ``Error``, ``OOMKilled``; see the
``process`` module for the memory-limit rules) and stopping by signalling the process group.

``container_user`` picks the user the command runs as: the ``securityContext``'s ids, else a
non-root default (``nobody``, 65534; in a user namespace the agent's own uid).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import signal
import sys
import time
from dataclasses import dataclass, field, replace

from nodeagent import images, logs
from nodeagent.runtime import namespaces
from nodeagent.runtime.containerio import ContainerIO
from nodeagent.runtime.interface import (
    ContainerConfig,
    ContainerState,
    ContainerStatus,
    CreateContainerError,
    RuntimeError_,
    StartContainerError,
)

OOM_MARKERS = (b"MemoryError", b"Cannot allocate memory", b"out of memory", b"bad_alloc")
NON_ROOT_ID = 65534  # nobody/nogroup: who a container runs as unless its securityContext says
# What every container must be able to run, whoever it runs as: the agent's Python (built-in
# images and ``sys.executable`` commands) and the built-in images' programs
RUNTIME_PATHS = tuple(
    dict.fromkeys([sys.base_prefix, sys.prefix, os.path.dirname(os.path.abspath(images.__file__))])
)


@dataclass(frozen=True)
class Isolation:
    """How the runtime isolates its containers: the namespace kinds the kernel allows
    (``mnt``, ``uts``, ``ipc``, ``pid``), whether in a user namespace (the agent is not root)."""

    namespaces: tuple[str, ...]
    userns: bool
    hidden: tuple[str, ...] = ()  # host directories containers see empty (the cluster's data)


@dataclass
class ProcessContainer:
    """A container's status, config, scratch ``dir`` and, once started, its first process."""

    status: ContainerStatus
    config: ContainerConfig
    dir: str
    hostname: str = ""
    process: asyncio.subprocess.Process | None = None
    init_pid: int = 0  # the host pid whose /proc/<pid>/ns/* are the container's namespaces
    joined: bool = False  # in another container's (or the pod's) PID namespace
    io: ContainerIO | None = None
    stopping: bool = False
    exited: asyncio.Event = field(default_factory=asyncio.Event)

    def init_spec(self, isolation: Isolation) -> dict[str, object]:
        """The spec the container init reads (creating the new root's directories)."""
        rootfs, stage = os.path.join(self.dir, "rootfs"), os.path.join(self.dir, "stage")
        if "mnt" in isolation.namespaces:
            os.makedirs(rootfs, exist_ok=True)
            os.makedirs(stage, exist_ok=True)
        env = dict(self.config.env)
        if self.hostname:  # as containerd does: the pod's own env may set it otherwise
            env = {"HOSTNAME": self.hostname, **env}
        return {
            "argv": list(self.config.command),
            "env": list(env.items()),
            "working_dir": self.config.working_dir,
            "mounts": [
                {"host_path": m.host_path, "container_path": m.container_path, "read_only": m.read_only}
                for m in self.config.mounts
            ],
            "rootfs": rootfs,
            "stage": stage,
            "namespaces": list(isolation.namespaces),
            "userns": isolation.userns,
            "hostname": self.hostname,
            "user": container_user(self.config, isolation.userns),
            "reveal": list(RUNTIME_PATHS),
            "hide": list(isolation.hidden),
            "memory_bytes": self.config.resources.memory_bytes,
            "tty": self.config.tty,
        }

    async def start(self, isolation: Isolation, join: Join | None = None, shm: str = "") -> None:
        """Spawn the init and hand it the spec: RUNNING once it exec'd, else EXITED (``StartError``).
        ``join``: namespaces the container enters rather than creates; ``shm``: the pod's
        ``/dev/shm`` (a host directory)."""
        spec = {**self.init_spec(isolation), "shm": shm}
        if join is not None:
            spec["join"] = {"pid": join.pid, "kinds": list(join.kinds)}
        self.joined = join is not None and "pid" in join.kinds
        spec_r, spec_w = os.pipe()
        status_r, status_w = os.pipe()
        self.io = ContainerIO(self.config, None)
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-I", namespaces.__file__, str(spec_r), str(status_w), **self.io.stdio(),
                pass_fds=(spec_r, status_w), start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(spec_r)
            os.close(status_w)
            self.io.started(self.process)
        message = await asyncio.to_thread(_exchange, spec_w, json.dumps(spec).encode(), status_r)
        self.init_pid = self.process.pid
        if message.startswith("pid "):  # the container's PID 1, in its own PID namespace
            first, _, message = message.partition("\n")
            self.init_pid = int(first[4:])
        if message:
            await self.process.wait()
            self.failed_to_start(message)
            raise StartContainerError(message)
        self.status = replace(self.status, state=ContainerState.RUNNING, started_at=time.time())

    def init_pids(self) -> set[int]:
        """The container init's own processes (not the container's usage): the one outside
        and, in its own PID namespace, its PID 1."""
        if self.process is None or self.init_pid == self.process.pid:
            return set()  # the init exec'd the command itself
        return {self.process.pid} if self.joined else {self.process.pid, self.init_pid}

    def failed_to_start(self, message: str) -> None:
        """EXITED with exit code 128 and reason ``StartError`` (``message`` says why)."""
        self.status = replace(
            self.status, state=ContainerState.EXITED, started_at=time.time(), finished_at=time.time(),
            exit_code=128, reason="StartError", message=message,
        )  # fmt: skip
        if self.io is not None:
            self.io.finish(128)
        self.exited.set()

    async def watch(self, log_limits: tuple[int, int]) -> None:
        """Copy output to the log until the first process exits, then record the exit."""
        assert self.process is not None and self.io is not None
        if self.config.log_path:
            self.io.writer = logs.CRILogWriter(self.config.log_path, *log_limits)
        readers = await self.io.pump(self.process)
        returncode = await self.process.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # the rest of the group, as a PID namespace would
        await asyncio.wait(readers, timeout=2.0)
        for reader in readers:
            reader.cancel()
        exit_code = 128 - returncode if returncode < 0 else returncode
        self.status = replace(
            self.status, state=ContainerState.EXITED, finished_at=time.time(), exit_code=exit_code,
            reason=self.exit_reason(returncode),
        )  # fmt: skip
        self.io.finish(exit_code)
        self.exited.set()

    def exit_reason(self, returncode: int) -> str:
        """``Completed``, ``OOMKilled`` (a memory limit and OOM output or an unasked SIGKILL), ``Error``."""
        if returncode == 0:
            return "Completed"
        if self.config.resources.memory_bytes and (
            any(self.io is not None and marker in self.io.stderr_tail for marker in OOM_MARKERS)
            or (returncode == -signal.SIGKILL and not self.stopping)
        ):
            return "OOMKilled"
        return "Error"

    async def stop(self, timeout: float) -> None:
        """SIGTERM the process group (SIGKILL if ``timeout`` is 0 or passes) and wait for the exit."""
        assert self.process is not None
        self.stopping = True
        _signal_group(self.process.pid, signal.SIGTERM if timeout > 0 else signal.SIGKILL)
        try:
            await asyncio.wait_for(self.exited.wait(), timeout=max(timeout, 0.001))
        except TimeoutError:
            _signal_group(self.process.pid, signal.SIGKILL)
            await self.exited.wait()


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


@dataclass(frozen=True)
class Join:
    """Namespaces a container enters rather than creates: ``kinds`` (``user``, ``uts``,
    ``ipc``, ``pid``) of the host's ``pid``."""

    pid: int
    kinds: tuple[str, ...]


def pod_namespaces(isolation: Isolation, share_process_namespace: bool) -> tuple[str, ...]:
    """The namespaces a pod holds for its containers (none: each container has its own).

    As upstream, UTS and IPC are the pod's, and PID with ``shareProcessNamespace``. In a user
    namespace the pod's namespaces would belong to one user namespace, mapping one uid for all
    its containers: there, only a ``shareProcessNamespace`` pod has them."""
    available = set(isolation.namespaces)
    share_pid = share_process_namespace and "pid" in available
    if isolation.userns:
        return ("user", *(k for k in ("uts", "ipc", "pid") if k in available)) if share_pid else ()
    return (*(k for k in ("uts", "ipc") if k in available), *(("pid",) if share_pid else ()))


@dataclass
class Pause:
    """A pod's own namespaces (``pod_namespaces``; upstream's "pause" container): a process
    holding them (with a PID namespace, its PID 1 only reaps); the pod's containers join them.
    ``init_pid``: the host pid whose ``/proc/<pid>/ns/*`` they are."""

    process: asyncio.subprocess.Process
    init_pid: int
    kinds: tuple[str, ...]

    @classmethod
    async def start(cls, isolation: Isolation, hostname: str, kinds: tuple[str, ...]) -> Pause:
        created = [k for k in kinds if k != "user"]
        spec = {"pause": True, "namespaces": created, "userns": "user" in kinds}
        spec_r, spec_w = os.pipe()
        status_r, status_w = os.pipe()
        devnull = asyncio.subprocess.DEVNULL
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-I", namespaces.__file__, str(spec_r), str(status_w),
                stdin=devnull, stdout=devnull, stderr=devnull, pass_fds=(spec_r, status_w),
                start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(spec_r)
            os.close(status_w)
        message = await asyncio.to_thread(
            _exchange, spec_w, json.dumps({**spec, "hostname": hostname}).encode(), status_r
        )
        if not message.startswith("pid "):
            await process.wait()
            raise RuntimeError_(f"failed to create the pod's namespaces: {message or 'no reason given'}")
        return cls(process, int(message[4:].split()[0]), kinds)

    async def stop(self) -> None:
        _signal_group(self.process.pid, signal.SIGKILL)  # PID 1 dies: so does all of the namespace
        await self.process.wait()


def container_user(config: ContainerConfig, userns: bool) -> dict[str, object]:
    """uid, gid and supplementary groups of the container's command (see the module doc).

    Without ``runAsGroup`` the gid is the uid's primary group in ``/etc/passwd`` (the host's,
    which is the container's), else 0, as containerd does for an image's user."""
    default = os.getuid() if userns else NON_ROOT_ID
    uid = default if config.run_as_user is None else config.run_as_user
    if config.run_as_group is not None:
        gid = config.run_as_group
    elif config.run_as_user is None:
        gid = os.getgid() if userns else NON_ROOT_ID
    else:
        try:
            gid = pwd.getpwuid(uid).pw_gid
        except KeyError:
            gid = 0
    return {"uid": uid, "gid": gid, "groups": sorted(set(config.supplemental_groups))}


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

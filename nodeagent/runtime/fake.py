"""The ``fake`` runtime: simulated containers (kwok-style), a first-class feature.

Nothing runs. ``start_container`` waits ``start_delay`` plus a random ``[0, start_jitter)``
seconds on the injected clock, then the container is RUNNING. State is computed lazily from
timestamps whenever it is read (no task per container), so thousands of containers cost only
their records. Logs get ``fake container <name> started`` (and ``... exited with code N``) in
the CRI format (with ``scripted_logs_only``, as ``up --fake-nodes`` runs it, only containers
with ``FAKE_LOG`` lines have a log); stats are synthetic: ``cpu_millis`` of a core since the start and
``memory_bytes`` of working set per running container.

Behaviour is scripted per container through its env (later entries win):

=========================  ===================================================================
``FAKE_EXIT_AFTER=3``      exit 3 s after starting, with ``FAKE_EXIT_CODE`` (default 0)
``FAKE_EXIT_CODE=1``       the exit code for ``FAKE_EXIT_AFTER`` (137 with reason OOMKilled if
                           ``FAKE_EXIT_REASON=OOMKilled``)
``FAKE_START_ERROR=msg``   ``start_container`` fails: StartError, exit code 128, message ``msg``
``FAKE_PROBE_FAIL=1``      every ``exec_sync`` returns exit code 1 (probes fail)
``FAKE_PROBE_FAIL_AFTER=s``  ``exec_sync`` fails from ``s`` seconds after the start on
``FAKE_EXEC_OUTPUT=text``  the stdout of ``exec_sync`` and ``exec_stream`` (default empty)
``FAKE_EXEC_EXIT_CODE=n``  the exit code of ``exec_sync`` and ``exec_stream`` (default 0)
``FAKE_EXEC_DELAY=s``      ``exec_sync`` takes ``s`` seconds (more than its timeout: timeout)
``FAKE_IGNORE_SIGTERM=1``  ``stop_container`` takes its whole timeout, then "SIGKILL" (137)
``FAKE_LOG=text``          extra lines (``\\n`` separated) written to the log at the start
``FAKE_CPU_MILLIS``, ``FAKE_MEMORY_BYTES``  this container's synthetic usage
=========================  ===================================================================

``attach`` replays the container's log lines, then waits for it to exit (input is discarded).
``port_forward`` always fails (the forward's error stream says ``simulated pods have no
network``): nothing listens, and the simulated pod IPs are never dialled.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from minikube_py.clock import Clock, RealClock
from nodeagent import logs
from nodeagent.runtime.execstream import ScriptedExec
from nodeagent.runtime.interface import (
    ContainerConfig,
    ContainerState,
    ContainerStats,
    ContainerStatus,
    CreateContainerError,
    ExecProcess,
    ExecResult,
    ExecTimeoutError,
    NotFoundError,
    PodSandboxConfig,
    PodSandboxStatus,
    PortForwardError,
    RuntimeError_,
    SandboxState,
    StartContainerError,
    check_target_container,
)
from nodeagent.runtime.podip import DEFAULT_POD_CIDR
from nodeagent.runtime.sandboxes import Sandboxes

VERSION = "0.1.0"
ATTACH_POLL = 0.05  # how often (clock seconds) an attach session looks for the container's exit


@dataclass(frozen=True)
class Script:
    """A container's scripted behaviour, parsed from its ``FAKE_*`` env."""

    exit_after: float | None = None
    exit_code: int = 0
    exit_reason: str = ""
    start_error: str = ""
    probe_fail: bool = False
    probe_fail_after: float | None = None
    exec_output: bytes = b""
    exec_exit_code: int = 0
    exec_delay: float = 0.0
    ignore_sigterm: bool = False
    log: str = ""
    cpu_millis: int | None = None
    memory_bytes: int | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Script:
        def number(key: str) -> float | None:
            return float(env[key]) if key in env else None

        def flag(key: str) -> bool:
            return env.get(key, "").lower() in ("1", "true", "yes")

        cpu, memory = number("FAKE_CPU_MILLIS"), number("FAKE_MEMORY_BYTES")
        return cls(
            exit_after=number("FAKE_EXIT_AFTER"),
            exit_code=int(env.get("FAKE_EXIT_CODE", "0")),
            exit_reason=env.get("FAKE_EXIT_REASON", ""),
            start_error=env.get("FAKE_START_ERROR", ""),
            probe_fail=flag("FAKE_PROBE_FAIL"),
            probe_fail_after=number("FAKE_PROBE_FAIL_AFTER"),
            exec_output=env.get("FAKE_EXEC_OUTPUT", "").encode(),
            exec_exit_code=int(env.get("FAKE_EXEC_EXIT_CODE", "0")),
            exec_delay=number("FAKE_EXEC_DELAY") or 0.0,
            ignore_sigterm=flag("FAKE_IGNORE_SIGTERM"),
            log=env.get("FAKE_LOG", ""),
            cpu_millis=int(cpu) if cpu is not None else None,
            memory_bytes=int(memory) if memory is not None else None,
        )


@dataclass
class _Container:
    status: ContainerStatus
    script: Script
    exit_at: float | None = None  # when a scripted exit happens (clock time)


class FakeRuntime:
    """Simulated containers on ``clock`` (a ``FakeClock`` in unit tests)."""

    name = "fake"

    def __init__(
        self,
        clock: Clock | None = None,
        start_delay: float = 0.05,
        start_jitter: float = 0.15,
        cpu_millis: int = 10,
        memory_bytes: int = 16 * 1024 * 1024,
        pod_cidr: str = DEFAULT_POD_CIDR,
        seed: int | None = None,
        scripted_logs_only: bool = False,
    ) -> None:
        """``scripted_logs_only``: write a container's log only when ``FAKE_LOG`` gives it
        lines (thousands of simulated containers then cost no files)."""
        self.clock = clock or RealClock()
        self.scripted_logs_only = scripted_logs_only
        self.start_delay, self.start_jitter = start_delay, start_jitter
        self.cpu_millis, self.memory_bytes = cpu_millis, memory_bytes
        self._sandboxes = Sandboxes(pod_cidr)
        self._random = random.Random(seed)
        self._containers: dict[str, _Container] = {}

    async def version(self) -> str:
        return f"{self.name}://{VERSION}"

    async def run_pod_sandbox(self, config: PodSandboxConfig) -> str:
        return self._sandboxes.run(config, self.clock.now())

    async def stop_pod_sandbox(self, sandbox_id: str) -> None:
        if self._sandboxes.get(sandbox_id) is None:
            return
        for cid in self._in_sandbox(sandbox_id):
            await self.stop_container(cid, 0)
        self._sandboxes.stopped(sandbox_id)

    async def remove_pod_sandbox(self, sandbox_id: str) -> None:
        if self._sandboxes.get(sandbox_id) is None:
            return
        await self.stop_pod_sandbox(sandbox_id)
        for cid in self._in_sandbox(sandbox_id):
            del self._containers[cid]
        self._sandboxes.removed(sandbox_id)

    async def list_pod_sandboxes(self) -> list[PodSandboxStatus]:
        return self._sandboxes.list()

    def sandbox_config(self, sandbox_id: str) -> PodSandboxConfig | None:
        """What the sandbox was created with (its ``dns_config``: tests assert the resolv.conf
        a process-runtime pod would get)."""
        return self._sandboxes.config(sandbox_id)

    def _in_sandbox(self, sandbox_id: str) -> list[str]:
        return [cid for cid, c in self._containers.items() if c.status.sandbox_id == sandbox_id]

    async def create_container(self, sandbox_id: str, config: ContainerConfig) -> str:
        self._sandboxes.ready(sandbox_id)
        for m in config.mounts:
            if not m.container_path.startswith("/"):
                raise CreateContainerError(f"mount path {m.container_path!r} must be absolute")
        check_target_container(config, sandbox_id, {cid: c.status for cid, c in self._containers.items()})
        try:
            script = Script.from_env(dict(config.env))
        except ValueError as err:
            raise CreateContainerError(f"container {config.name}: bad FAKE_* env: {err}") from err
        cid = uuid.uuid4().hex
        status = ContainerStatus(
            cid, sandbox_id, config.name, config.attempt, config.image, ContainerState.CREATED,
            self.clock.now(), log_path=config.log_path, labels=dict(config.labels),
        )  # fmt: skip
        self._containers[cid] = _Container(status, script)
        return cid

    async def start_container(self, container_id: str) -> None:
        c = self._get(container_id)
        if c.status.state is not ContainerState.CREATED:
            raise StartContainerError(f"container {container_id} is {c.status.state.value}, not created")
        await self.clock.sleep(self.start_delay + self._random.random() * self.start_jitter)
        now = self.clock.now()
        if c.script.start_error:
            self._exit(c, now, 128, "StartError", c.script.start_error)
            raise StartContainerError(c.script.start_error)
        c.status = replace(c.status, state=ContainerState.RUNNING, started_at=now)
        if c.script.exit_after is not None:
            c.exit_at = now + c.script.exit_after
        self._log(c, [f"fake container {c.status.name} started", *c.script.log.splitlines()])

    def _refresh(self, c: _Container) -> ContainerStatus:
        """Apply a scripted exit whose time has come."""
        if (
            c.status.state is ContainerState.RUNNING
            and c.exit_at is not None
            and self.clock.now() >= c.exit_at
        ):
            code = c.script.exit_code
            reason = c.script.exit_reason or ("Completed" if code == 0 else "Error")
            self._exit(c, c.exit_at, code, reason, "")
        return c.status

    def _exit(self, c: _Container, at: float, code: int, reason: str, message: str) -> None:
        c.status = replace(
            c.status, state=ContainerState.EXITED, started_at=c.status.started_at or at, finished_at=at,
            exit_code=code, reason=reason, message=message,
        )  # fmt: skip
        self._log(c, [f"fake container {c.status.name} exited with code {code}"])

    def _log(self, c: _Container, lines: list[str]) -> None:
        if not c.status.log_path or (self.scripted_logs_only and not c.script.log):
            return
        writer = logs.CRILogWriter(c.status.log_path, clock_ns=lambda: int(self.clock.now() * 1e9))
        for line in lines:
            writer.write("stdout", line.encode() + b"\n")
        writer.close()

    async def stop_container(self, container_id: str, timeout: float) -> None:
        c = self._containers.get(container_id)
        if c is None or self._refresh(c).state is not ContainerState.RUNNING:
            return
        if c.script.ignore_sigterm and timeout > 0:
            await self.clock.sleep(timeout)
            if self._refresh(c).state is ContainerState.RUNNING:
                self._exit(c, self.clock.now(), 137, "Error", "")
            return
        self._exit(c, self.clock.now(), 143 if timeout > 0 else 137, "Error", "")

    async def remove_container(self, container_id: str) -> None:
        if container_id in self._containers:
            await self.stop_container(container_id, 0)
            del self._containers[container_id]

    async def list_containers(self) -> list[ContainerStatus]:
        return [self._refresh(c) for c in self._containers.values()]

    async def container_status(self, container_id: str) -> ContainerStatus:
        return self._refresh(self._get(container_id))

    def _get(self, container_id: str) -> _Container:
        c = self._containers.get(container_id)
        if c is None:
            raise NotFoundError(f"container {container_id} not found")
        return c

    async def exec_sync(self, container_id: str, command: Sequence[str], timeout: float) -> ExecResult:
        c = self._get(container_id)
        if self._refresh(c).state is not ContainerState.RUNNING:
            raise RuntimeError_(f"container {container_id} is not running")
        script = c.script
        if script.exec_delay > timeout > 0:
            await self.clock.sleep(timeout)
            raise ExecTimeoutError(f"command {list(command)} timed out after {timeout}s")
        if script.exec_delay:
            await self.clock.sleep(script.exec_delay)
        running_for = self.clock.now() - c.status.started_at
        if script.probe_fail or (
            script.probe_fail_after is not None and running_for >= script.probe_fail_after
        ):
            return ExecResult(1, b"", b"fake: scripted failure\n")
        return ExecResult(script.exec_exit_code, script.exec_output, b"")

    async def exec_stream(
        self,
        container_id: str,
        command: Sequence[str],
        *,
        stdin: bool,
        tty: bool,
        size: tuple[int, int] | None = None,
    ) -> ExecProcess:
        """The scripted output and exit code, whatever the command (stdin is discarded)."""
        c = self._get(container_id)
        if self._refresh(c).state is not ContainerState.RUNNING:
            raise RuntimeError_(f"container {container_id} is not running")
        return ScriptedExec(c.script.exec_exit_code, c.script.exec_output)

    async def attach(self, container_id: str, *, stdin: bool) -> ExecProcess:
        c = self._get(container_id)
        if self._refresh(c).state is not ContainerState.RUNNING:
            raise RuntimeError_(f"container {container_id} is not running")
        output = logs.read_log(c.status.log_path) if c.status.log_path else b""
        return ScriptedExec(lambda: self._wait_exit(c), output)

    async def _wait_exit(self, c: _Container) -> int:
        while self._refresh(c).state is not ContainerState.EXITED:
            await self.clock.sleep(ATTACH_POLL)
        return c.status.exit_code

    async def port_forward(
        self, sandbox_id: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Always refused: nothing runs, and the simulated pod IPs are not this host's (dialling
        one would reach whatever the network routes it to)."""
        sandbox = self._sandboxes.get(sandbox_id)
        if sandbox is None or sandbox.state is not SandboxState.READY:
            raise PortForwardError(f"sandbox {sandbox_id} is not ready")
        raise PortForwardError(
            f"failed to connect to {sandbox.ip}:{port} inside the pod: simulated pods have no network"
        )

    async def container_stats(self) -> list[ContainerStats]:
        now = self.clock.now()
        stats = []
        for c in self._containers.values():
            if self._refresh(c).state is ContainerState.RUNNING:
                millis = c.script.cpu_millis if c.script.cpu_millis is not None else self.cpu_millis
                memory = c.script.memory_bytes if c.script.memory_bytes is not None else self.memory_bytes
                cpu_ns = int((now - c.status.started_at) * millis * 1_000_000)
                stats.append(ContainerStats(c.status.id, cpu_ns, memory, now))
        return stats

    async def close(self) -> None:
        for sandbox_id in self._sandboxes.ids():
            await self.stop_pod_sandbox(sandbox_id)
        for cid in list(self._containers):
            await self.stop_container(cid, 0)

"""The container runtime contract (CRI-shaped): what the node agent asks of a runtime.

Upstream's kubelet talks to containerd/CRI-O through the CRI ``RuntimeService``; this is the
same vocabulary, cut to what the node agent uses. Two implementations: ``process`` (each
container is a real OS process) and ``fake`` (simulated containers, kwok-style). Both pass the
conformance suite in ``tests/nodeagent/runtime``.

A pod is a **sandbox** (its IP, its mount namespace and volumes, its log directory) holding
**containers**. A container runs once: it is created, started, exits (or is stopped) and is
removed; a restart is a new container with ``attempt`` one higher. Ids are opaque strings,
unique for the runtime's lifetime.

Guarantees every implementation keeps:

- Methods are coroutines and may be called concurrently for different ids.
- ``list_*`` and ``container_status`` read current state without side effects; the PLEG
  relists through them, so they are cheap.
- ``create_container`` validates what it can before anything runs and raises
  ``CreateContainerError`` (reason ``CreateContainerError``) for bad config, e.g. a missing
  volume source; ``start_container`` raises ``StartContainerError`` (reason ``StartError``,
  the message says why: ``exec: "nosuch": executable file not found in $PATH``) when the
  process cannot start; the container is then EXITED with exit code 128 and that reason.
- A running container that exits is EXITED with its exit code (a signal N gives 128 + N) and
  reason ``Completed`` (code 0), ``Error`` (non-zero) or ``OOMKilled`` (killed for memory).
- ``stop_container(id, timeout)`` sends SIGTERM (to the container's whole process group),
  waits up to ``timeout`` seconds, then SIGKILL; it returns once the container is EXITED.
  Stopping an exited or unknown container is a no-op.
- ``stop_pod_sandbox`` stops every container of the sandbox (timeout 0) and releases its IP;
  ``remove_pod_sandbox`` removes its containers and files. Both are idempotent.
- stdout and stderr go to ``ContainerConfig.log_path`` in the CRI log format, one line per
  write line: ``<RFC3339Nano timestamp> <stdout|stderr> <F|P> <text>`` (``P`` for a partial
  line); ``read_log`` helpers live in ``nodeagent.logs``.
- ``exec_sync`` runs a command inside the running container's environment (same pod IP,
  mounts, env, working dir) and returns its exit code and output, killing it after
  ``timeout`` seconds (``ExecTimeoutError``).
- ``exec_stream`` starts a command the same way and returns at once with an ``ExecProcess``
  (its stdin, stdout and stderr streamed, ``kubectl exec``). A command that cannot start is not
  an exception: the process reports it on stderr and exits 126 (``exec failed: ...``), as
  upstream's runtimes do. With ``tty`` the command gets a terminal and stderr is merged into
  stdout. A container that is not running raises ``RuntimeError_``.
- ``attach`` (``kubectl attach``, CRI ``Attach``) returns at once with an ``ExecProcess`` on the
  running container's own streams: ``read_stdout``/``read_stderr`` give what the container
  writes from then on (never its past output, except the fake runtime, which replays its log
  lines), all on stdout when it was created with ``tty``, and end with ``b""`` once its output
  ended (it exited); ``wait`` returns the container's exit code once it exited; with ``stdin``
  ``write_stdin`` feeds the container's stdin, if it was created with ``stdin`` (or ``tty``);
  ``close_stdin`` ends this session's input, which closes the container's stdin only when it
  was created with ``stdin_once`` (a terminal gets its EOF character); ``resize`` sizes the
  container's terminal; ``kill`` only detaches (the container keeps running; a ``stdin_once``
  container's stdin is then closed). Any number of sessions may be attached at once. A
  container that is not running raises ``RuntimeError_``.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


class SandboxState(enum.Enum):
    READY = "SANDBOX_READY"
    NOTREADY = "SANDBOX_NOTREADY"


class ContainerState(enum.Enum):
    CREATED = "CONTAINER_CREATED"
    RUNNING = "CONTAINER_RUNNING"
    EXITED = "CONTAINER_EXITED"
    UNKNOWN = "CONTAINER_UNKNOWN"


@dataclass(frozen=True)
class Mount:
    """``host_path`` (a file or directory the agent prepared) appears at ``container_path``."""

    host_path: str
    container_path: str
    read_only: bool = False


@dataclass(frozen=True)
class DNSConfig:
    """CRI's ``DNSConfig``: the resolv.conf a sandbox's containers get (``nameserver`` lines,
    the ``search`` line, the ``options`` line)."""

    servers: Sequence[str] = ()
    searches: Sequence[str] = ()
    options: Sequence[str] = ()


@dataclass(frozen=True)
class PodSandboxConfig:
    uid: str
    name: str
    namespace: str
    attempt: int = 0
    hostname: str = ""
    log_directory: str = ""  # where the containers' log files go
    labels: Mapping[str, str] = field(default_factory=dict)
    share_process_namespace: bool = False  # one PID namespace for all the pod's containers
    # the sandbox's /etc/resolv.conf (CRI ``dns_config``); None: the node's own
    dns_config: DNSConfig | None = None


@dataclass(frozen=True)
class PodSandboxStatus:
    id: str
    uid: str
    name: str
    namespace: str
    attempt: int
    state: SandboxState
    ip: str  # the pod IP ("" once stopped)
    created_at: float  # time.time() seconds


@dataclass(frozen=True)
class Resources:
    """Limits in base units (0: none): millicores and bytes."""

    cpu_millis: int = 0
    memory_bytes: int = 0


@dataclass(frozen=True)
class ContainerConfig:
    name: str
    image: str
    command: Sequence[str]  # the resolved argv: command + args (the image's default if empty)
    env: Sequence[tuple[str, str]] = ()  # in order; later entries win
    working_dir: str = ""
    mounts: Sequence[Mount] = ()
    log_path: str = ""
    attempt: int = 0  # the restart count
    resources: Resources = Resources()
    labels: Mapping[str, str] = field(default_factory=dict)  # e.g. the container's hash
    stdin: bool = False  # keep the container's stdin open for ``attach`` (else /dev/null)
    stdin_once: bool = False  # close it when the first attach session that used it ends
    tty: bool = False  # run the container on a terminal (stdin, stdout and stderr)
    # securityContext (the container's over the pod's): None lets the runtime choose (the
    # process runtime: a non-root user); supplemental_groups include the pod's fsGroup
    run_as_user: int | None = None
    run_as_group: int | None = None
    supplemental_groups: Sequence[int] = ()
    # CRI NamespaceMode TARGET (``kubectl debug --target``): run in the PID namespace (and, in
    # the process runtime, the UTS and IPC namespaces) of this running container of the sandbox
    target_container_id: str = ""


@dataclass(frozen=True)
class ContainerStatus:
    id: str
    sandbox_id: str
    name: str
    attempt: int
    image: str
    state: ContainerState
    created_at: float
    started_at: float = 0.0  # 0: not started
    finished_at: float = 0.0  # 0: not finished
    exit_code: int = 0
    reason: str = ""  # Completed, Error, OOMKilled, StartError
    message: str = ""
    log_path: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ExecResult:
    exit_code: int
    stdout: bytes
    stderr: bytes


@dataclass(frozen=True)
class ContainerStats:
    """Usage of one container now: CPU used so far and memory in use."""

    container_id: str
    cpu_usage_core_nanoseconds: int
    memory_working_set_bytes: int
    timestamp: float


class ExecProcess(Protocol):
    """A command started by ``exec_stream``. Reads end with ``b""``; ``wait`` returns the exit
    code (128 + N for signal N) once the command exited."""

    async def write_stdin(self, data: bytes) -> None:
        """Feed stdin (ignored when the command was started without stdin or already exited)."""
        ...

    async def close_stdin(self) -> None: ...

    async def read_stdout(self) -> bytes: ...

    async def read_stderr(self) -> bytes:
        """Always ``b""`` with a tty."""
        ...

    async def resize(self, width: int, height: int) -> None:
        """The terminal's new size (no-op without a tty)."""
        ...

    async def wait(self) -> int: ...

    async def kill(self) -> None:
        """Kill the command (and its process group) if it still runs."""
        ...


class RuntimeError_(Exception):
    """A runtime call failed; ``reason`` is what the container status says (upstream names)."""

    reason = "RuntimeError"


class CreateContainerError(RuntimeError_):
    reason = "CreateContainerError"


class StartContainerError(RuntimeError_):
    reason = "StartError"


class ExecTimeoutError(RuntimeError_):
    reason = "ExecTimeout"


class NotFoundError(RuntimeError_):
    reason = "NotFound"


class PortForwardError(RuntimeError_):
    """A port of a sandbox could not be reached; the message is the runtime's reason."""


class ContainerRuntime(Protocol):
    """See the module docstring for the guarantees."""

    name: str  # "process" or "fake"; reported as the node's containerRuntimeVersion

    async def version(self) -> str:
        """``<name>://<version>`` as in ``status.nodeInfo.containerRuntimeVersion``."""
        ...

    async def run_pod_sandbox(self, config: PodSandboxConfig) -> str:
        """Create a ready sandbox (allocating its IP); returns its id. Raises
        ``RuntimeError_`` (e.g. the pod IP range is exhausted)."""
        ...

    async def stop_pod_sandbox(self, sandbox_id: str) -> None: ...

    async def remove_pod_sandbox(self, sandbox_id: str) -> None: ...

    async def list_pod_sandboxes(self) -> list[PodSandboxStatus]: ...

    async def create_container(self, sandbox_id: str, config: ContainerConfig) -> str: ...

    async def start_container(self, container_id: str) -> None: ...

    async def stop_container(self, container_id: str, timeout: float) -> None: ...

    async def remove_container(self, container_id: str) -> None: ...

    async def list_containers(self) -> list[ContainerStatus]: ...

    async def container_status(self, container_id: str) -> ContainerStatus:
        """Raises ``NotFoundError`` for an unknown (or removed) id."""
        ...

    async def exec_sync(self, container_id: str, command: Sequence[str], timeout: float) -> ExecResult: ...

    async def exec_stream(
        self,
        container_id: str,
        command: Sequence[str],
        *,
        stdin: bool,
        tty: bool,
        size: tuple[int, int] | None = None,
    ) -> ExecProcess:
        """Start ``command`` in the running container; see the module docstring. ``size`` is the
        terminal's (width, height) to start with."""
        ...

    async def attach(self, container_id: str, *, stdin: bool) -> ExecProcess:
        """Attach to the running container's streams (its terminal if created with ``tty``);
        ``stdin``: forward input. See the module docstring; ``kill`` detaches."""
        ...

    async def port_forward(
        self, sandbox_id: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to ``port`` in the ready sandbox; raises ``PortForwardError``."""
        ...

    async def container_stats(self) -> list[ContainerStats]:
        """Usage of every running container (process: /proc; fake: synthetic)."""
        ...

    async def close(self) -> None:
        """Stop every container and release everything (the agent is shutting down)."""
        ...


def check_target_container(
    config: ContainerConfig, sandbox_id: str, containers: Mapping[str, ContainerStatus]
) -> None:
    """``CreateContainerError`` unless ``config.target_container_id`` (if set) is a running
    container of the same sandbox (``containers``: the runtime's, by id)."""
    if not config.target_container_id:
        return
    target = containers.get(config.target_container_id)
    if target is None or target.sandbox_id != sandbox_id or target.state is not ContainerState.RUNNING:
        raise CreateContainerError(f"target container {config.target_container_id} is not running")

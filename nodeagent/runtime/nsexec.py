"""Commands run inside a running ``process``-runtime container (``exec_sync``, ``exec_stream``):
through ``nsenter`` into the container's namespaces (its user namespace first when the
runtime uses one, then mount, UTS, IPC and PID: nsenter forks, so the command is a process of
the container's PID namespace, its orphans reaped by the container's PID 1), in its root and
working directory, then through ``setpriv`` as the container's user with the container's
capability bounding set; with the container's env, in a new session so a
timeout kills the command's whole process group. The executable is looked up in the
container's root (``/proc/<pid>/root``) first, so one that is missing fails as runc reports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Sequence
from dataclasses import dataclass, field

from nodeagent.runtime.containerinit import resolve_executable
from nodeagent.runtime.execstream import START_FAILURE_EXIT_CODE, ProcessExec, ScriptedExec
from nodeagent.runtime.interface import ContainerConfig, ExecProcess, ExecResult, ExecTimeoutError
from nodeagent.runtime.processcontainer import Isolation

NSENTER = shutil.which("nsenter") or "/usr/bin/nsenter"
SETPRIV = shutil.which("setpriv") or "/usr/bin/setpriv"
# namespaces.DEFAULT_CAPABILITIES by name, for setpriv
BOUNDING_SET = "-all," + ",".join(
    f"+{name}"
    for name in (
        "chown", "dac_override", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap",
        "net_bind_service", "net_raw", "sys_chroot", "audit_write", "setfcap",
    )
)  # fmt: skip
NSENTER_FLAGS = {"mnt": "--mount", "uts": "--uts", "ipc": "--ipc", "pid": "--pid"}


@dataclass(frozen=True)
class ExecTarget:
    """Where a command runs: the container's PID 1 (``pid``, host view), config, the runtime's
    isolation, the container's user (``container_user``) and hostname."""

    pid: int
    config: ContainerConfig
    isolation: Isolation
    user: dict[str, object] = field(default_factory=dict)
    hostname: str = ""

    def env(self) -> dict[str, str]:
        env = dict(self.config.env)
        return {"HOSTNAME": self.hostname, **env} if self.hostname else env

    def argv(self, command: Sequence[str]) -> tuple[list[str], dict[str, str], str]:
        """argv (through nsenter into the container's namespaces), env and cwd."""
        argv, cwd = list(command), self.config.working_dir or "/"
        kinds = self.isolation.namespaces
        uid = int(str(self.user.get("uid", 0)))
        if not self.isolation.userns:
            groups = [str(g) for g in self.user.get("groups", []) or []]  # type: ignore[attr-defined]
            creds = [SETPRIV, f"--reuid={uid}", f"--regid={self.user.get('gid', 0)}"]
            creds.append(f"--groups={','.join(groups)}" if groups else "--clear-groups")
            if uid != 0:  # as the container's command (containerinit): low ports may be bound
                creds += ["--inh-caps=+net_bind_service", "--ambient-caps=+net_bind_service"]
        else:  # the user namespace maps the agent's ids to the container's already
            creds = [SETPRIV]
        creds.append(f"--bounding-set={BOUNDING_SET}")
        if "mnt" not in kinds:  # the kernel refused namespaces: the command runs on the node
            return [*(creds if not self.isolation.userns else []), *argv], self.env(), cwd
        user = ["--user", "--preserve-credentials"] if self.isolation.userns else []
        ns = [NSENTER_FLAGS[k] for k in NSENTER_FLAGS if k in kinds]
        argv = [NSENTER, "--target", str(self.pid), *user, *ns, "--root", "--wd", "--", *creds, *argv]
        return argv, self.env(), "/"

    def executable_error(self, command: Sequence[str]) -> str:
        """Why ``command`` cannot start in the container ("" if it can, as far as we see)."""
        if "mnt" not in self.isolation.namespaces:
            return ""
        try:
            resolve_executable(command[0], self.env(), root=f"/proc/{self.pid}/root")
        except OSError as err:
            return str(err)
        return ""


async def exec_sync(target: ExecTarget, command: Sequence[str], timeout: float) -> ExecResult:
    """Run ``command`` to its end and collect its output; ``ExecTimeoutError`` after ``timeout``."""
    if not command:
        return ExecResult(START_FAILURE_EXIT_CODE, b"", b"exec failed: no command given\n")
    if why := target.executable_error(command):
        code = 127 if "not found" in why or "no such file" in why else START_FAILURE_EXIT_CODE
        return ExecResult(code, b"", f"{why}\n".encode())
    argv, env, cwd = target.argv(command)
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, env=env, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
    except OSError as err:
        code = 127 if isinstance(err, FileNotFoundError) else 126
        return ExecResult(code, b"", f'exec: "{command[0]}": {err.strerror}\n'.encode())
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        raise ExecTimeoutError(f"command {list(command)} timed out after {timeout}s") from None
    code = proc.returncode or 0
    return ExecResult(128 - code if code < 0 else code, stdout, stderr)


async def exec_stream(
    target: ExecTarget, command: Sequence[str], *, stdin: bool, tty: bool, size: tuple[int, int] | None
) -> ExecProcess:
    """Start ``command`` with its streams (``ExecProcess``); one that cannot start is scripted."""
    if not command:
        return ScriptedExec(START_FAILURE_EXIT_CODE, stderr=b"exec failed: no command given\r\n")
    if why := target.executable_error(command):
        message = f"exec failed: unable to start container process: {why}: unknown\r\n"
        return ScriptedExec(START_FAILURE_EXIT_CODE, stderr=message.encode())
    argv, env, cwd = target.argv(command)
    return await ProcessExec.start(argv, env, cwd, stdin=stdin, tty=tty, size=size)

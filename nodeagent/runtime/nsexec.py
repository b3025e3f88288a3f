"""Commands run inside a running ``process``-runtime container (``exec_sync``, ``exec_stream``):
through ``nsenter`` into the container's mount namespace (and user namespace, when the runtime
uses one) when it has mounts, otherwise directly; with the container's env and working
directory, in a new session so a timeout kills the command's whole process group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Sequence
from dataclasses import dataclass

from nodeagent.runtime.execstream import START_FAILURE_EXIT_CODE, ProcessExec, ScriptedExec
from nodeagent.runtime.interface import ContainerConfig, ExecProcess, ExecResult, ExecTimeoutError

NSENTER = shutil.which("nsenter") or "/usr/bin/nsenter"


@dataclass(frozen=True)
class ExecTarget:
    """Where a command runs: the container's init ``pid`` and config."""

    pid: int
    config: ContainerConfig
    userns: bool

    def argv(self, command: Sequence[str]) -> tuple[list[str], dict[str, str], str]:
        """argv (through nsenter when the container has its own mount namespace), env and cwd."""
        argv, cwd = list(command), self.config.working_dir or "/"
        if self.config.mounts:
            user = ["--user", "--preserve-credentials"] if self.userns else []
            argv = [NSENTER, "--target", str(self.pid), "--mount", *user, "--root", "--wd", "--", *argv]
            cwd = "/"
        return argv, dict(self.config.env), cwd


async def exec_sync(target: ExecTarget, command: Sequence[str], timeout: float) -> ExecResult:
    """Run ``command`` to its end and collect its output; ``ExecTimeoutError`` after ``timeout``."""
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
    argv, env, cwd = target.argv(command)
    return await ProcessExec.start(argv, env, cwd, stdin=stdin, tty=tty, size=size)

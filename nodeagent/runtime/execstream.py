"""``ExecProcess`` implementations: a real process (pipes, or a pseudo-terminal with ``tty``)
and a scripted one (fixed output and exit code: the fake runtime, and commands that could not
start).

A real command runs in a new session (its own process group, killed as a whole). With a tty
the command's stdin, stdout and stderr are the terminal's slave side, which also becomes its
controlling terminal (util-linux ``setsid --ctty`` starts it: a ``preexec_fn`` does not work
under uvloop); the agent reads and writes the master side (``resize`` sets its window size).
The master read ends with ``EIO`` once every holder of the slave side is gone: that is the end
of the output.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import pty
import shutil
import signal
import struct
import subprocess
import termios
from collections.abc import Awaitable, Callable, Mapping, Sequence

CHUNK = 65536
SETSID = shutil.which("setsid") or "/usr/bin/setsid"
START_FAILURE_EXIT_CODE = 126  # what runc/containerd exec reports for a command that cannot start


class ScriptedExec:
    """Output known in advance; stdin is read and discarded. ``exit_code`` may be a coroutine
    function giving it later (the fake runtime's ``attach`` waits for the container's exit)."""

    def __init__(
        self, exit_code: int | Callable[[], Awaitable[int]], stdout: bytes = b"", stderr: bytes = b""
    ) -> None:
        self._exit_code = exit_code
        self._stdout = [stdout] if stdout else []
        self._stderr = [stderr] if stderr else []

    async def write_stdin(self, data: bytes) -> None:
        pass

    async def close_stdin(self) -> None:
        pass

    async def read_stdout(self) -> bytes:
        return self._stdout.pop() if self._stdout else b""

    async def read_stderr(self) -> bytes:
        return self._stderr.pop() if self._stderr else b""

    async def resize(self, width: int, height: int) -> None:
        pass

    async def wait(self) -> int:
        return self._exit_code if isinstance(self._exit_code, int) else await self._exit_code()

    async def kill(self) -> None:
        pass


def start_failure(command: Sequence[str], err: Exception) -> ScriptedExec:
    """A command that could not start, reported as runc does."""
    if isinstance(err, FileNotFoundError):
        why = "executable file not found in $PATH"
    else:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
    message = f'exec failed: unable to start container process: exec: "{command[0]}": {why}: unknown\r\n'
    return ScriptedExec(START_FAILURE_EXIT_CODE, stderr=message.encode())


class ProcessExec:
    """A running command; build with ``start``."""

    def __init__(self, process: asyncio.subprocess.Process, master: int | None) -> None:
        self._process = process
        self._master = master
        self._terminal: asyncio.StreamReader | None = None

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str,
        *,
        stdin: bool,
        tty: bool,
        size: tuple[int, int] | None = None,
    ) -> ProcessExec | ScriptedExec:
        """Start ``argv``; a command that cannot start is a ``ScriptedExec`` failure."""
        master = slave = None
        pipe, devnull = asyncio.subprocess.PIPE, asyncio.subprocess.DEVNULL
        if tty:
            master, slave = pty.openpty()
            if size is not None:
                set_terminal_size(master, *size)
        try:
            process = await asyncio.create_subprocess_exec(
                *([SETSID, "--ctty"] if tty else []), *argv,
                env=dict(env), cwd=cwd, start_new_session=not tty,
                stdin=slave if tty else (pipe if stdin else devnull),
                stdout=slave if tty else pipe, stderr=slave if tty else pipe,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as err:
            if master is not None:
                os.close(master)
            return start_failure(argv, err)
        finally:
            if slave is not None:
                os.close(slave)
        running = cls(process, master)
        if master is not None:
            running._terminal = await read_terminal(master)
        return running

    async def write_stdin(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            if self._master is not None:
                await asyncio.to_thread(os.write, self._master, data)
            elif self._process.stdin is not None:
                self._process.stdin.write(data)
                await self._process.stdin.drain()

    async def close_stdin(self) -> None:
        if self._master is not None:
            with contextlib.suppress(OSError):
                await asyncio.to_thread(os.write, self._master, b"\x04")  # the terminal's EOF
        elif self._process.stdin is not None:
            self._process.stdin.close()

    async def read_stdout(self) -> bytes:
        reader = self._terminal or self._process.stdout
        if reader is None:
            return b""
        try:
            data = await reader.read(CHUNK)
        except OSError:  # EIO: the terminal's other side is closed
            data = b""
        if not data and self._master is not None:
            master, self._master = self._master, None
            with contextlib.suppress(OSError):
                os.close(master)
        return data

    async def read_stderr(self) -> bytes:
        return b"" if self._process.stderr is None else await self._process.stderr.read(CHUNK)

    async def resize(self, width: int, height: int) -> None:
        if self._master is not None:
            with contextlib.suppress(OSError):
                set_terminal_size(self._master, width, height)

    async def wait(self) -> int:
        code = await self._process.wait()
        return 128 - code if code < 0 else code

    async def kill(self) -> None:
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)
            await self._process.wait()


def set_terminal_size(master: int, width: int, height: int) -> None:
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


class _TerminalProtocol(asyncio.StreamReaderProtocol):
    """A pty master's reader: ``EIO`` (the slave side is gone) is the end of the output, not an
    error; as an error it would hide what is still buffered (StreamReader raises first)."""

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(None if isinstance(exc, OSError) and exc.errno == errno.EIO else exc)


async def read_terminal(master: int) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(os.dup(master), "rb", 0)  # the transport owns (and closes) its copy
    await loop.connect_read_pipe(lambda: _TerminalProtocol(reader), pipe)
    return reader

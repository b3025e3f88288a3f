"""A process-runtime container's standard streams: its stdin kept open by the runtime, and its
output pumped to the CRI log and fanned out to attached sessions (``kubectl attach``).

A container created with ``tty`` runs on a pseudo-terminal: its stdin, stdout and stderr are
the slave side (the init makes it its controlling terminal), the runtime keeps the master and
all output is ``stdout``. Otherwise stdout and stderr are pipes, and stdin is a pipe when the
container was created with ``stdin`` (``/dev/null`` without). The pipe (or terminal) stays open
whether or not anyone is attached, so a container reading stdin waits for input.

``attach`` returns an ``AttachSession`` (an ``ExecProcess``): output written from then on,
input forwarded to the container's stdin; ``kill`` detaches. With ``stdin_once`` the
container's stdin is closed when the first session that used stdin ends its input or
detaches (a terminal gets its EOF character instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
from typing import Any

from nodeagent import logs
from nodeagent.runtime.execstream import CHUNK, read_terminal, set_terminal_size
from nodeagent.runtime.interface import ContainerConfig

STDERR_TAIL = 4096  # what the runtime keeps of stderr to recognise an out-of-memory exit


class ContainerIO:
    """Build before the container starts (``stdio`` are its streams), then ``pump`` the
    started process and ``finish`` with its exit code."""

    def __init__(self, config: ContainerConfig, writer: logs.CRILogWriter | None) -> None:
        self.tty, self.stdin_once = config.tty, config.stdin_once
        self.writer = writer
        self.stderr_tail = b""
        self.exit_code: int | None = None
        self._open_stdin = config.stdin or config.tty
        self._master: int | None = None
        self._slave: int | None = None
        if config.tty:
            self._master, self._slave = pty.openpty()
        self._stdin: asyncio.StreamWriter | None = None
        self._sessions: set[AttachSession] = set()
        self._exited = asyncio.Event()
        self._output_ended = False

    def stdio(self) -> dict[str, Any]:
        """The ``stdin``/``stdout``/``stderr`` arguments of the container's subprocess."""
        if self._slave is not None:
            return {"stdin": self._slave, "stdout": self._slave, "stderr": self._slave}
        pipe = asyncio.subprocess.PIPE
        return {
            "stdin": pipe if self._open_stdin else asyncio.subprocess.DEVNULL,
            "stdout": pipe,
            "stderr": pipe,
        }

    def started(self, process: asyncio.subprocess.Process | None) -> None:
        """The process has its streams (None: it could not be spawned): keep its stdin and
        close the runtime's copy of the terminal's slave side."""
        self._stdin = process.stdin if process is not None else None
        if self._slave is not None:
            slave, self._slave = self._slave, None
            os.close(slave)

    async def pump(self, process: asyncio.subprocess.Process) -> list[asyncio.Task[None]]:
        """Start copying the output; the tasks end with the output."""
        if self._master is not None:
            terminal = await read_terminal(self._master)
            return [asyncio.ensure_future(self._copy(terminal, "stdout"))]
        assert process.stdout is not None and process.stderr is not None
        return [
            asyncio.ensure_future(self._copy(process.stdout, "stdout")),
            asyncio.ensure_future(self._copy(process.stderr, "stderr")),
        ]

    async def _copy(self, stream: asyncio.StreamReader, name: str) -> None:
        while True:
            try:
                chunk = await stream.read(CHUNK)
            except OSError:  # EIO: every holder of the terminal's slave side is gone
                chunk = b""
            if not chunk:
                return
            if name == "stderr":
                self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]
            if self.writer is not None:
                self.writer.write(name, chunk)
            for session in self._sessions:
                session.deliver(name, chunk)

    def finish(self, exit_code: int) -> None:
        """The container exited: end every session's output, close the log and the streams."""
        self._output_ended, self.exit_code = True, exit_code
        for session in list(self._sessions):
            session.end_output()
        if self.writer is not None:
            self.writer.close()
        self.close_stdin()
        self.started(None)
        if self._master is not None:
            master, self._master = self._master, None
            with contextlib.suppress(OSError):
                os.close(master)
        self._exited.set()

    def attach(self, stdin: bool) -> AttachSession:
        session = AttachSession(self, stdin and self._open_stdin)
        if self._output_ended:
            session.end_output()
        else:
            self._sessions.add(session)
        return session

    def detach(self, session: AttachSession) -> None:
        self._sessions.discard(session)

    async def write_stdin(self, data: bytes) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            if self._master is not None:
                await asyncio.to_thread(os.write, self._master, data)
            elif self._stdin is not None and not self._stdin.is_closing():
                self._stdin.write(data)
                await self._stdin.drain()

    def close_stdin(self) -> None:
        """Close the container's stdin (its EOF character on a terminal); later input is dropped."""
        self._open_stdin = False
        if self._master is not None and self.exit_code is None:
            with contextlib.suppress(OSError):
                os.write(self._master, b"\x04")
        if self._stdin is not None:
            stdin, self._stdin = self._stdin, None
            stdin.close()

    async def wait(self) -> int:
        await self._exited.wait()
        assert self.exit_code is not None
        return self.exit_code

    def resize(self, width: int, height: int) -> None:
        if self._master is not None:
            with contextlib.suppress(OSError):
                set_terminal_size(self._master, width, height)


class AttachSession:
    """One ``attach``: the container's output from now on, and (``stdin``) its input."""

    def __init__(self, io: ContainerIO, stdin: bool) -> None:
        self._io, self._stdin = io, stdin
        self._output: dict[str, asyncio.Queue[bytes]] = {"stdout": asyncio.Queue(), "stderr": asyncio.Queue()}

    def deliver(self, name: str, chunk: bytes) -> None:
        self._output[name].put_nowait(chunk)

    def end_output(self) -> None:
        for queue in self._output.values():
            queue.put_nowait(b"")

    async def write_stdin(self, data: bytes) -> None:
        if self._stdin:
            await self._io.write_stdin(data)

    async def close_stdin(self) -> None:
        """The client's input ended: with ``stdin_once`` the container's stdin closes too."""
        if self._stdin:
            self._stdin = False
            if self._io.stdin_once:
                self._io.close_stdin()

    async def read_stdout(self) -> bytes:
        return await self._output["stdout"].get()

    async def read_stderr(self) -> bytes:
        return await self._output["stderr"].get()

    async def resize(self, width: int, height: int) -> None:
        self._io.resize(width, height)

    async def wait(self) -> int:
        return await self._io.wait()

    async def kill(self) -> None:
        """Detach; the container keeps running."""
        await self.close_stdin()
        self._io.detach(self)
        self.end_output()

"""Exec over the ``channel.k8s.io`` protocols (upstream ``remotecommand``): the runner and the
two ways its channels travel.

Channels: stdin (client to server), stdout, stderr (not with a tty), error (the final
``Status``, JSON) and resize (client to server, JSON ``{"Width": w, "Height": h}``, tty only).

* WebSocket ``v4.channel.k8s.io`` / ``v5.channel.k8s.io``: every binary message starts with its
  channel byte (0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize); v5 adds 255 = "close", whose
  payload byte is the channel the client half-closed (stdin EOF).
* SPDY with ``X-Stream-Protocol-Version: v4.channel.k8s.io``: the client opens one stream per
  channel (header ``streamtype``); each output stream ends with FIN, the Status last.

The Status: ``Success``, or ``Failure`` with reason ``NonZeroExitCode`` and an ``ExitCode`` cause
(kubectl exits with that code), or an ``InternalError`` when the command could not run at all.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from nodeagent.runtime.interface import ExecProcess

STDIN, STDOUT, STDERR, ERROR, RESIZE, CLOSE = 0, 1, 2, 3, 4, 255


class Channels(Protocol):
    """One exec's channels, whatever the framing."""

    async def read_stdin(self) -> bytes:
        """The next stdin bytes; ``b""`` at EOF."""
        ...

    async def read_resize(self) -> tuple[int, int] | None:
        """The next terminal size (width, height); None at the end."""
        ...

    async def write_stdout(self, data: bytes) -> None: ...

    async def write_stderr(self, data: bytes) -> None: ...

    async def finish(self, status: dict[str, Any]) -> None:
        """End the output channels and send ``status`` on the error channel."""
        ...


@dataclass(frozen=True)
class StreamOptions:
    """The kubelet's query: ``input``, ``output``, ``error``, ``tty`` (``1``/``true``), ``command``."""

    stdin: bool
    stdout: bool
    stderr: bool
    tty: bool
    command: tuple[str, ...]

    @classmethod
    def from_query(cls, flags: dict[str, str], command: Sequence[str]) -> StreamOptions:
        def on(key: str) -> bool:
            return flags.get(key, "").lower() in ("1", "true")

        tty = on("tty")
        return cls(on("input"), on("output"), on("error") and not tty, tty, tuple(command))


def exit_status(code: int, command: Sequence[str]) -> dict[str, Any]:
    if code == 0:
        return {"metadata": {}, "status": "Success"}
    why = f"error executing command {list(command)}, exit code {code}"
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"command terminated with non-zero exit code: {why}",
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }


def internal_error(message: str) -> dict[str, Any]:
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"Internal error occurred: {message}",
        "reason": "InternalError",
        "details": {"causes": [{"message": message}]},
        "code": 500,
    }


async def run_remote_command(process: ExecProcess, channels: Channels, options: StreamOptions) -> None:
    """Relay until the command's output ends and it exited; then send its Status. The command
    is killed if the client goes away first."""
    try:
        async with asyncio.TaskGroup() as tasks:
            inputs = []
            if options.stdin:
                inputs.append(tasks.create_task(_copy_stdin(channels, process)))
            if options.tty:
                inputs.append(tasks.create_task(_copy_resizes(channels, process)))
            write_stderr = channels.write_stderr if options.stderr else None
            await asyncio.gather(
                _copy_output(process.read_stdout, channels.write_stdout if options.stdout else None),
                _copy_output(process.read_stderr, write_stderr),
            )
            code = await process.wait()
            for task in inputs:
                task.cancel()
        await channels.finish(exit_status(code, options.command))
    finally:
        await process.kill()


async def _copy_stdin(channels: Channels, process: ExecProcess) -> None:
    while data := await channels.read_stdin():
        await process.write_stdin(data)
    await process.close_stdin()


async def _copy_resizes(channels: Channels, process: ExecProcess) -> None:
    while (size := await channels.read_resize()) is not None:
        await process.resize(*size)


async def _copy_output(read: Any, write: Any) -> None:
    """Copy one output to its channel (or drain it when the client did not ask for it)."""
    while data := await read():
        if write is not None:
            await write(data)


def parse_resize(data: bytes) -> tuple[int, int] | None:
    try:
        size = json.loads(data)
        return int(size.get("Width", 0)), int(size.get("Height", 0))
    except (ValueError, AttributeError, TypeError):
        return None

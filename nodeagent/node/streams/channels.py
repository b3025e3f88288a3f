"""The ``remotecommand.Channels`` of one exec over WebSocket or over SPDY (see
``remotecommand`` for the protocols)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from nodeagent.node.streams.remotecommand import (
    CLOSE,
    ERROR,
    RESIZE,
    STDERR,
    STDIN,
    STDOUT,
    StreamOptions,
    parse_resize,
)
from nodeagent.node.streams.spdy import SpdySession, SpdyStream
from nodeagent.node.streams.websocket import WebSocket

STREAM_CREATION_TIMEOUT = 30.0  # upstream's: how long the client has to open its streams


class WebSocketChannels:
    """Channels multiplexed in messages; ``serve`` demultiplexes what the client sends."""

    def __init__(self, socket: WebSocket, version: int) -> None:
        self.socket = socket
        self.version = version
        self._stdin: asyncio.Queue[bytes] = asyncio.Queue()
        self._resize: asyncio.Queue[tuple[int, int] | None] = asyncio.Queue()

    async def serve(self) -> None:
        while (message := await self.socket.receive()) is not None:
            if not message:
                continue
            channel, payload = message[0], message[1:]
            if channel == STDIN and payload:
                self._stdin.put_nowait(payload)
            elif channel == RESIZE and (size := parse_resize(payload)) is not None:
                self._resize.put_nowait(size)
            elif channel == CLOSE and self.version >= 5 and payload[:1] == bytes([STDIN]):
                self._stdin.put_nowait(b"")
        self._stdin.put_nowait(b"")
        self._resize.put_nowait(None)

    async def read_stdin(self) -> bytes:
        return await self._stdin.get()

    async def read_resize(self) -> tuple[int, int] | None:
        return await self._resize.get()

    async def write_stdout(self, data: bytes) -> None:
        await self.socket.send(bytes([STDOUT]) + data)

    async def write_stderr(self, data: bytes) -> None:
        await self.socket.send(bytes([STDERR]) + data)

    async def finish(self, status: dict[str, Any]) -> None:
        await self.socket.send(bytes([ERROR]) + json.dumps(status).encode())
        await self.socket.close()


class SpdyChannels:
    """One SPDY stream per channel, by its ``streamtype`` header."""

    def __init__(self, streams: dict[str, SpdyStream]) -> None:
        self.streams = streams
        self._resize_buffer = b""

    @classmethod
    async def accept(cls, session: SpdySession, options: StreamOptions) -> SpdyChannels | None:
        """Wait for the streams ``options`` ask for (upstream's ``expectedStreams``); None when
        the client leaves or takes longer than ``STREAM_CREATION_TIMEOUT``."""
        wanted = {"error"} | {
            name
            for name, on in (
                ("stdin", options.stdin),
                ("stdout", options.stdout),
                ("stderr", options.stderr),
                ("resize", options.tty),
            )
            if on
        }
        streams: dict[str, SpdyStream] = {}
        try:
            async with asyncio.timeout(STREAM_CREATION_TIMEOUT):
                while not wanted <= streams.keys():
                    stream = await session.accept()
                    if stream is None:
                        return None
                    streams[stream.header("streamtype")] = stream
        except TimeoutError:
            return None
        return cls(streams)

    async def read_stdin(self) -> bytes:
        return await self.streams["stdin"].read()

    async def read_resize(self) -> tuple[int, int] | None:
        decoder = json.JSONDecoder()
        while True:
            text = self._resize_buffer.decode(errors="replace").lstrip()
            try:
                size, end = decoder.raw_decode(text)
            except ValueError:
                chunk = await self.streams["resize"].read()
                if not chunk:
                    return None
                self._resize_buffer += chunk
                continue
            self._resize_buffer = text[end:].encode()
            return parse_resize(json.dumps(size).encode())

    async def write_stdout(self, data: bytes) -> None:
        await self.streams["stdout"].write(data)

    async def write_stderr(self, data: bytes) -> None:
        await self.streams["stderr"].write(data)

    async def finish(self, status: dict[str, Any]) -> None:
        for name in ("stdout", "stderr"):
            if name in self.streams:
                await self.streams[name].close()
        error = self.streams["error"]
        await error.write(json.dumps(status).encode())
        await error.close()

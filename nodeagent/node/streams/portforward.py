"""Port forwarding (upstream kubelet ``cri/streaming/portforward``): what both framings share,
and the SPDY one (``portforward.k8s.io``, raw or tunnelled in WebSocket messages). The WebSocket
channel protocols are ``channelforward``.

Every forwarded connection is a data stream and an error stream of the client's. The agent asks
the runtime for a connection to the port (CRI ``PortForward``: ``PodPorts.dial``) and relays the
data stream both ways: the end of the client's data (a SPDY FIN) half-closes the pod
connection, the pod's end ends the data stream. A connection that cannot be made is reported
as text on the error stream, upstream's ``error forwarding port 80 to pod <sandbox>, uid :
<the runtime's reason>`` (the CRI streaming server names the sandbox and no uid), which kubectl
prints as ``an error occurred forwarding 8080 -> 80: ...``.

SPDY: for each local connection the client opens two streams with the same ``requestid``
header and the pod's ``port``: ``streamtype: error`` (which it half-closes at once) and
``streamtype: data``; once both are there the forward starts. When the session ends, the
forwards still running are cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Protocol

from nodeagent.node.streams.spdy import SpdySession, SpdyStream
from nodeagent.runtime.interface import ContainerRuntime, PortForwardError

CHUNK = 65536


class DataStream(Protocol):
    """The client's side of one forwarded connection."""

    async def read(self) -> bytes:
        """The client's next bytes; ``b""`` when it ended its side."""
        ...

    async def write(self, data: bytes) -> None: ...

    async def close(self) -> None:
        """End the stream towards the client (what that means depends on the framing)."""
        ...


@dataclass(frozen=True)
class PodPorts:
    """The ports of one pod sandbox, through its runtime."""

    runtime: ContainerRuntime
    sandbox_id: str

    async def dial(self, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Raises ``PortForwardError``."""
        return await self.runtime.port_forward(self.sandbox_id, port)

    def failure(self, port: int, err: PortForwardError) -> str:
        """Upstream's error stream message."""
        return f"error forwarding port {port} to pod {self.sandbox_id}, uid : {err}"


async def relay(data: DataStream, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Relay until the pod closes its side (see the module docstring), then close the pod
    connection."""
    try:
        async with asyncio.TaskGroup() as tasks:
            upstream = tasks.create_task(_to_pod(data, writer))
            await _from_pod(reader, data)
            upstream.cancel()  # the pod closed: nothing more to relay
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def serve_port_forward(session: SpdySession, pod: PodPorts) -> None:
    """Pair the client's SPDY streams and forward each pair until the session ends."""
    pending: dict[str, dict[str, SpdyStream]] = {}
    forwards: set[asyncio.Task[None]] = set()
    async with asyncio.TaskGroup() as tasks:
        while (stream := await session.accept()) is not None:
            pair = pending.setdefault(stream.header("requestid"), {})
            pair[stream.header("streamtype")] = stream
            if "error" in pair and "data" in pair:
                del pending[stream.header("requestid")]
                task = tasks.create_task(forward_port(pair["data"], pair["error"], pod))
                forwards.add(task)
                task.add_done_callback(forwards.discard)
        for task in forwards:
            task.cancel()


async def forward_port(data: SpdyStream, error: SpdyStream, pod: PodPorts) -> None:
    """One forwarded SPDY stream pair (see the module docstring)."""
    header = data.header("port")
    try:
        port = int(header)
        if not 0 < port < 65536:
            raise ValueError(header)
    except ValueError:
        await _fail(data, error, f"invalid port: {header!r}")
        return
    try:
        reader, writer = await pod.dial(port)
    except PortForwardError as err:
        await _fail(data, error, pod.failure(port, err))
        return
    try:
        await relay(data, reader, writer)
    finally:
        with contextlib.suppress(OSError):
            await error.close()


async def _to_pod(data: DataStream, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while chunk := await data.read():
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()


async def _from_pod(reader: asyncio.StreamReader, data: DataStream) -> None:
    with contextlib.suppress(OSError):
        while chunk := await reader.read(CHUNK):
            await data.write(chunk)
        await data.close()


async def _fail(data: SpdyStream, error: SpdyStream, message: str) -> None:
    with contextlib.suppress(OSError):
        await error.write(message.encode())
        await error.close()
        await data.close()

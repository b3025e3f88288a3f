"""Port forwarding over SPDY (upstream ``portforward.k8s.io``), raw or tunnelled in WebSocket.

For each local connection the client opens two streams with the same ``requestid`` header and
the pod's ``port``: ``streamtype: error`` (which it half-closes at once) and ``streamtype:
data``. Once both are there, the agent connects to the pod IP on that port and relays the data
stream both ways: the client's FIN half-closes the pod connection, the pod's end closes the data
stream (FIN). A connection that fails is reported as text on the error stream, which kubectl
prints (``an error occurred forwarding 8080 -> 80: error forwarding port 80 to pod ...``).
When the session ends, the relays still running are cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from nodeagent.node.streams.spdy import SpdySession, SpdyStream

CHUNK = 65536
DIAL_TIMEOUT = 5.0


async def serve_port_forward(session: SpdySession, pod_ip: str, pod_uid: str) -> None:
    """Pair the client's streams and forward each pair until the session ends."""
    pending: dict[str, dict[str, SpdyStream]] = {}
    forwards: set[asyncio.Task[None]] = set()
    async with asyncio.TaskGroup() as tasks:
        while (stream := await session.accept()) is not None:
            pair = pending.setdefault(stream.header("requestid"), {})
            pair[stream.header("streamtype")] = stream
            if "error" in pair and "data" in pair:
                del pending[stream.header("requestid")]
                forward = forward_port(pair["data"], pair["error"], pod_ip, pod_uid)
                task = tasks.create_task(forward)
                forwards.add(task)
                task.add_done_callback(forwards.discard)
        for task in forwards:
            task.cancel()


async def forward_port(data: SpdyStream, error: SpdyStream, pod_ip: str, pod_uid: str) -> None:
    """One forwarded connection (see the module docstring)."""
    header = data.header("port")
    try:
        port = int(header)
        if not 0 < port < 65536:
            raise ValueError(header)
    except ValueError:
        await _fail(data, error, f"invalid port: {header!r}")
        return
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(pod_ip, port), DIAL_TIMEOUT)
    except (OSError, TimeoutError) as err:
        why = os.strerror(err.errno).lower() if isinstance(err, OSError) and err.errno else "i/o timeout"
        message = (
            f"error forwarding port {port} to pod {pod_uid}, uid : failed to connect to {pod_ip}:{port} "
            f"inside the pod: dial tcp4 {pod_ip}:{port}: connect: {why}"
        )
        await _fail(data, error, message)
        return
    try:
        async with asyncio.TaskGroup() as tasks:
            upstream = tasks.create_task(_to_pod(data, writer))
            await _from_pod(reader, data)
            upstream.cancel()  # the pod closed: nothing more to relay
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        with contextlib.suppress(OSError):
            await error.close()


async def _to_pod(data: SpdyStream, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while chunk := await data.read():
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()


async def _from_pod(reader: asyncio.StreamReader, data: SpdyStream) -> None:
    with contextlib.suppress(OSError):
        while chunk := await reader.read(CHUNK):
            await data.write(chunk)
        await data.close()


async def _fail(data: SpdyStream, error: SpdyStream, message: str) -> None:
    with contextlib.suppress(OSError):
        await error.write(message.encode())
        await error.close()
        await data.close()

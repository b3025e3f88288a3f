"""Port forwarding over the WebSocket channel protocols (upstream kubelet
``cri/streaming/portforward/websocket.go`` on ``wsstream``), as the official Python client, kr8s
and other non-kubectl clients speak it.

* Subprotocols: ``v4.channel.k8s.io`` (binary messages), ``v4.base64.channel.k8s.io`` (text
  messages) or none at all (binary). The first one the client offers that is served wins
  (``v5.channel.k8s.io`` is exec's only: a client offering ``v5, v4`` gets v4).
* The ports come from the query, ``port`` (the apiserver turns ``ports`` into it), repeated or
  comma separated; each is ``1-65535`` (``parse_ports``, upstream's messages), at most
  ``MAX_PORTS`` of them (upstream has no limit, and channel numbers past a byte wrap).
* Port ``i`` of the list has two channels: data ``2i`` (both ways) and error ``2i+1`` (to the
  client). The first message on each is the port as 2 bytes, little endian; then the agent
  connects to the port (``PodPorts.dial``): the client's data goes to the pod, the pod's back
  on the data channel. One connection per port and WebSocket connection.
* Framing: binary, a message is the channel byte and the data; base64, the channel as an ASCII
  digit (``'0' + channel``) and the data in standard base64 (invalid base64 from the client is
  dropped, as upstream drops it). Messages for other channels (the error channels, unknown
  numbers) and empty messages are ignored.
* A port that cannot be reached gets upstream's ``error forwarding port ...`` text on its error
  channel. Nothing marks the end of one port's data (the protocol has no per-channel close):
  once the forward of every port ended (the pod closed it, or it failed) the agent closes the
  WebSocket (1000); when the client closes it, every forward ends and its pod connection is
  closed.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from minikube_py.api.field_errors import go_quote
from nodeagent.node.streams.portforward import PodPorts, relay
from nodeagent.node.streams.websocket import BINARY, TEXT, WebSocket
from nodeagent.runtime.interface import PortForwardError

PORT_PARAMETER = "port"  # upstream's api.PortHeader
# upstream's port-forward wsstream protocols: binary unless named base64
PROTOCOLS = {"": False, "v4.channel.k8s.io": False, "v4.base64.channel.k8s.io": True}
# A channel is one byte (base64: one ASCII character from '0'), so the channel numbers of more
# ports than this would wrap (upstream's do, silently): refused instead.
MAX_PORTS = 100
INBOUND_MESSAGES = 16  # buffered client messages per port before reading the socket waits
_DIGITS = re.compile(r"[0-9]+")


def parse_ports(values: Sequence[str]) -> list[int]:
    """Upstream's ``NewV4Options`` for a WebSocket request; raises ``ValueError`` with its message."""
    if not values:
        raise ValueError(f'query parameter "{PORT_PARAMETER}" is required')
    ports = []
    for value in values:
        if not value:
            raise ValueError(f'query parameter "{PORT_PARAMETER}" cannot be empty')
        for part in value.split(","):
            port = _parse_uint16(part)
            if isinstance(port, str):
                raise ValueError(f"unable to parse {go_quote(value)} as a port: {port}")
            if port < 1:
                raise ValueError(f"port {go_quote(value)} must be > 0")
            ports.append(port)
    if len(ports) > MAX_PORTS:
        raise ValueError(f"at most {MAX_PORTS} ports can be forwarded over one WebSocket connection")
    return ports


def negotiate(offered: Sequence[str]) -> str | None:
    """wsstream's handshake: the first offered protocol served ("" when none is offered)."""
    return next((p for p in offered or [""] if p in PROTOCOLS), None)


def refusal(offered: Sequence[str]) -> str:
    """Why the handshake failed, in wsstream's words (Go's ``%v`` of the lists)."""
    return f"requested protocol(s) are not supported: [{' '.join(offered)}]; supports [{' '.join(PROTOCOLS)}]"


@dataclass(frozen=True)
class ChannelCodec:
    """``channel.k8s.io`` (binary) or ``base64.channel.k8s.io`` framing of channel messages."""

    base64: bool

    @classmethod
    def for_protocol(cls, protocol: str) -> ChannelCodec:
        return cls(PROTOCOLS[protocol])

    def encode(self, channel: int, data: bytes) -> tuple[int, bytes]:
        """The opcode and payload of one message."""
        if self.base64:
            return TEXT, bytes([ord("0") + channel]) + base64.b64encode(data)
        return BINARY, bytes([channel]) + data

    def decode(self, message: bytes) -> tuple[int, bytes] | None:
        """The channel and data of a client message; None for an empty or undecodable one."""
        if not message:
            return None
        if not self.base64:
            return message[0], message[1:]
        try:  # Go's StdEncoding: padding required, line breaks ignored
            data = base64.b64decode(message[1:].replace(b"\r", b"").replace(b"\n", b""), validate=True)
        except binascii.Error:
            return None
        return message[0] - ord("0"), data


class _ChannelStream:
    """Port ``index``'s data channel as a ``portforward.DataStream``."""

    def __init__(self, socket: WebSocket, codec: ChannelCodec, index: int) -> None:
        self._socket, self._codec, self._channel = socket, codec, 2 * index
        self._inbound: asyncio.Queue[bytes] = asyncio.Queue(INBOUND_MESSAGES)
        self.open = True  # False once the forward ended: the client's data is dropped

    async def deliver(self, data: bytes) -> None:
        if self.open:
            await self._inbound.put(data)

    def end(self) -> None:
        self.open = False
        while not self._inbound.empty():  # unblocks a ``deliver`` waiting for room
            self._inbound.get_nowait()

    async def read(self) -> bytes:
        return await self._inbound.get()

    async def write(self, data: bytes) -> None:
        await send(self._socket, self._codec, self._channel, data)

    async def close(self) -> None:
        """Nothing: the protocol cannot say that one channel ended."""


async def send(socket: WebSocket, codec: ChannelCodec, channel: int, data: bytes) -> None:
    opcode, payload = codec.encode(channel, data)
    await socket.send(payload, opcode)


async def serve_channel_port_forward(
    socket: WebSocket, codec: ChannelCodec, ports: Sequence[int], pod: PodPorts
) -> None:
    """Forward ``ports`` over an open WebSocket (see the module docstring)."""
    streams = [_ChannelStream(socket, codec, i) for i in range(len(ports))]
    try:
        for i, port in enumerate(ports):  # every channel's port first, as upstream writes them
            prefix = struct.pack("<H", port)
            await send(socket, codec, 2 * i, prefix)
            await send(socket, codec, 2 * i + 1, prefix)
    except OSError:
        return
    async with asyncio.TaskGroup() as tasks:
        receiving = tasks.create_task(_receive(socket, codec, streams))
        forwarding = tasks.create_task(_forward_all(socket, codec, ports, streams, pod))
        receiving.add_done_callback(lambda _: forwarding.cancel())  # the client closed: stop
        forwarding.add_done_callback(lambda _: receiving.cancel())
    await socket.close()


async def _receive(socket: WebSocket, codec: ChannelCodec, streams: Sequence[_ChannelStream]) -> None:
    while (message := await socket.receive()) is not None:
        decoded = codec.decode(message)
        if decoded is None:
            continue
        channel, data = decoded
        index, is_error_channel = divmod(channel, 2)
        if data and not is_error_channel and 0 <= index < len(streams):
            await streams[index].deliver(data)


async def _forward_all(
    socket: WebSocket,
    codec: ChannelCodec,
    ports: Sequence[int],
    streams: Sequence[_ChannelStream],
    pod: PodPorts,
) -> None:
    async with asyncio.TaskGroup() as tasks:
        for i, port in enumerate(ports):
            tasks.create_task(_forward(socket, codec, i, port, streams[i], pod))


async def _forward(
    socket: WebSocket, codec: ChannelCodec, index: int, port: int, stream: _ChannelStream, pod: PodPorts
) -> None:
    try:
        try:
            reader, writer = await pod.dial(port)
        except PortForwardError as err:
            with contextlib.suppress(OSError):
                await send(socket, codec, 2 * index + 1, pod.failure(port, err).encode())
            return
        await relay(stream, reader, writer)
    finally:
        stream.end()


def _parse_uint16(text: str) -> int | str:
    """Go's ``strconv.ParseUint(text, 10, 16)``: the value, or its error message."""
    if not _DIGITS.fullmatch(text):
        return f"strconv.ParseUint: parsing {go_quote(text)}: invalid syntax"
    digits = text.lstrip("0") or "0"
    if len(digits) > 5 or int(digits) > 0xFFFF:  # (no int() of a huge string)
        return f"strconv.ParseUint: parsing {go_quote(text)}: value out of range"
    return int(digits)

"""WebSocket server framing (RFC 6455), enough for kubectl: the opening handshake, masked
client frames, fragmented and binary messages, ping/pong and the closing handshake.

``WebSocket.receive`` returns the next data message (text or binary) and answers control frames
on the way: a PING gets its PONG, a CLOSE gets a CLOSE back and ends the connection (None).
Server frames are never masked; every frame goes out in one write, so concurrent senders
do not interleave.
"""

from __future__ import annotations

import base64
import hashlib
import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass

from nodeagent.node.streams import BufferedReader, ByteStream

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
NORMAL_CLOSURE, PROTOCOL_ERROR, MESSAGE_TOO_BIG = 1000, 1002, 1009
MAX_MESSAGE = 16 << 20


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def offered_protocols(values: Iterable[str]) -> list[str]:
    """The subprotocols of every ``Sec-WebSocket-Protocol`` header, in order."""
    return [p.strip() for value in values for p in value.split(",") if p.strip()]


def handshake_response(key: str, protocol: str) -> bytes:
    """The ``101`` accepting the upgrade with ``protocol``."""
    lines = [
        "HTTP/1.1 101 Switching Protocols",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Accept: {accept_key(key)}",
    ]
    if protocol:
        lines.append(f"Sec-WebSocket-Protocol: {protocol}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@dataclass(frozen=True)
class Frame:
    fin: bool
    opcode: int
    payload: bytes


def encode_frame(opcode: int, payload: bytes, *, fin: bool = True, mask: bool = False) -> bytes:
    """One frame; ``mask`` (a client's frames) with a random key."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    size, mask_bit = len(payload), 0x80 if mask else 0
    if size < 126:
        head.append(mask_bit | size)
    elif size < 1 << 16:
        head += struct.pack("!BH", mask_bit | 126, size)
    else:
        head += struct.pack("!BQ", mask_bit | 127, size)
    if not mask:
        return bytes(head) + payload
    key = os.urandom(4)
    return bytes(head) + key + _unmask(key, payload)


async def read_frame(reader: BufferedReader) -> Frame:
    """The next frame, unmasked; raises ``EOFError`` at the end, ``ValueError`` when too big."""
    first, second = await reader.read_exactly(2)
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", await reader.read_exactly(2))
    elif size == 127:
        (size,) = struct.unpack("!Q", await reader.read_exactly(8))
    if size > MAX_MESSAGE:
        raise ValueError(f"frame of {size} bytes is too big")
    key = await reader.read_exactly(4) if second & 0x80 else b""
    payload = await reader.read_exactly(size) if size else b""
    return Frame(bool(first & 0x80), first & 0x0F, _unmask(key, payload) if key else payload)


def _unmask(key: bytes, payload: bytes) -> bytes:
    repeated = (key * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(len(payload), "big")


class WebSocket:
    """A server-side WebSocket connection over ``stream`` (after the handshake)."""

    def __init__(self, stream: ByteStream) -> None:
        self._stream = stream
        self._reader = BufferedReader(stream)
        self.closed = False

    async def receive(self) -> bytes | None:
        """The next data message's payload; None once the connection is closed."""
        message = bytearray()
        while not self.closed:
            try:
                frame = await read_frame(self._reader)
            except (EOFError, OSError):
                self.closed = True
                return None
            except ValueError:
                await self.close(MESSAGE_TOO_BIG)
                return None
            if frame.opcode == PING:
                await self._send_quietly(encode_frame(PONG, frame.payload))
            elif frame.opcode == CLOSE:
                await self.close(NORMAL_CLOSURE)
                return None
            elif frame.opcode in (TEXT, BINARY, CONTINUATION):
                message += frame.payload
                if len(message) > MAX_MESSAGE:
                    await self.close(MESSAGE_TOO_BIG)
                    return None
                if frame.fin:
                    return bytes(message)
        return None

    async def send(self, data: bytes, opcode: int = BINARY) -> None:
        """One message; raises ``ConnectionError`` when closed."""
        if self.closed:
            raise ConnectionResetError("the websocket is closed")
        await self._stream.write(encode_frame(opcode, data))

    async def close(self, code: int = NORMAL_CLOSURE) -> None:
        """Send a CLOSE (once) and stop; the caller closes the transport."""
        if not self.closed:
            self.closed = True
            await self._send_quietly(encode_frame(CLOSE, struct.pack("!H", code)))

    async def _send_quietly(self, frame: bytes) -> None:
        try:
            await self._stream.write(frame)
        except OSError:
            self.closed = True


class MessageStream:
    """A ``ByteStream`` of binary WebSocket messages (SPDY tunnelled in WebSocket)."""

    def __init__(self, socket: WebSocket, stream: ByteStream) -> None:
        self._socket = socket
        self._stream = stream

    async def read(self) -> bytes:
        while (message := await self._socket.receive()) is not None:
            if message:
                return message
        return b""

    async def write(self, data: bytes) -> None:
        await self._socket.send(data)

    def close(self) -> None:
        self._stream.close()

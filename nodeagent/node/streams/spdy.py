"""SPDY/3.1 framing, the server side of a session (what kubectl's ``spdystream`` client needs).

Frames: a control frame is ``1 | version(15) | type(16) | flags(8) | length(24) | payload``, a
data frame ``0 | stream id(31) | flags(8) | length(24) | data`` (flag 0x01 = FIN). Header blocks
(SYN_STREAM, SYN_REPLY) are ``u32 count`` then ``u32 length + name, u32 length + value`` pairs
(several values joined by NUL), compressed with zlib and the SPDY/3 dictionary: one deflate
context per direction for the whole session, ``Z_SYNC_FLUSH`` after each block.

``SpdySession.serve`` reads frames until the client leaves (GOAWAY or EOF): every SYN_STREAM
is answered with an empty SYN_REPLY and queued for ``accept``; DATA goes to its stream; a
RST_STREAM ends its stream; PING is echoed; SETTINGS and WINDOW_UPDATE are ignored (the Go
client does no flow control). Writes go out one frame per write, under a lock, so compressed
header blocks reach the client in compression order.
"""

from __future__ import annotations

import asyncio
import struct
import zlib
from collections.abc import Mapping

from nodeagent.node.streams import BufferedReader, ByteStream
from nodeagent.node.streams.spdydict import DICTIONARY

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
RST_CANCEL = 5
MAX_DATA = 32 * 1024  # bytes per DATA frame sent

Headers = dict[str, list[str]]


class HeaderCodec:
    """One direction's header compression (or decompression) context."""

    def __init__(self) -> None:
        self._deflate = zlib.compressobj(zdict=DICTIONARY)
        self._inflate = zlib.decompressobj(zdict=DICTIONARY)

    def compress(self, headers: Mapping[str, list[str]]) -> bytes:
        block = bytearray(struct.pack("!I", len(headers)))
        for name, values in headers.items():
            for part in (name.lower().encode(), "\0".join(values).encode()):
                block += struct.pack("!I", len(part)) + part
        return self._deflate.compress(bytes(block)) + self._deflate.flush(zlib.Z_SYNC_FLUSH)

    def decompress(self, data: bytes) -> Headers:
        block = self._inflate.decompress(data)
        (count,), offset = struct.unpack_from("!I", block), 4
        headers: Headers = {}
        for _ in range(count):
            (size,) = struct.unpack_from("!I", block, offset)
            name = block[offset + 4 : offset + 4 + size].decode()
            offset += 4 + size
            (size,) = struct.unpack_from("!I", block, offset)
            value = block[offset + 4 : offset + 4 + size].decode()
            offset += 4 + size
            headers.setdefault(name, []).extend(value.split("\0"))
        return headers


def control_frame(kind: int, payload: bytes, flags: int = 0) -> bytes:
    return struct.pack("!HHI", 0x8000 | VERSION, kind, (flags << 24) | len(payload)) + payload


def data_frame(stream_id: int, data: bytes, flags: int = 0) -> bytes:
    return struct.pack("!II", stream_id & 0x7FFFFFFF, (flags << 24) | len(data)) + data


class SpdyStream:
    """One stream the client opened: its headers, what it sends, what we send on it."""

    def __init__(self, session: SpdySession, stream_id: int, headers: Headers) -> None:
        self.session = session
        self.id = stream_id
        self.headers = headers
        self._incoming: asyncio.Queue[bytes] = asyncio.Queue()
        self._ended = False
        self._closed = False

    def header(self, name: str) -> str:
        return (self.headers.get(name) or [""])[0]

    def feed(self, data: bytes) -> None:
        if not self._ended:
            self._incoming.put_nowait(data)

    def feed_eof(self) -> None:
        if not self._ended:
            self._ended = True
            self._incoming.put_nowait(b"")

    async def read(self) -> bytes:
        """The client's next bytes on this stream; ``b""`` once it half-closed or reset it."""
        data = await self._incoming.get()
        if not data:
            self._incoming.put_nowait(b"")  # stays at the end
        return data

    async def write(self, data: bytes) -> None:
        for start in range(0, len(data), MAX_DATA):
            await self.session.send(data_frame(self.id, data[start : start + MAX_DATA]))

    async def close(self) -> None:
        """Half-close our side (an empty DATA with FIN), once."""
        if not self._closed:
            self._closed = True
            await self.session.send(data_frame(self.id, b"", FLAG_FIN))

    async def reset(self) -> None:
        self._closed = True
        await self.session.send(control_frame(RST_STREAM, struct.pack("!II", self.id, RST_CANCEL)))


class SpdySession:
    """The server side of a SPDY/3.1 session over ``stream`` (see the module docstring)."""

    def __init__(self, stream: ByteStream) -> None:
        self._stream = stream
        self._reader = BufferedReader(stream)
        self._codec_in, self._codec_out = HeaderCodec(), HeaderCodec()
        self._streams: dict[int, SpdyStream] = {}
        self._accepted: asyncio.Queue[SpdyStream | None] = asyncio.Queue()
        self._lock = asyncio.Lock()
        self.done = False

    async def accept(self) -> SpdyStream | None:
        """The next stream the client opened; None once the session ended."""
        stream = await self._accepted.get()
        if stream is None:
            self._accepted.put_nowait(None)
        return stream

    async def send(self, frame: bytes) -> None:
        async with self._lock:
            await self._stream.write(frame)

    async def serve(self) -> None:
        """Read frames until GOAWAY or the end of the connection; then every stream ends."""
        try:
            while await self._read_frame():
                pass
        except (EOFError, OSError, zlib.error, struct.error, UnicodeDecodeError):
            pass
        finally:
            self.done = True
            for each in self._streams.values():
                each.feed_eof()
            self._accepted.put_nowait(None)

    async def _read_frame(self) -> bool:
        head = await self._reader.read_exactly(8)
        word, flags_length = struct.unpack("!II", head)
        flags, length = flags_length >> 24, flags_length & 0xFFFFFF
        payload = await self._reader.read_exactly(length) if length else b""
        if not word & 0x80000000:
            stream = self._streams.get(word & 0x7FFFFFFF)
            if stream is not None:
                if payload:
                    stream.feed(payload)
                if flags & FLAG_FIN:
                    stream.feed_eof()
            return True
        return await self._control(word & 0xFFFF, flags, payload)

    async def _control(self, kind: int, flags: int, payload: bytes) -> bool:
        if kind == SYN_STREAM:
            (stream_id,) = struct.unpack_from("!I", payload)
            stream = SpdyStream(self, stream_id & 0x7FFFFFFF, self._codec_in.decompress(payload[10:]))
            self._streams[stream.id] = stream
            await self.send_reply(stream.id)
            if flags & FLAG_FIN:
                stream.feed_eof()
            self._accepted.put_nowait(stream)
        elif kind in (SYN_REPLY, HEADERS):
            self._codec_in.decompress(payload[4:])  # keeps the inflate context in step
        elif kind == RST_STREAM:
            (stream_id,) = struct.unpack_from("!I", payload)
            if (reset := self._streams.get(stream_id & 0x7FFFFFFF)) is not None:
                reset.feed_eof()
        elif kind == PING:
            await self.send(control_frame(PING, payload))
        elif kind == GOAWAY:
            return False
        return True

    async def send_reply(self, stream_id: int, headers: Mapping[str, list[str]] | None = None) -> None:
        async with self._lock:
            block = self._codec_out.compress(headers or {})
            await self._stream.write(control_frame(SYN_REPLY, struct.pack("!I", stream_id) + block))

    async def goaway(self) -> None:
        await self.send(control_frame(GOAWAY, struct.pack("!II", 0, 0)))

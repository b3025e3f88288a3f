"""The streaming protocols' framing, against byte strings: WebSocket (RFC 6455), SPDY/3.1 with
its header compression, and the exec channels (``channel.k8s.io``)."""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

from nodeagent.node.streams import BufferedReader
from nodeagent.node.streams.channels import SpdyChannels, WebSocketChannels
from nodeagent.node.streams.remotecommand import StreamOptions, run_remote_command
from nodeagent.node.streams.spdy import (
    FLAG_FIN,
    GOAWAY,
    PING,
    SYN_REPLY,
    SYN_STREAM,
    HeaderCodec,
    SpdySession,
    control_frame,
    data_frame,
)
from nodeagent.node.streams.spdydict import DICTIONARY
from nodeagent.node.streams.websocket import (
    BINARY,
    CLOSE,
    CONTINUATION,
    PONG,
    WebSocket,
    accept_key,
    encode_frame,
    read_frame,
)
from nodeagent.runtime.execstream import ScriptedExec


class Pipe:
    """A ``ByteStream`` reading scripted chunks and recording what is written."""

    def __init__(self, *incoming: bytes) -> None:
        self.incoming = list(incoming)
        self.written = bytearray()

    async def read(self) -> bytes:
        return self.incoming.pop(0) if self.incoming else b""

    async def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        pass


async def frames(data: bytes) -> list[Any]:
    reader, found = BufferedReader(Pipe(data)), []
    try:
        while True:
            found.append(await read_frame(reader))
    except EOFError:
        return found


def test_accept_key_is_rfc_6455s_example() -> None:
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


async def test_masked_fragments_make_one_message_and_pings_get_pongs() -> None:
    big = bytes(range(256)) * 300  # a 64-bit length
    client = (
        encode_frame(BINARY, b"\x01hel", fin=False, mask=True)
        + encode_frame(0x9, b"are you there", mask=True)
        + encode_frame(CONTINUATION, b"lo", mask=True)
        + encode_frame(BINARY, big, mask=True)
        + encode_frame(CLOSE, struct.pack("!H", 1000), mask=True)
    )
    pipe = Pipe(client[:7], client[7:])  # split inside a header
    socket = WebSocket(pipe)
    assert await socket.receive() == b"\x01hello"
    assert await socket.receive() == big
    assert await socket.receive() is None and socket.closed
    sent = await frames(bytes(pipe.written))
    assert [(f.opcode, f.payload) for f in sent] == [(PONG, b"are you there"), (CLOSE, b"\x03\xe8")]


def test_header_blocks_share_one_compression_context_per_direction() -> None:
    sender, receiver = HeaderCodec(), HeaderCodec()
    first = {"streamtype": ["error"], "port": ["80"], "requestid": ["0"]}
    second = {"streamtype": ["data"], "port": ["80"], "requestid": ["0"], "multi": ["a", "b"]}
    blocks = [sender.compress(first), sender.compress(second)]
    assert len(blocks[1]) < len(zlib.compress(json.dumps(second).encode()))  # the context helps
    assert [receiver.decompress(b) for b in blocks] == [first, second]


def test_a_standard_zlib_stream_with_the_spdy3_dictionary_decodes() -> None:
    assert len(DICTIONARY) == 1423 and DICTIONARY.startswith(b"\x00\x00\x00\x07options")
    deflate = zlib.compressobj(zdict=DICTIONARY)
    block = struct.pack("!I", 1) + struct.pack("!I", 10) + b"streamtype" + struct.pack("!I", 5) + b"stdin"
    wire = deflate.compress(block) + deflate.flush(zlib.Z_SYNC_FLUSH)
    assert HeaderCodec().decompress(wire) == {"streamtype": ["stdin"]}


def syn_stream(codec: HeaderCodec, stream_id: int, headers: dict[str, list[str]], flags: int = 0) -> bytes:
    payload = struct.pack("!IIH", stream_id, 0, 0) + codec.compress(headers)
    return control_frame(SYN_STREAM, payload, flags)


async def test_a_session_replies_to_streams_relays_data_and_echoes_pings() -> None:
    client = HeaderCodec()
    wire = (
        syn_stream(client, 1, {"streamtype": ["error"]}, FLAG_FIN)
        + syn_stream(client, 3, {"streamtype": ["stdin"]})
        + data_frame(3, b"input")
        + data_frame(3, b"", FLAG_FIN)
        + control_frame(PING, struct.pack("!I", 7))
        + control_frame(GOAWAY, struct.pack("!II", 0, 0))
    )
    pipe = Pipe(wire)
    session = SpdySession(pipe)
    await session.serve()
    error, stdin = await session.accept(), await session.accept()
    assert error is not None and stdin is not None and await session.accept() is None
    assert (error.header("streamtype"), await error.read()) == ("error", b"")
    assert [await stdin.read(), await stdin.read()] == [b"input", b""]
    await stdin.write(b"out")
    await stdin.close()
    replies, kinds = HeaderCodec(), []
    reader = BufferedReader(Pipe(bytes(pipe.written)))
    for _ in range(5):
        word, flags_length = struct.unpack("!II", await reader.read_exactly(8))
        payload = await reader.read_exactly(flags_length & 0xFFFFFF)
        if word & 0x80000000 and word & 0xFFFF == SYN_REPLY:
            replies.decompress(payload[4:])
        kinds.append(
            (word & 0xFFFF if word & 0x80000000 else f"data {word}", flags_length >> 24, payload[-3:])
        )
    assert [k[:2] for k in kinds] == [(SYN_REPLY, 0), (SYN_REPLY, 0), (PING, 0), ("data 3", 0), ("data 3", 1)]
    assert kinds[3][2] == b"out"


class Recorded:
    def __init__(self) -> None:
        self.stdout, self.status = b"", {}

    async def read_stdin(self) -> bytes:
        return b""

    async def read_resize(self) -> tuple[int, int] | None:
        return None

    async def write_stdout(self, data: bytes) -> None:
        self.stdout += data

    async def write_stderr(self, data: bytes) -> None:
        raise AssertionError("stderr was not asked for")

    async def finish(self, status: dict[str, Any]) -> None:
        self.status = status


async def test_a_non_zero_exit_is_a_failure_status_with_the_exit_code_cause() -> None:
    channels = Recorded()
    options = StreamOptions(stdin=True, stdout=True, stderr=False, tty=False, command=("sh",))
    await run_remote_command(ScriptedExec(7, b"out", b"dropped"), channels, options)
    assert channels.stdout == b"out"
    assert channels.status["reason"] == "NonZeroExitCode"
    assert channels.status["details"]["causes"] == [{"reason": "ExitCode", "message": "7"}]
    await run_remote_command(ScriptedExec(0), channels, options)
    assert channels.status == {"metadata": {}, "status": "Success"}


async def test_websocket_channels_demultiplex_stdin_resize_and_v5_close() -> None:
    messages = [b"\x00abc", b'\x04{"Width":80,"Height":24}', b"\xff\x00", b"\x00late"]
    wire = b"".join(encode_frame(BINARY, m, mask=True) for m in messages)
    channels = WebSocketChannels(WebSocket(Pipe(wire)), 5)
    await channels.serve()
    assert [await channels.read_stdin(), await channels.read_stdin()] == [b"abc", b""]
    assert [await channels.read_resize(), await channels.read_resize()] == [(80, 24), None]


async def test_spdy_resize_stream_carries_concatenated_json() -> None:
    client = HeaderCodec()
    wire = (
        syn_stream(client, 1, {"streamtype": ["error"]})
        + syn_stream(client, 3, {"streamtype": ["resize"]})
        + data_frame(3, b'{"Width":80,"Height":24}\n{"Width":1')
        + data_frame(3, b'00,"Height":30}\n', FLAG_FIN)
    )
    session = SpdySession(Pipe(wire))
    await session.serve()
    options = StreamOptions(stdin=False, stdout=False, stderr=False, tty=True, command=())
    channels = await SpdyChannels.accept(session, options)
    assert channels is not None
    assert [await channels.read_resize() for _ in range(3)] == [(80, 24), (100, 30), None]

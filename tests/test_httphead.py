"""``minikube_py.httphead`` on a transport that records what is written: the size limit when a
whole over-limit head comes in one read (the parser completes it before the byte count can
refuse it), and a head within the limit reaching the app."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from minikube_py.httphead import TOO_LARGE_RESPONSE, BoundedHeadHttpToolsProtocol


class RecordingTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 1), "sockname": ("127.0.0.1", 2)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def served(data: bytes, max_header_bytes: int) -> tuple[RecordingTransport, list[str]]:
    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})

    config = uvicorn.Config(app, lifespan="off", log_config=None)
    config.load()
    protocol_class = BoundedHeadHttpToolsProtocol.configured(
        max_header_bytes=max_header_bytes, read_header_timeout=30
    )
    protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
    transport = RecordingTransport()
    protocol.connection_made(transport)
    protocol.data_received(data)
    for _ in range(10):
        await asyncio.sleep(0)
    protocol.connection_lost(None)
    return transport, reached


async def test_an_over_limit_head_in_one_read_is_refused_before_the_app() -> None:
    head = b"GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * 20_000 + b"\r\nContent-Length: 2\r\n\r\n{}"
    transport, reached = await served(head, max_header_bytes=10_000)  # plus the 4 KiB slop
    assert bytes(transport.written) == TOO_LARGE_RESPONSE
    assert reached == []


async def test_a_head_within_the_limit_reaches_the_app() -> None:
    head = b"GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * 9_000 + b"\r\n\r\n"
    transport, reached = await served(head, max_header_bytes=10_000)
    assert reached == ["/x"]
    assert bytes(transport.written).startswith(b"HTTP/1.1 200 OK\r\n")

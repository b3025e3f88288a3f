"""Streaming connections of the node agent's API: ``/exec``, ``/attach`` and ``/portForward``
(upstream kubelet ``pkg/kubelet/cri/streaming``), over a hijacked connection
(``minikube_py.hijack``).

``websocket`` and ``spdy`` are the framings, ``remotecommand`` runs exec and attach on either
(the ``channel.k8s.io`` protocols), ``portforward`` relays TCP connections to a pod over SPDY
(raw, or tunnelled in WebSocket messages), and ``handlers`` negotiates which.
"""

from __future__ import annotations

from typing import Protocol


class ByteStream(Protocol):
    """A bidirectional byte stream: a hijacked connection, or WebSocket messages as bytes."""

    async def read(self) -> bytes:
        """The next bytes; ``b""`` at the end."""
        ...

    async def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class BufferedReader:
    """Exact-length reads over a ``ByteStream``."""

    def __init__(self, stream: ByteStream) -> None:
        self._stream = stream
        self._buffer = bytearray()

    async def read_exactly(self, size: int) -> bytes:
        """``size`` bytes; raises ``EOFError`` when the stream ends first."""
        while len(self._buffer) < size:
            chunk = await self._stream.read()
            if not chunk:
                raise EOFError("the connection closed")
            self._buffer += chunk
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

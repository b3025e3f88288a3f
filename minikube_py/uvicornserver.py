"""``QuietServer``: uvicorn's server as the apiserver and the node agents run it.

- No signal handlers: the process (the CLI) owns SIGINT and SIGTERM.
- A shutdown that ends as soon as no request is in flight. uvicorn's own waits for every
  connection to be closed, and closing a TLS connection waits for the peer's ``close_notify``:
  a client holding an idle pooled connection it is not reading (any long-lived client between
  two requests) never sends one, so every stop took the whole grace period. Here the grace
  period bounds the requests in flight only; once they are answered, the connections left
  (idle, or closing with nothing left to write) are dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator

import uvicorn

logger = logging.getLogger("uvicorn.error")


class QuietServer(uvicorn.Server):
    """See the module docstring; ``config.timeout_graceful_shutdown`` is the grace period."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()  # idle ones close now; busy ones after their response
        tasks = self.server_state.tasks
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.config.timeout_graceful_shutdown or 0)
        while tasks and (left := deadline - loop.time()) > 0:
            await asyncio.wait(set(tasks), timeout=left)
        if tasks:
            logger.warning("cancelling %d request(s) still running after the grace period", len(tasks))
            for task in list(tasks):
                task.cancel()
        for connection in list(self.server_state.connections):
            transport = getattr(connection, "transport", None)
            if transport is not None and transport.get_write_buffer_size() == 0:
                transport.abort()

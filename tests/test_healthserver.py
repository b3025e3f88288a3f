"""``serve_health``: the port it announces takes connections from that moment."""

from __future__ import annotations

import asyncio
import logging
import re
import socket

import httpx

from minikube_py.healthserver import serve_health
from minikube_py.metrics import Registry

ANNOUNCED = re.compile(r"on http://127\.0\.0\.1:(\d+)$")


class ConnectOnAnnouncement(logging.Handler):
    """Connects to the announced port inside the logging call itself, before the server task
    runs again: what a process reading the component's log may do at once."""

    def __init__(self) -> None:
        super().__init__()
        self.port = 0
        self.error: OSError | None = None

    def emit(self, record: logging.LogRecord) -> None:
        found = ANNOUNCED.search(record.getMessage())
        if not found:
            return
        self.port = int(found.group(1))
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError as err:
            self.error = err


async def test_the_announced_port_already_listens() -> None:
    """Regression: the port was logged between bind and listen, so a client that read the log
    line could be refused (a flaky controller-manager e2e test)."""
    handler = ConnectOnAnnouncement()
    logger = logging.getLogger("health-test")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    server = asyncio.create_task(serve_health("health-test", "127.0.0.1", 0, {}, Registry()))
    try:
        async with httpx.AsyncClient() as http:
            for _ in range(200):  # until the server logged its port (no fixed sleep: a condition)
                if handler.port:
                    break
                await asyncio.sleep(0.01)
            assert handler.port, "the port was never announced"
            assert handler.error is None
            answer = await http.get(f"http://127.0.0.1:{handler.port}/healthz")
            assert (answer.status_code, answer.text) == (200, "ok")
    finally:
        server.cancel()
        await asyncio.gather(server, return_exceptions=True)
        logger.removeHandler(handler)

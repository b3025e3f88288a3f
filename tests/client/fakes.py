"""Test doubles for unit tests of the client: a clock whose sleeps return at once (recorded),
and a ``RESTClient`` over ``httpx.MockTransport`` (through ``HttpxTransport``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from minikube_py.client import ClientConfig, RESTClient, RetryPolicy
from minikube_py.client.transport import HttpxTransport


class RecordingClock:
    """Time moves only by sleeping; each sleep is recorded and returns at once."""

    def __init__(self) -> None:
        self.time = 1000.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.time

    def monotonic(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.time += max(0.0, seconds)
        await asyncio.sleep(0)


def mock_client(
    handler: Callable[[httpx.Request], httpx.Response],
    *,
    clock: RecordingClock | None = None,
    retry: RetryPolicy | None = None,
    **config: object,
) -> RESTClient:
    settings: dict[str, object] = {"server": "https://apiserver.test", "qps": 0.0, **config}
    return RESTClient(
        ClientConfig(**settings),  # type: ignore[arg-type]
        clock=clock or RecordingClock(),
        retry=retry,
        transport=HttpxTransport(httpx.MockTransport(handler)),
    )

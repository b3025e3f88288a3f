"""The proxy's socket tests run on both event loops: asyncio's and uvloop (what the command
line runs; its transports are no subclasses of asyncio's and it reads right after
``connection_made``, pause or not)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import pytest
import uvloop

BOTH_LOOPS = ("test_loopback",)


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] in BOTH_LOOPS:  # type: ignore[attr-defined]
        return {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}
    return {"asyncio": asyncio.new_event_loop}

"""Waiting on a condition in async tests, instead of sleeping a fixed time and hoping.

``await eventually(check, "what")`` polls ``check`` (a function, sync or async) until it returns
something truthy and returns that; a failed assertion or a missing key counts as not yet. After
``timeout`` seconds the test fails naming ``what`` and the last answer. The sync twin for e2e
tests is ``tests.cluster.eventually``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

INTERVAL = 0.01  # the poll interval of a wait, not a wait itself


async def eventually(
    check: Callable[[], Any | Awaitable[Any]], what: str, timeout: float = 5.0, interval: float = INTERVAL
) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last: Any = None
    while loop.time() < deadline:
        try:
            last = check()
            if inspect.isawaitable(last):
                last = await last
        except (AssertionError, KeyError, IndexError) as err:
            last = err
        else:
            if last:
                return last
        await asyncio.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")

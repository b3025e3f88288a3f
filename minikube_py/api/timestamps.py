"""``metav1.Time`` as the API writes it: RFC 3339 in whole seconds, UTC (``2026-11-29T20:51:49Z``)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now_rfc3339() -> str:
    """The current time, formatted once per second (every create and update stamps it)."""
    second = int(time.time())
    if second != _now[0]:
        _now[:] = [second, datetime.fromtimestamp(second, UTC).strftime(FORMAT)]
    return str(_now[1])


_now: list[Any] = [0, ""]

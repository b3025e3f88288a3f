"""``metav1.Time`` as the API writes it: RFC 3339 in whole seconds, UTC (``2026-11-29T20:51:49Z``)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from minikube_py.clock import Clock

FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now_rfc3339() -> str:
    """The current time, formatted once per second (every create and update stamps it)."""
    second = int(time.time())
    if second != _now[0]:
        _now[:] = [second, datetime.fromtimestamp(second, UTC).strftime(FORMAT)]
    return str(_now[1])


_now: list[Any] = [0, ""]


def format_rfc3339(at: float) -> str:
    """``at`` (seconds since the epoch, from an injected clock) as the API writes it."""
    return datetime.fromtimestamp(int(at), UTC).strftime(FORMAT)


def clock_rfc3339(clock: Clock) -> str:
    """The injected clock's current time as the API writes it (controllers stamp conditions
    with it, so a fake clock makes their timestamps predictable)."""
    return format_rfc3339(clock.now())


def parse_rfc3339(value: object) -> float | None:
    """Seconds since the epoch of an RFC 3339 string (``2026-11-29T20:51:49Z``, fractions and
    offsets too); None when absent or unparsable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None

"""``metav1.Time`` values from and to an injected clock (RFC 3339, whole seconds, UTC)."""

from __future__ import annotations

from datetime import UTC, datetime

from minikube_py.clock import Clock

FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def format_time(at: float) -> str:
    return datetime.fromtimestamp(int(at), UTC).strftime(FORMAT)


def now_time(clock: Clock) -> str:
    """The clock's current time as the API writes it."""
    return format_time(clock.now())


def parse_time(value: object) -> float | None:
    """Seconds since the epoch for an RFC 3339 string; None when absent or unparsable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None

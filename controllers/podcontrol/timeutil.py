"""``metav1.Time`` values from an injected clock (RFC 3339, whole seconds, UTC)."""

from __future__ import annotations

from minikube_py.api.timestamps import format_rfc3339 as format_time
from minikube_py.api.timestamps import parse_rfc3339 as parse_time
from minikube_py.clock import Clock

__all__ = ["format_time", "now_time", "parse_time"]


def now_time(clock: Clock) -> str:
    """The clock's current time as the API writes it."""
    return format_time(clock.now())

"""Timestamps in cells: RFC 3339 strings (``Time`` and ``MicroTime``) to epoch seconds, and the
human durations between them (upstream's ``duration.HumanDuration``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from apiserver.registry.age import human_duration


def parse_time(timestamp: Any) -> float | None:
    """Epoch seconds of an RFC 3339 timestamp; None when missing or unreadable."""
    if not timestamp or not isinstance(timestamp, str):
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def since(then: float, now: float) -> str:
    """How long ago ``then`` was at ``now`` (``5m``, ``3h10m``...)."""
    return human_duration(int(now - then))

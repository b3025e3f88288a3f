"""Ages as ``kubectl get`` prints them (upstream's ``duration.HumanDuration``)."""

from __future__ import annotations

from datetime import datetime


def human_duration(seconds: int) -> str:
    """``45s``, ``3m20s``, ``5h10m``, ``3d4h``, ``2y30d``... like upstream."""
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if minutes < 10:
        return _pair(minutes, "m", seconds % 60, "s")
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return _pair(hours, "h", minutes % 60, "m")
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return _pair(days, "d", hours % 24, "h")
    if days < 365 * 2:
        return f"{days}d"
    if days < 365 * 8:
        return _pair(days // 365, "y", days % 365, "d")
    return f"{days // 365}y"


def _pair(big: int, big_unit: str, small: int, small_unit: str) -> str:
    return f"{big}{big_unit}" if small == 0 else f"{big}{big_unit}{small}{small_unit}"


def since(then: float, now: float) -> str:
    """How long ago ``then`` (epoch seconds) was at ``now`` (``5m``, ``3h10m``...)."""
    return human_duration(int(now - then))


def age(timestamp: str | None, now: float) -> str:
    """The age of an RFC 3339 timestamp at ``now`` (epoch seconds); ``<unknown>`` without one."""
    if not timestamp:
        return "<unknown>"
    try:
        then = datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return "<unknown>"
    return human_duration(int(now - then))

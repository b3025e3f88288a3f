"""Shared fixtures for the strategy tests: a fixed ``now`` and timestamps relative to it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC).timestamp()


def ago(**delta: float) -> str:
    """An RFC 3339 timestamp ``delta`` before ``NOW``."""
    moment = datetime.fromtimestamp(NOW, UTC) - timedelta(**delta)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def meta(name: str = "x", namespace: str | None = "default", **extra: Any) -> dict[str, Any]:
    """Stored metadata: created an hour before ``NOW`` (age ``60m``)."""
    out: dict[str, Any] = {"name": name, "creationTimestamp": ago(hours=1), "uid": "u-1", **extra}
    if namespace is not None:
        out["namespace"] = namespace
    return out


def causes(found: list[Any]) -> list[tuple[str, str, str]]:
    """Causes as ``(reason, field, message)`` tuples for compact assertions."""
    return [(c.reason, c.field, c.message) for c in found]


def prepared_for_create(strategy: Any, obj: dict[str, Any]) -> None:
    """What ``GenericStore.create`` does with a strategy: defaults, then prepare."""
    strategy.default(obj)
    strategy.prepare_for_create(obj)


def prepared_for_update(strategy: Any, new: dict[str, Any], old: dict[str, Any]) -> None:
    """What ``GenericStore.update`` does with a strategy: defaults, then prepare."""
    strategy.default(new)
    strategy.prepare_for_update(new, old)

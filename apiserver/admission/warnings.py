"""Warnings admission adds to the response (``Warning: 299 - "..."`` headers), e.g.
PodSecurity's ``warn`` mode. The resource endpoints open a collection per request."""

from __future__ import annotations

from contextvars import ContextVar

_warnings: ContextVar[list[str] | None] = ContextVar("admission_warnings", default=None)


def collect() -> list[str]:
    """Start collecting for the request in progress; the list fills as plugins warn."""
    found: list[str] = []
    _warnings.set(found)
    return found


def warn(text: str) -> None:
    """Add a warning to the request in progress (no-op outside one)."""
    found = _warnings.get()
    if found is not None:
        found.append(text)

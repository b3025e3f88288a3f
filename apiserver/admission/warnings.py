"""Warnings a request adds to its response (``Warning: 299 - "..."`` headers), e.g.
PodSecurity's ``warn`` mode or field validation's unknown fields: upstream's per-request
warning recorder. The resource endpoints open a collection per request and write it
(``apiserver.endpoints.warningheaders``)."""

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


def warn_first(texts: list[str]) -> None:
    """Put ``texts`` before the warnings collected so far: field validation reports once the
    write is done, but upstream records its warnings while decoding, before admission runs."""
    found = _warnings.get()
    if found is not None:
        found[0:0] = texts

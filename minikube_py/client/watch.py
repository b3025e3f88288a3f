"""Watch stream decoding: newline-delimited JSON events (``{"type": ..., "object": ...}``)
into ``WatchEvent``. An ERROR event is raised: ``Gone`` for a 410 Status (the reflector
relists), ``ApiError`` for any other."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable

from minikube_py.api.errors import ApiError
from minikube_py.client.interfaces import ADDED, BOOKMARK, DELETED, ERROR, MODIFIED, WatchEvent
from minikube_py.client.status import error_from_status, is_status
from minikube_py.jsonutil import loads

EVENT_TYPES = frozenset({ADDED, MODIFIED, DELETED, BOOKMARK})


def decode_event(line: bytes | str) -> WatchEvent:
    """One event line as a ``WatchEvent``; raises ``ApiError`` (``Gone``) for an ERROR event
    and for a line that is not an event."""
    try:
        raw = loads(line)
    except (ValueError, RecursionError) as err:
        raise ApiError(500, "InternalError", f"unable to decode watch event: {err}") from err
    if not isinstance(raw, dict):
        raise ApiError(500, "InternalError", "unable to decode watch event: not an object")
    kind, obj = raw.get("type"), raw.get("object")
    if kind == ERROR:
        if is_status(obj):
            assert isinstance(obj, dict)
            raise error_from_status(obj, 500)
        raise ApiError(500, "InternalError", f"watch ERROR event without a Status: {obj!r:.200}")
    if kind not in EVENT_TYPES or not isinstance(obj, dict):
        raise ApiError(500, "InternalError", f"unable to decode watch event of type {kind!r}")
    return WatchEvent(kind, obj)


async def split_lines(chunks: AsyncIterable[bytes]) -> AsyncGenerator[bytes, None]:
    """The non-empty lines of a byte stream, each without its newline; a last line without a
    newline is yielded too."""
    pending = b""
    async for chunk in chunks:
        if not chunk:
            continue
        pending += chunk
        if b"\n" not in chunk:
            continue
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.strip():
                yield line
    if pending.strip():
        yield pending


async def decode_events(chunks: AsyncIterable[bytes]) -> AsyncGenerator[WatchEvent, None]:
    """Every event of a watch body (see ``decode_event``)."""
    async for line in split_lines(chunks):
        yield decode_event(line)

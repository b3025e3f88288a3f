"""Go's ``time.LoadLocation`` over ``zoneinfo``: ``""`` and ``"UTC"`` are UTC, ``"Local"`` the
process's own zone, anything else an IANA name (the host's zone files, else the ``tzdata``
package), refused with Go's message ``unknown time zone NAME``."""

from __future__ import annotations

import functools
import os
from datetime import tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

UTC = ZoneInfo("UTC")
LOCALTIME = "/etc/localtime"


class UnknownTimeZone(ValueError):
    """A zone name that names no zone; ``str`` is Go's message."""


@functools.lru_cache(maxsize=256)
def load_location(name: str) -> tzinfo:
    """The zone called ``name``; raises ``UnknownTimeZone`` as Go's ``LoadLocation`` errs."""
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return local_zone()
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise UnknownTimeZone(f"unknown time zone {name}") from exc


def local_zone() -> tzinfo:
    """The process's zone as Go reads it: ``$TZ`` if set (empty: UTC), else /etc/localtime, else UTC."""
    tz = os.environ.get("TZ")
    if tz is not None:
        try:
            return ZoneInfo(tz.lstrip(":")) if tz else UTC
        except (ZoneInfoNotFoundError, ValueError, OSError):
            return UTC
    try:
        with open(LOCALTIME, "rb") as f:
            return ZoneInfo.from_file(f, key="Local")
    except (OSError, ValueError):
        return UTC

"""Command-line value types every component's flags share, as upstream's flags take them: Go
durations (``24h``, ``1m30s``, ``500ms``, ``0``), Go-style booleans (``--flag``,
``--flag=false``) and TCP ports."""

from __future__ import annotations

import argparse
import re
from datetime import timedelta

_DURATION = re.compile(r"(\d+(?:\.\d*)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def parse_duration(text: str) -> timedelta:
    """A Go duration (``24h``, ``1h30m``, ``0``); raises ``ValueError``."""
    if text == "0":
        return timedelta(0)
    matches = list(_DURATION.finditer(text))
    if not matches or "".join(m.group(0) for m in matches) != text:
        raise ValueError(f"invalid duration {text!r}")
    return timedelta(seconds=sum(float(m.group(1)) * _UNIT_SECONDS[m.group(2)] for m in matches))


def duration_seconds(text: str) -> float:
    """An argparse ``type``: a Go duration in seconds."""
    try:
        return parse_duration(text).total_seconds()
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def flag_bool(text: str) -> bool:
    """A Go-style boolean flag value (``--flag``, ``--flag=false``)."""
    value = {"true": True, "1": True, "t": True, "false": False, "0": False, "f": False}.get(text.lower())
    if value is None:
        raise argparse.ArgumentTypeError(f"invalid boolean {text!r}")
    return value


def port_number(text: str) -> int:
    """argparse type: a TCP port, 1-65535."""
    port = int(text) if text.isdigit() else 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (want 1-65535)")
    return port

"""Go's ``time.ParseDuration`` (``30s``, ``1m30s``, ``1.5h``, ``-2ms``, ``0``), with Go's error
messages, for durations clients send (the ``timeout`` query parameter)."""

from __future__ import annotations

import re

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_NUMBER = re.compile(r"(\d*)(\.\d*)?")
_UNIT = re.compile(r"[^\d.]*")


def parse_go_duration(text: str) -> float:
    """Seconds; raises ``ValueError`` with Go's message (``time: invalid duration "x"``)."""
    quoted = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    rest, sign = text, 1.0
    if rest[:1] in ("-", "+"):
        sign, rest = (-1.0 if rest[0] == "-" else 1.0), rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise ValueError(f"time: invalid duration {quoted}")
    total = 0.0
    while rest:
        number = _NUMBER.match(rest)
        assert number is not None  # the pattern matches the empty string
        whole, fraction = number.group(1), number.group(2) or ""
        if not whole and len(fraction) <= 1:
            raise ValueError(f"time: invalid duration {quoted}")
        rest = rest[number.end() :]
        unit = _UNIT.match(rest)
        name = unit.group(0) if unit else ""
        if not name:
            raise ValueError(f"time: missing unit in duration {quoted}")
        if name not in UNIT_SECONDS:
            raise ValueError(f'time: unknown unit "{name}" in duration {quoted}')
        total += float((whole or "0") + (fraction if len(fraction) > 1 else "")) * UNIT_SECONDS[name]
        rest = rest[len(name) :]
    return sign * total

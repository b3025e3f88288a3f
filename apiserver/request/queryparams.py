"""Query parameters -> option values, converted the way upstream's generated ``url.Values``
conversions do it (``Convert_url_Values_To_v1_PodLogOptions`` and friends).

Upstream turns ``?tailLines=x`` into a typed options object before anything is validated; a
value that does not convert fails the request with a 400 whose message is Go's own error text
(``strconv.ParseInt: parsing "x": invalid syntax``), which ``ConversionError`` carries. A scalar
takes the first value of a repeated parameter; a parameter that is absent keeps its default.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from minikube_py.api.field_errors import go_quote
from minikube_py.api.models.gotime import LAYOUT_CHUNKS, RFC3339

_RANGES = {"01": (1, 12, "month"), "15": (0, 23, "hour"), "04": (0, 59, "minute"), "05": (0, 59, "second")}


class ConversionError(Exception):
    """A query value upstream cannot convert; ``str()`` is upstream's message."""


class Query(Protocol):
    def getlist(self, key: str) -> list[str]: ...


def first_values(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each parameter's first value, blank ones included: what upstream's conversions read from
    ``url.Values`` for a scalar (``dict()`` of Starlette's query params keeps the last)."""
    values: dict[str, str] = {}
    for key, value in items:
        values.setdefault(key, value)
    return values


def first(query: Query, key: str) -> str | None:
    values = query.getlist(key)
    return values[0] if values else None


def to_bool(value: str) -> bool:
    """``Convert_Slice_string_To_bool``: ``0`` and any case of ``false`` are false, all else true."""
    return not (value == "0" or value.lower() == "false")


def to_int64(value: str) -> int:
    """``strconv.ParseInt(value, 10, 64)``."""
    digits, negative = value, False
    if value[:1] in ("+", "-"):
        digits, negative = value[1:], value[0] == "-"
    number = _parse_uint(digits, 64)
    if isinstance(number, str) and number != "value out of range":
        raise ConversionError(_num_error("ParseInt", value, number))
    if isinstance(number, str) or number > 2**63 - (0 if negative else 1):
        raise ConversionError(_num_error("ParseInt", value, "value out of range"))
    return -number if negative else number


def to_uint64(value: str) -> int:
    """``strconv.ParseUint(value, 10, 64)`` (no sign accepted)."""
    number = _parse_uint(value, 64)
    if isinstance(number, str):
        raise ConversionError(_num_error("ParseUint", value, number))
    return number


def to_ports(values: Sequence[str]) -> list[int]:
    """``Convert_Slice_string_To_Slice_int32``: every value, each split at commas, as uint16."""
    ports = []
    for value in values:
        for part in value.split(","):
            port = _parse_uint(part, 16)
            if isinstance(port, str):
                raise ConversionError(f"cannot convert to []int32: {_num_error('ParseUint', part, port)}")
            ports.append(port)
    return ports


def to_time(value: str) -> datetime:
    """``metav1.Time.UnmarshalQueryParameter``: Go's ``time.Parse(time.RFC3339, value)`` as a
    naive UTC datetime; empty (or ``null``) is the zero time. Go's year 0 becomes year 1."""
    if value in ("", "null"):
        return datetime(1, 1, 1)
    fields: dict[str, int] = {}
    rest = value
    for prefix, element in LAYOUT_CHUNKS[RFC3339]:
        if not rest.startswith(prefix):
            raise ConversionError(_time_error(value, rest, prefix))
        rest = rest[len(prefix) :]
        rest = _take_element(value, element, rest, fields)
    if rest:
        raise ConversionError(f"parsing time {go_quote(value)}: extra text: {go_quote(rest)}")
    year, month, day = fields["2006"], fields["01"], fields["02"]
    if not 1 <= day <= calendar.monthrange(year or 2000, month)[1]:  # year 0 is a leap year
        raise ConversionError(f"parsing time {go_quote(value)}: day out of range")
    local = datetime(max(year, 1), month, day, fields["15"], fields["04"], fields["05"])
    try:
        return local - timedelta(seconds=fields["Z07:00"])
    except OverflowError:
        return datetime.min if fields["Z07:00"] > 0 else datetime.max


def format_rfc3339(moment: datetime) -> str:
    """Go's ``Format(time.RFC3339)`` of a naive UTC datetime (whole seconds, ``Z``)."""
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}Z"


def _take_element(value: str, element: str, rest: str, fields: dict[str, int]) -> str:
    """Parse one layout element off ``rest`` into ``fields``; return what is left."""
    if element == "2006":
        if len(rest) < 4 or not rest[:4].isascii() or not rest[:4].isdigit():
            raise ConversionError(_time_error(value, rest, element))
        fields[element] = int(rest[:4])
        return rest[4:]
    if element == "Z07:00":
        return _take_zone(value, rest, fields)
    number, left = _getnum(rest, fixed=element != "15")
    if number is None:
        raise ConversionError(_time_error(value, rest, element))
    low, high, what = _RANGES.get(element, (0, 99, ""))
    if not low <= number <= high:
        raise ConversionError(f"parsing time {go_quote(value)}: {what} out of range")
    fields[element] = number
    if element == "05" and len(left) >= 2 and left[0] in ".," and left[1].isdigit():
        left = left[1:].lstrip("0123456789")  # a fraction the layout does not name: dropped
    return left


def _take_zone(value: str, rest: str, fields: dict[str, int]) -> str:
    if rest[:1] == "Z":
        fields["Z07:00"] = 0
        return rest[1:]
    if len(rest) < 6 or rest[3] != ":":
        raise ConversionError(_time_error(value, rest, "Z07:00"))
    hours, _ = _getnum(rest[1:3], fixed=True)
    minutes, _ = _getnum(rest[4:6], fixed=True) if hours is not None else (None, "")
    if (hours or 0) > 24 or (minutes or 0) > 60:  # Go checks ranges before the sign
        what = "minute" if (minutes or 0) > 60 else "hour"
        raise ConversionError(f"parsing time {go_quote(value)}: time zone offset {what} out of range")
    if hours is None or minutes is None or rest[0] not in "+-":
        raise ConversionError(_time_error(value, rest, "Z07:00"))
    offset = (hours * 60 + minutes) * 60
    fields["Z07:00"] = offset if rest[0] == "+" else -offset
    return rest[6:]


def _getnum(text: str, *, fixed: bool) -> tuple[int | None, str]:
    """Go's ``getnum``: one or two leading digits (exactly two when ``fixed``)."""
    if not _digit(text, 0):
        return None, text
    if not _digit(text, 1):
        return (None, text) if fixed else (int(text[0]), text[1:])
    return int(text[:2]), text[2:]


def _digit(text: str, index: int) -> bool:
    return len(text) > index and "0" <= text[index] <= "9"


def _parse_uint(text: str, bits: int) -> int | str:
    """Go's ``strconv.ParseUint(text, 10, bits)``: the number, or the error text."""
    if not text:
        return "invalid syntax"
    number = 0
    for char in text:
        if not "0" <= char <= "9":
            return "invalid syntax"
        number = number * 10 + ord(char) - ord("0")
        if number >= 2**bits:
            return "value out of range"
    return number


def _num_error(func: str, value: str, why: str) -> str:
    return f"strconv.{func}: parsing {go_quote(value)}: {why}"


def _time_error(value: str, rest: str, element: str) -> str:
    return (
        f"parsing time {go_quote(value)} as {go_quote(RFC3339)}: "
        f"cannot parse {go_quote(rest)} as {go_quote(element)}"
    )

"""Types whose Go ``MarshalJSON`` is hand-written: their wire form and the JSON upstream renders for it.

``data`` is a field's payload, or ``None`` when the field was absent from the wire (Go's zero value).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from minikube_py.api.protobuf.wire import (
    BYTES,
    VARINT,
    WIRE_NAMES,
    ProtobufError,
    iter_fields,
    to_int32,
    to_int64,
)

# Go's zero time.Time (0001-01-01T00:00:00Z) in Unix seconds: it renders as JSON null.
_GO_ZERO_UNIX = -62135596800
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NS = 1_000_000_000


def _read(data: bytes, message: str, spec: dict[int, tuple[str, int]]) -> dict[int, int | bytes]:
    """The last value of each field in ``spec`` ({number: (name, wire type)}); others are skipped."""
    values: dict[int, int | bytes] = {}
    for number, wire_type, value in iter_fields(data):
        if number not in spec:
            continue
        name, want = spec[number]
        if wire_type != want:
            raise ProtobufError(
                f"{message}.{name}: wrong wire type {WIRE_NAMES[wire_type]} (expected {WIRE_NAMES[want]})"
            )
        values[number] = value
    return values


def _int(values: dict[int, int | bytes], number: int) -> int:
    value = values.get(number, 0)
    assert isinstance(value, int)
    return value


def _bytes(values: dict[int, int | bytes], number: int) -> bytes | None:
    value = values.get(number)
    assert value is None or isinstance(value, bytes)
    return value


_TIMESTAMP = {1: ("seconds", VARINT), 2: ("nanos", VARINT)}


def _format_time(seconds: int, nanos: int, micro: bool) -> str | None:
    if seconds * _NS + nanos == _GO_ZERO_UNIX * _NS:
        return None
    try:
        moment = _EPOCH + timedelta(microseconds=(seconds * _NS + nanos) // 1000)
    except OverflowError:
        raise ProtobufError(f"timestamp {seconds}s is out of range") from None
    text = (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    )
    return f"{text}.{moment.microsecond:06d}Z" if micro else f"{text}Z"


def render_time(data: bytes | None) -> str | None:
    """meta/v1 Time ``{seconds=1, nanos=2}``: RFC 3339 in UTC to the second; zero or empty is null.

    Upstream drops the nanoseconds on decode, because its JSON only carries seconds.
    """
    if not data:
        return None
    values = _read(data, "Time", _TIMESTAMP)
    return _format_time(to_int64(_int(values, 1)), 0, micro=False)


def render_micro_time(data: bytes | None) -> str | None:
    """meta/v1 MicroTime: like Time, but with microseconds (nanoseconds truncated toward zero)."""
    if not data:
        return None
    values = _read(data, "MicroTime", _TIMESTAMP)
    nanos = to_int32(_int(values, 2))
    truncated = nanos - (abs(nanos) % 1000) * (1 if nanos >= 0 else -1)
    return _format_time(to_int64(_int(values, 1)), truncated, micro=True)


def render_quantity(data: bytes | None) -> str:
    """resource.Quantity ``{string=1}``: the string as sent; the zero Quantity is ``"0"``.

    Upstream re-parses the string and would print it canonically (``1000m`` as ``1``); like the JSON
    path, this keeps the client's spelling and leaves validation to the API's own checks.
    """
    raw = _bytes(_read(data, "Quantity", {1: ("string", BYTES)}), 1) if data else None
    if raw is None:
        return "0"
    if not raw:
        raise ProtobufError("quantities must match the regular expression; got an empty string")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtobufError("invalid UTF-8 in a quantity") from None


def render_int_or_string(data: bytes | None) -> int | str:
    """intstr.IntOrString ``{type=1 (0 int, 1 string), intVal=2, strVal=3}``: a JSON number or string."""
    spec = {1: ("type", VARINT), 2: ("intVal", VARINT), 3: ("strVal", BYTES)}
    values = _read(data, "IntOrString", spec) if data else {}
    kind = to_int64(_int(values, 1))
    if kind == 0:
        return to_int32(_int(values, 2))
    if kind == 1:
        raw = _bytes(values, 3) or b""
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtobufError("invalid UTF-8 in IntOrString.strVal") from None
    raise ProtobufError(f"IntOrString has impossible type {kind}")


def _fraction(value: int, digits: int) -> str:
    text = str(value).rjust(digits, "0").rstrip("0")
    return f".{text}" if text else ""


def go_duration(nanoseconds: int) -> str:
    """Go's ``time.Duration.String``: ``1h0m0s``, ``1m30s``, ``1.5s``, ``250ms``, ``1.5µs``, ``0s``."""
    if nanoseconds == 0:
        return "0s"
    sign, u = ("-" if nanoseconds < 0 else ""), abs(nanoseconds)
    if u < 1000:
        return f"{sign}{u}ns"
    if u < 1_000_000:
        return f"{sign}{u // 1000}{_fraction(u % 1000, 3)}µs"
    if u < _NS:
        return f"{sign}{u // 1_000_000}{_fraction(u % 1_000_000, 6)}ms"
    seconds, fraction = divmod(u, _NS)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    text = f"{seconds}{_fraction(fraction, 9)}s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    if minutes:
        return f"{sign}{minutes}m{text}"
    return f"{sign}{text}"


def render_duration(data: bytes | None) -> str:
    """meta/v1 Duration ``{duration=1 (int64 nanoseconds)}``: Go's duration string."""
    values = _read(data, "Duration", {1: ("duration", VARINT)}) if data else {}
    return go_duration(to_int64(_int(values, 1)))


def render_raw_json(data: bytes | None) -> Any:
    """runtime.RawExtension / meta/v1 FieldsV1 ``{raw=1}``: the embedded JSON document, or null."""
    raw = _bytes(_read(data, "RawExtension", {1: ("raw", BYTES)}), 1) if data else None
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise ProtobufError("raw field does not hold a JSON document") from None


RENDERERS: dict[str, Callable[[bytes | None], Any]] = {
    "Time": render_time,
    "MicroTime": render_micro_time,
    "Quantity": render_quantity,
    "IntOrString": render_int_or_string,
    "Duration": render_duration,
    "RawJSON": render_raw_json,
}
# Specials whose Go Unmarshal replaces the value (a later occurrence wins); the generated ones merge.
REPLACED_ON_DECODE = frozenset({"Time", "MicroTime", "Quantity", "RawJSON"})

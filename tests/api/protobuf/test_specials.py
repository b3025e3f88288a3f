"""Types with a hand-written Go ``MarshalJSON``: Time, MicroTime, Duration, IntOrString, Quantity, raw."""

from __future__ import annotations

from typing import Any

import pytest

from minikube_py.api.protobuf.specials import (
    go_duration,
    render_duration,
    render_int_or_string,
    render_micro_time,
    render_quantity,
    render_raw_json,
    render_time,
)
from minikube_py.api.protobuf.wire import ProtobufError
from tests.api.protobuf.proto_builder import build
from tests.api.protobuf.upstream import UPSTREAM as T

EXTRA = build(
    {"Duration": [(1, "duration", "optional", "int64")], "RawExtension": [(1, "raw", "optional", "bytes")]}
)
GO_ZERO = -62135596800  # 0001-01-01T00:00:00Z


def time_bytes(seconds: int, nanos: int = 0) -> bytes:
    return bytes(T["Time"](seconds=seconds, nanos=nanos).SerializeToString())


@pytest.mark.parametrize(
    ("seconds", "nanos", "text"),
    [
        (1704067200, 0, "2024-01-01T00:00:00Z"),
        (1704067200, 999_999_999, "2024-01-01T00:00:00Z"),  # upstream drops nanoseconds on decode
        (0, 0, "1970-01-01T00:00:00Z"),
        (-1, 0, "1969-12-31T23:59:59Z"),
        (GO_ZERO + 1, 0, "0001-01-01T00:00:01Z"),
        (253402300799, 0, "9999-12-31T23:59:59Z"),
        (GO_ZERO, 0, None),  # Go's zero time renders as null
        (GO_ZERO, 5, None),
    ],
)
def test_time(seconds: int, nanos: int, text: str | None) -> None:
    assert render_time(time_bytes(seconds, nanos)) == text


def test_absent_or_empty_time_is_null() -> None:
    assert render_time(None) is None
    assert render_time(b"") is None


@pytest.mark.parametrize(
    ("seconds", "nanos", "text"),
    [
        (1704067200, 123_456_789, "2024-01-01T00:00:00.123456Z"),
        (1704067200, 999, "2024-01-01T00:00:00.000000Z"),
        (0, -1500, "1969-12-31T23:59:59.999999Z"),  # -1500ns truncates toward zero to -1µs
        (GO_ZERO, 999, None),  # truncated to the zero time
        (GO_ZERO, 1000, "0001-01-01T00:00:00.000001Z"),
    ],
)
def test_micro_time(seconds: int, nanos: int, text: str | None) -> None:
    assert render_micro_time(time_bytes(seconds, nanos)) == text


# Go's own table (time_test.go durationTests), plus an hour.
@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("0s", 0),
        ("1ns", 1),
        ("1.1µs", 1100),
        ("2.2ms", 2_200_000),
        ("3.3s", 3_300_000_000),
        ("4m5s", (4 * 60 + 5) * 10**9),
        ("4m5.001s", 4 * 60 * 10**9 + 5_001_000_000),
        ("5h6m7.001s", (5 * 3600 + 6 * 60) * 10**9 + 7_001_000_000),
        ("8m0.000000001s", 8 * 60 * 10**9 + 1),
        ("2562047h47m16.854775807s", (1 << 63) - 1),
        ("-2562047h47m16.854775808s", -(1 << 63)),
        ("1h0m0s", 3600 * 10**9),
        ("-1.5s", -1_500_000_000),
    ],
)
def test_duration(text: str, nanoseconds: int) -> None:
    assert go_duration(nanoseconds) == text
    assert render_duration(bytes(EXTRA["Duration"](duration=nanoseconds).SerializeToString())) == text


def test_absent_duration_is_zero() -> None:
    assert render_duration(None) == "0s"


@pytest.mark.parametrize(
    ("message", "value"),
    [
        ({"type": 0, "intVal": 8080}, 8080),
        ({"intVal": -1}, -1),
        ({"type": 1, "strVal": "http"}, "http"),
        ({"type": 1}, ""),
        ({"strVal": "ignored"}, 0),  # type Int wins, as in Go
    ],
)
def test_int_or_string(message: dict[str, Any], value: int | str) -> None:
    assert render_int_or_string(bytes(T["IntOrString"](**message).SerializeToString())) == value


def test_zero_int_or_string_is_zero() -> None:
    assert render_int_or_string(None) == 0


def test_quantity() -> None:
    assert render_quantity(bytes(T["Quantity"](string="1500m").SerializeToString())) == "1500m"
    assert render_quantity(None) == "0"
    assert render_quantity(b"") == "0"
    with pytest.raises(ProtobufError):
        render_quantity(b"\x0a\x01\xff")


def test_raw_json() -> None:
    payload = bytes(EXTRA["RawExtension"](raw=b'{"a": [1, null]}').SerializeToString())
    assert render_raw_json(payload) == {"a": [1, None]}
    assert render_raw_json(None) is None
    assert render_raw_json(bytes(EXTRA["RawExtension"](raw=b"").SerializeToString())) is None


def test_wrong_wire_type_inside_a_special() -> None:
    with pytest.raises(ProtobufError, match=r"^Time\.seconds: wrong wire type bytes \(expected varint\)$"):
        render_time(b"\x0a\x00")
    with pytest.raises(ProtobufError, match=r"^IntOrString\.strVal: wrong wire type varint"):
        render_int_or_string(b"\x18\x01")

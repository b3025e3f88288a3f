"""The wire reader: varints, tags, every wire type, skipping groups, and malformed input."""

from __future__ import annotations

import pytest

from minikube_py.api.protobuf.wire import (
    ProtobufError,
    decode_utf8,
    iter_fields,
    iter_packed_varints,
    read_varint,
    to_int32,
    to_int64,
)


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b"\x00", 0),
        (b"\x01", 1),
        (b"\x7f", 127),
        (b"\x96\x01", 150),  # the protobuf encoding guide's example
        (b"\xff\xff\xff\xff\x0f", 0xFFFFFFFF),
        (b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", (1 << 64) - 1),
        (b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", (1 << 64) - 1),  # bits past 64 are dropped, as in Go
        (b"\x80\x80\x00", 0),  # non-minimal encodings are accepted
    ],
)
def test_read_varint(data: bytes, value: int) -> None:
    assert read_varint(data + b"\x55", 0) == (value, len(data))


def test_read_varint_at_an_offset() -> None:
    assert read_varint(b"\x00\x96\x01", 1) == (150, 3)


@pytest.mark.parametrize("data", [b"", b"\x80", b"\xff\xff"])
def test_truncated_varint(data: bytes) -> None:
    with pytest.raises(ProtobufError, match="unexpected end of data inside a varint"):
        read_varint(data, 0)


def test_varint_longer_than_ten_bytes() -> None:
    with pytest.raises(ProtobufError, match="longer than 10 bytes"):
        read_varint(b"\xff" * 10 + b"\x01", 0)


@pytest.mark.parametrize(
    ("raw", "int32", "int64"),
    [
        (0, 0, 0),
        (5, 5, 5),
        ((1 << 64) - 1, -1, -1),  # -1 as written by Go: sign-extended to 10 bytes
        ((1 << 64) - 5, -5, -5),
        (0x7FFFFFFF, 2147483647, 2147483647),
        (0x80000000, -2147483648, 2147483648),
        (1 << 63, 0, -(1 << 63)),
    ],
)
def test_integer_reinterpretation(raw: int, int32: int, int64: int) -> None:
    assert to_int32(raw) == int32
    assert to_int64(raw) == int64


def test_iter_fields_reads_every_wire_type() -> None:
    data = (
        b"\x08\x96\x01"  # 1: varint 150
        b"\x11"
        + (3).to_bytes(8, "little")  # 2: fixed64
        + b"\x1a\x03abc"  # 3: bytes
        b"\x25"
        + (7).to_bytes(4, "little")  # 4: fixed32
        + b"\xa2\x06\x00"  # 100: empty bytes (two-byte tag)
    )
    assert list(iter_fields(data)) == [(1, 0, 150), (2, 1, 3), (3, 2, b"abc"), (4, 5, 7), (100, 2, b"")]


def test_groups_are_yielded_whole_so_they_can_be_skipped() -> None:
    group = b"\x08\x01" + b"\x13\x08\x02\x14" + b"\x1a\x01x"  # nested group 2 inside group 1
    data = b"\x0b" + group + b"\x0c" + b"\x10\x07"
    assert list(iter_fields(data)) == [(1, 3, group + b"\x0c"), (2, 0, 7)]


def test_deeply_nested_groups_do_not_recurse() -> None:
    data = b"\x0b" * 5000 + b"\x0c" * 5000
    assert [number for number, _, _ in iter_fields(data)] == [1]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x01", "illegal field number 0"),
        (b"\x0e\x01", "illegal wire type 6"),
        (b"\x0f\x01", "illegal wire type 7"),
        (b"\x0c", "unexpected end-group tag for field 1"),
        (b"\x0b\x08\x01", "unexpected end of data inside group 1"),
        (b"\x0b\x14", "end-group tag 2 does not match"),
        (b"\x0a\x05abc", "length 5 runs past the end"),
        (b"\x0a", "unexpected end of data inside a varint"),
        (b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "negative length"),
        (b"\x09\x01\x02", "inside a fixed64 field"),
        (b"\x0d\x01", "inside a fixed32 field"),
        (b"\x08", "unexpected end of data inside a varint"),
        (b"\x80\x80\x80\x80\x10\x00", "illegal field number 536870912"),  # 2^29: past the maximum
    ],
)
def test_malformed_input(data: bytes, message: str) -> None:
    with pytest.raises(ProtobufError, match=message):
        list(iter_fields(data))


def test_highest_field_number_is_legal() -> None:
    assert list(iter_fields(b"\xf8\xff\xff\xff\x0f\x2a")) == [((1 << 29) - 1, 0, 42)]


def test_packed_varints() -> None:
    assert list(iter_packed_varints(b"\x03\x8e\x02\x9e\xa7\x05")) == [3, 270, 86942]  # the guide's example
    with pytest.raises(ProtobufError):
        list(iter_packed_varints(b"\x03\x8e"))


def test_decode_utf8() -> None:
    assert decode_utf8("héllo ✓".encode(), "X.y") == "héllo ✓"
    with pytest.raises(ProtobufError, match=r"invalid UTF-8 in string field X\.y at byte 1"):
        decode_utf8(b"a\xff", "X.y")

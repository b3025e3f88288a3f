"""The protobuf wire format: varints, tags and length-delimited fields, read without the ``protobuf`` package.

Kubernetes' gogo-generated code writes wire type 0 (varints: int32, int64, bool) and 2 (strings, bytes,
embedded messages, map entries, packed numbers), and 1 for the rare ``double``. The reader also knows
fixed32 and groups, so that any field it does not know can be stepped over, as ``skipGenerated`` does.
"""

from __future__ import annotations

from collections.abc import Iterator

VARINT = 0
FIXED64 = 1
BYTES = 2
START_GROUP = 3
END_GROUP = 4
FIXED32 = 5

WIRE_NAMES = {
    VARINT: "varint",
    FIXED64: "fixed64",
    BYTES: "bytes",
    START_GROUP: "start-group",
    END_GROUP: "end-group",
    FIXED32: "fixed32",
}
MAX_FIELD_NUMBER = (1 << 29) - 1
_MAX_VARINT_BYTES = 10
_U64 = (1 << 64) - 1

# A field value as read off the wire: an unsigned int (varint, fixed32/64) or the payload of a
# length-delimited field (also the raw bytes of a skipped group).
WireValue = int | bytes


class ProtobufError(ValueError):
    """A protobuf body that cannot be decoded; the message is one line, fit for a 400 ``Status``."""


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Read a base-128 varint at ``pos``; return ``(value as unsigned 64-bit, next position)``.

    Like the generated Go code, at most 10 bytes are read and bits beyond 64 are dropped.
    """
    result = 0
    for index in range(_MAX_VARINT_BYTES):
        if pos + index >= len(data):
            raise ProtobufError("unexpected end of data inside a varint")
        byte = data[pos + index]
        result |= (byte & 0x7F) << (7 * index)
        if byte < 0x80:
            return result & _U64, pos + index + 1
    raise ProtobufError("varint longer than 10 bytes (integer overflow)")


def to_int64(value: int) -> int:
    """Reinterpret an unsigned 64-bit varint as a two's-complement int64."""
    return value - (1 << 64) if value >= 1 << 63 else value


def to_int32(value: int) -> int:
    """Truncate a varint to its low 32 bits and reinterpret them as int32, as Go's ``int32(v)`` does."""
    low = value & 0xFFFFFFFF
    return low - (1 << 32) if low >= 1 << 31 else low


def _read_tag(data: bytes, pos: int) -> tuple[int, int, int]:
    key, pos = read_varint(data, pos)
    number, wire_type = key >> 3, key & 0x7
    if number == 0 or number > MAX_FIELD_NUMBER:
        raise ProtobufError(f"illegal field number {number} (wire type {wire_type})")
    if wire_type not in WIRE_NAMES:
        raise ProtobufError(f"illegal wire type {wire_type} for field {number}")
    return number, wire_type, pos


def _read_fixed(data: bytes, pos: int, size: int) -> tuple[int, int]:
    end = pos + size
    if end > len(data):
        raise ProtobufError(f"unexpected end of data inside a fixed{size * 8} field")
    return int.from_bytes(data[pos:end], "little"), end


def _read_length_delimited(data: bytes, pos: int) -> tuple[bytes, int]:
    length, pos = read_varint(data, pos)
    if length >= 1 << 63:
        raise ProtobufError("negative length for a length-delimited field")
    end = pos + length
    if end > len(data):
        raise ProtobufError(f"length {length} runs past the end of the data")
    return data[pos:end], end


def _skip_group(data: bytes, pos: int, number: int) -> int:
    """Step over a group's contents up to and including its matching end-group tag (no recursion)."""
    open_groups = [number]
    while open_groups:
        if pos >= len(data):
            raise ProtobufError(f"unexpected end of data inside group {open_groups[-1]}")
        inner, wire_type, pos = _read_tag(data, pos)
        if wire_type == START_GROUP:
            open_groups.append(inner)
        elif wire_type == END_GROUP:
            if inner != open_groups.pop():
                raise ProtobufError(f"end-group tag {inner} does not match its start-group tag")
        else:
            _, pos = _read_value(data, pos, inner, wire_type)
    return pos


def _read_value(data: bytes, pos: int, number: int, wire_type: int) -> tuple[WireValue, int]:
    if wire_type == VARINT:
        return read_varint(data, pos)
    if wire_type == BYTES:
        return _read_length_delimited(data, pos)
    if wire_type == FIXED64:
        return _read_fixed(data, pos, 8)
    if wire_type == FIXED32:
        return _read_fixed(data, pos, 4)
    if wire_type == START_GROUP:
        end = _skip_group(data, pos, number)
        return data[pos:end], end
    raise ProtobufError(f"unexpected end-group tag for field {number} outside a group")


def iter_fields(data: bytes) -> Iterator[tuple[int, int, WireValue]]:
    """Yield ``(field number, wire type, value)`` for each field of one message, in wire order.

    Varints and fixed-width values come as unsigned ints, length-delimited payloads as bytes. Groups
    are yielded as their raw bytes (wire type 3) so that a caller can skip them like any unknown field.
    """
    pos = 0
    while pos < len(data):
        number, wire_type, pos = _read_tag(data, pos)
        value, pos = _read_value(data, pos, number, wire_type)
        yield number, wire_type, value


def iter_packed_varints(data: bytes) -> Iterator[int]:
    """Yield the unsigned varints of a packed repeated field's payload."""
    pos = 0
    while pos < len(data):
        value, pos = read_varint(data, pos)
        yield value


def decode_utf8(data: bytes, where: str) -> str:
    """Decode a protobuf ``string``; invalid UTF-8 is a ``ProtobufError`` naming ``where``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ProtobufError(f"invalid UTF-8 in string field {where} at byte {err.start}") from None

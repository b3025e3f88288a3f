"""Decode one message's bytes into the JSON object its Go struct renders (``encoding/json`` rules).

Two passes. ``_collect`` reads the wire, checks wire types and keeps each known field's values with
gogo-protobuf's merge rules (scalars: last wins; repeated: appended; maps: entries added; embedded
messages: merged, which is the same as decoding their concatenated payloads). ``_render`` then walks
the fields in Go struct order and applies ``encoding/json``: a nil pointer, slice or map is omitted
under ``omitempty`` and ``null`` without it; a non-pointer scalar is its zero value when absent and is
omitted under ``omitempty`` when zero; a non-pointer struct is always rendered (``omitempty`` never
drops a struct); ``omitzero`` drops a zero value; map keys are sorted.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Mapping
from typing import Any

from minikube_py.api.protobuf.schema import SCALARS, Field, Message, Shape
from minikube_py.api.protobuf.specials import RENDERERS, REPLACED_ON_DECODE
from minikube_py.api.protobuf.wire import (
    BYTES,
    FIXED64,
    VARINT,
    WIRE_NAMES,
    ProtobufError,
    WireValue,
    decode_utf8,
    iter_fields,
    iter_packed_varints,
    to_int32,
    to_int64,
)

_SCALAR_WIRE = {
    "string": BYTES,
    "bytes": BYTES,
    "int32": VARINT,
    "int64": VARINT,
    "bool": VARINT,
    "float64": FIXED64,
}
_ZERO: dict[str, Any] = {"string": "", "bytes": b"", "int32": 0, "int64": 0, "bool": False, "float64": 0.0}
_OMIT = object()


class MessageDecoder:
    """Decodes messages described in ``registry`` (message name -> ``Message``)."""

    def __init__(self, registry: Mapping[str, Message]) -> None:
        self._registry = registry

    def decode(self, name: str, data: bytes) -> dict[str, Any]:
        """The JSON object for message ``name`` encoded as ``data``."""
        message = self._registry[name]
        return self._render(message, self._collect(message, data))

    # -- pass 1: the wire ------------------------------------------------------------------------

    def _collect(self, message: Message, data: bytes) -> dict[int, Any]:
        collected: dict[int, Any] = {}
        for number, wire_type, value in iter_fields(data):
            field = message.by_number.get(number)
            if field is not None:
                self._accept(message, field, wire_type, value, collected)
        return collected

    def _accept(
        self, message: Message, field: Field, wire_type: int, value: WireValue, into: dict[int, Any]
    ) -> None:
        where = f"{message.name}.{field.name}"
        if field.shape is Shape.LIST:
            self._append(field, wire_type, value, where, into.setdefault(field.number, []))
            return
        is_map = field.shape in (Shape.MAP, Shape.MAP_OF_LISTS)
        _check_wire(where, wire_type, BYTES if is_map else _element_wire(field))
        if is_map:
            assert isinstance(value, bytes)
            key, entry_value = self._map_entry(field, value, where)
            into.setdefault(field.number, {})[key] = entry_value
        elif field.type in SCALARS:
            into[field.number] = self._scalar(field.type, value, where)
        elif field.type in REPLACED_ON_DECODE:
            into[field.number] = [value]
        else:
            into.setdefault(field.number, []).append(value)

    def _append(self, field: Field, wire_type: int, value: WireValue, where: str, items: list[Any]) -> None:
        """Add one occurrence of a repeated field; numbers may also come packed (a payload of varints)."""
        single = _SCALAR_WIRE.get(field.type, BYTES)
        if wire_type == BYTES and single != BYTES:
            assert isinstance(value, bytes)
            items.extend(self._scalar(field.type, item, where) for item in _unpack(field.type, value, where))
            return
        _check_wire(where, wire_type, single)
        items.append(self._scalar(field.type, value, where) if field.type in SCALARS else value)

    def _scalar(self, kind: str, value: WireValue, where: str) -> Any:
        if kind == "string":
            assert isinstance(value, bytes)
            return decode_utf8(value, where)
        if kind == "bytes":
            return value
        assert isinstance(value, int)
        if kind == "int32":
            return to_int32(value)
        if kind == "int64":
            return to_int64(value)
        if kind == "bool":
            return value != 0
        return struct.unpack("<d", value.to_bytes(8, "little"))[0]

    def _map_entry(self, field: Field, data: bytes, where: str) -> tuple[str, Any]:
        """A map entry is a message ``{key = 1; value = 2}``; a missing key or value is its zero."""
        key, value = "", None
        for number, wire_type, item in iter_fields(data):
            if number == 1:
                _check_wire(f"{where} (map key)", wire_type, BYTES)
                assert isinstance(item, bytes)
                key = decode_utf8(item, f"{where} (map key)")
            elif number == 2:
                wrapped = field.shape is Shape.MAP_OF_LISTS
                _check_wire(f"{where} (map value)", wire_type, BYTES if wrapped else _element_wire(field))
                value = item
        if field.shape is Shape.MAP_OF_LISTS:
            return key, self._wrapped_list(field, value, where)
        if field.type in SCALARS:
            return key, _ZERO[field.type] if value is None else self._scalar(field.type, value, where)
        return key, value

    def _wrapped_list(self, field: Field, data: WireValue | None, where: str) -> list[Any] | None:
        """A ``map[string][]T`` value: ``message {repeated T items = 1}``; empty renders as Go's nil slice."""
        items: list[Any] = []
        for number, wire_type, item in iter_fields(data) if isinstance(data, bytes) else ():
            if number == 1:
                self._append(field, wire_type, item, f"{where} (map value)", items)
        return items or None

    # -- pass 2: encoding/json ---------------------------------------------------------------------

    def _render(self, message: Message, collected: dict[int, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for field in message.fields:
            present = field.number in collected
            if field.inline:
                out.update(self.decode(field.type, b"".join(collected[field.number]) if present else b""))
                continue
            value = self._field_json(field, collected[field.number] if present else None, present)
            if value is not _OMIT:
                out[field.name] = value
        return out

    def _field_json(self, field: Field, value: Any, present: bool) -> Any:
        if field.shape in (Shape.LIST, Shape.MAP, Shape.MAP_OF_LISTS):
            if not value:  # absent, or an empty packed list: Go's nil slice or map
                return _OMIT if field.omitempty else None
            if field.shape is Shape.LIST:
                return [self._element_json(field, item) for item in value]
            return {key: self._map_value_json(field, value[key]) for key in sorted(value)}
        if field.shape is Shape.POINTER:
            if not present:
                return _OMIT if field.omitempty else None
            return self._element_json(field, self._payload(field, value))
        return self._single_json(field, value, present)

    def _single_json(self, field: Field, value: Any, present: bool) -> Any:
        if field.type == "bytes" and not present:
            return _OMIT if field.omitempty else None  # a nil []byte
        if field.type in SCALARS:
            scalar = value if present else _ZERO[field.type]
            if (field.omitempty or field.omitzero) and scalar == _ZERO[field.type]:
                return _OMIT
            return self._element_json(field, scalar)
        rendered = self._element_json(field, self._payload(field, value) if present else None)
        if field.omitzero and rendered == self._element_json(field, None):
            return _OMIT
        return rendered

    @staticmethod
    def _payload(field: Field, chunks: Any) -> Any:
        """A single message or special field's payload; scalars are already values."""
        return b"".join(chunks) if field.type not in SCALARS else chunks

    def _element_json(self, field: Field, value: Any) -> Any:
        """JSON for one element: a scalar value, or a message/special payload (``None`` = absent)."""
        if field.type == "bytes":
            return base64.b64encode(value).decode("ascii")
        if field.type in SCALARS:
            return value
        if field.type in RENDERERS:
            return RENDERERS[field.type](value)
        return self.decode(field.type, value or b"")

    def _map_value_json(self, field: Field, value: Any) -> Any:
        if field.shape is Shape.MAP_OF_LISTS:
            return None if value is None else [self._element_json(field, item) for item in value]
        return self._element_json(field, value)  # a message or special value may be absent: its zero


def _element_wire(field: Field) -> int:
    """The wire type of one element of the field's type (messages and specials are length-delimited)."""
    return _SCALAR_WIRE.get(field.type, BYTES)


def _check_wire(where: str, wire_type: int, expected: int) -> None:
    if wire_type != expected:
        raise ProtobufError(
            f"{where}: wrong wire type {WIRE_NAMES[wire_type]} (expected {WIRE_NAMES[expected]})"
        )


def _unpack(kind: str, data: bytes, where: str) -> list[int]:
    """The elements of a packed repeated number: varints, or little-endian 8-byte doubles."""
    if kind != "float64":
        return list(iter_packed_varints(data))
    if len(data) % 8:
        raise ProtobufError(f"{where}: packed doubles are not a multiple of 8 bytes")
    return [int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8)]

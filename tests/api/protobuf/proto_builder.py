"""Build real protobuf message classes with Google's ``protobuf`` package, from a ``.proto``-like table.

The decoder under test never uses this: here the ``protobuf`` package is the independent encoder that
produces the bytes the tests decode. Tables mirror upstream's ``generated.proto`` (proto2), e.g.::

    {"Time": [(1, "seconds", "optional", "int64"), (2, "nanos", "optional", "int32")],
     "ObjectMeta": [(1, "name", "optional", "string"), (11, "labels", "map", "string:string")]}

A field is ``(number, name, label, type)``; label is ``optional``, ``repeated``, ``packed`` (a packed
repeated number) or ``map`` (type ``KEY:VALUE``); type is a scalar or a message name in the same table.
"""

from __future__ import annotations

import itertools
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # type: ignore[import-untyped]

_FDP = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "string": _FDP.TYPE_STRING,
    "bytes": _FDP.TYPE_BYTES,
    "int32": _FDP.TYPE_INT32,
    "int64": _FDP.TYPE_INT64,
    "bool": _FDP.TYPE_BOOL,
    "double": _FDP.TYPE_DOUBLE,
}
_files = itertools.count()

Table = dict[str, list[tuple[int, str, str, str]]]


def _set_type(field: Any, type_name: str, package: str) -> None:
    if type_name in _SCALARS:
        field.type = _SCALARS[type_name]
    else:
        field.type = _FDP.TYPE_MESSAGE
        field.type_name = f".{package}.{type_name}"


def _add_map(message: Any, number: int, name: str, types: str, package: str) -> None:
    key_type, value_type = types.split(":")
    entry = message.nested_type.add(name="".join(part.title() for part in name.split("_")) + "Entry")
    entry.options.map_entry = True
    for entry_number, entry_name, entry_type in ((1, "key", key_type), (2, "value", value_type)):
        entry_field = entry.field.add(name=entry_name, number=entry_number, label=_FDP.LABEL_OPTIONAL)
        _set_type(entry_field, entry_type, f"{package}.{message.name}")
        if entry_type not in _SCALARS:
            entry_field.type_name = f".{package}.{entry_type}"
    field = message.field.add(name=name, number=number, label=_FDP.LABEL_REPEATED, type=_FDP.TYPE_MESSAGE)
    field.type_name = f".{package}.{message.name}.{entry.name}"


def build(table: Table) -> dict[str, Any]:
    """Message classes by name, for the messages described in ``table`` (a fresh proto2 file each call)."""
    package = f"test{next(_files)}"
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto2")
    for message_name, fields in table.items():
        message = file.message_type.add(name=message_name)
        for number, name, label, type_name in fields:
            if label == "map":
                _add_map(message, number, name, type_name, package)
                continue
            repeated = label in ("repeated", "packed")
            field = message.field.add(
                name=name, number=number, label=_FDP.LABEL_REPEATED if repeated else _FDP.LABEL_OPTIONAL
            )
            _set_type(field, type_name, package)
            if label == "packed":
                field.options.packed = True
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}"))
        for name in table
    }


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    """``k8s\\x00`` + ``runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}``."""
    classes = build(
        {
            "TypeMeta": [(1, "apiVersion", "optional", "string"), (2, "kind", "optional", "string")],
            "Unknown": [
                (1, "typeMeta", "optional", "TypeMeta"),
                (2, "raw", "optional", "bytes"),
                (3, "contentEncoding", "optional", "string"),
                (4, "contentType", "optional", "string"),
            ],
        }
    )
    type_meta = classes["TypeMeta"](apiVersion=api_version, kind=kind)
    unknown = classes["Unknown"](typeMeta=type_meta, raw=raw, contentEncoding="", contentType="")
    return b"k8s\x00" + bytes(unknown.SerializeToString())

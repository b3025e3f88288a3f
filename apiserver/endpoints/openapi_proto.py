"""The Swagger 2.0 document as the gnostic ``openapi.v2.Document`` protobuf message.

kubectl asks ``/openapi/v2`` for ``application/com.github.proto-openapi.spec.v2@v1.0+protobuf``
and parses the answer with gnostic's generated types (``openapiv2/OpenAPIv2.proto``): a
``Document`` whose maps are repeated ``Named*`` (name, value) pairs in document order, whose
parameters are ``oneof`` a body parameter or a path/query sub-schema, and whose vendor
extensions (``x-kubernetes-*``) carry their value as YAML text (JSON is YAML, so the JSON
encoding of the value is what is written). Only the fields this server's documents use are
encoded; proto3 default values (empty strings, false) are left out as protobuf does.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Mapping
from typing import Any

# Field numbers of openapi.v2 messages (gnostic's OpenAPIv2.proto).
_DOCUMENT = {"swagger": 1, "info": 2, "paths": 8, "definitions": 9, "security": 12, "securityDefinitions": 13}
_INFO = {"title": 1, "version": 2, "description": 3}
_PATH_ITEM = {"get": 2, "put": 3, "post": 4, "delete": 5, "options": 6, "head": 7, "patch": 8}
_PATH_ITEM_PARAMETERS, _PATH_ITEM_EXTENSIONS = 9, 10
_OPERATION = {
    "tags": 1,
    "summary": 2,
    "description": 3,
    "operationId": 5,
    "produces": 6,
    "consumes": 7,
    "schemes": 10,
}
_OPERATION_PARAMETERS, _OPERATION_RESPONSES, _OPERATION_DEPRECATED, _OPERATION_EXTENSIONS = 8, 9, 11, 13
_BODY_PARAMETER = {"description": 1, "name": 2, "in": 3}
_QUERY_PARAMETER = {"in": 2, "description": 3, "name": 4, "type": 6, "format": 7}
_PATH_PARAMETER = {"in": 2, "description": 3, "name": 4, "type": 5, "format": 6}
_SCHEMA = {"$ref": 1, "format": 2, "title": 3, "description": 4, "discriminator": 26}
_SCHEMA_BOOLS = {"exclusiveMaximum": 8, "exclusiveMinimum": 10, "uniqueItems": 16, "readOnly": 27}
_SCHEMA_NUMBERS = {"multipleOf": 6, "maximum": 7, "minimum": 9}
_SCHEMA_INTEGERS = {"maxLength": 11, "minLength": 12, "maxItems": 14, "minItems": 15}


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _bytes_field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _string(number: int, value: str) -> bytes:
    return _bytes_field(number, value.encode()) if value else b""


def _bool(number: int, value: bool) -> bytes:
    return _varint(number << 3) + b"\x01" if value else b""


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value) if value else b""


def _double(number: int, value: float) -> bytes:
    return _varint(number << 3 | 1) + struct.pack("<d", float(value))


def _strings(number: int, values: Iterable[str]) -> bytes:
    return b"".join(_bytes_field(number, v.encode()) for v in values)


def _fields(spec: Mapping[str, int], value: Mapping[str, Any]) -> bytes:
    return b"".join(_string(number, str(value[key])) for key, number in spec.items() if key in value)


def _any(value: Any) -> bytes:
    """``openapi.v2.Any`` with its ``yaml`` text."""
    return _string(2, json.dumps(value))


def _extensions(number: int, value: Mapping[str, Any]) -> bytes:
    """Every ``x-`` key as a ``NamedAny`` (name 1, value 2)."""
    return b"".join(
        _bytes_field(number, _string(1, key) + _bytes_field(2, _any(item)))
        for key, item in value.items()
        if key.startswith("x-")
    )


def _named(number: int, name: str, payload: bytes) -> bytes:
    return _bytes_field(number, _string(1, name) + _bytes_field(2, payload))


def encode_document(document: Mapping[str, Any]) -> bytes:
    out = _string(_DOCUMENT["swagger"], document["swagger"])
    out += _bytes_field(_DOCUMENT["info"], _fields(_INFO, document["info"]))
    paths = b"".join(_named(2, path, _path_item(item)) for path, item in document["paths"].items())
    out += _bytes_field(_DOCUMENT["paths"], paths)
    definitions = b"".join(_named(1, name, schema(s)) for name, s in document["definitions"].items())
    out += _bytes_field(_DOCUMENT["definitions"], definitions)
    for requirement in document.get("security", []):
        pairs = b"".join(_named(1, name, _strings(1, scopes)) for name, scopes in requirement.items())
        out += _bytes_field(_DOCUMENT["security"], pairs)
    security = b""
    for name, definition in document.get("securityDefinitions", {}).items():
        api_key = _fields({"type": 1, "name": 2, "in": 3, "description": 4}, definition)
        security += _named(1, name, _bytes_field(2, api_key))  # SecurityDefinitionsItem.api_key_security
    if security:
        out += _bytes_field(_DOCUMENT["securityDefinitions"], security)
    return out


def _path_item(item: Mapping[str, Any]) -> bytes:
    out = b"".join(_bytes_field(number, _operation(item[m])) for m, number in _PATH_ITEM.items() if m in item)
    out += b"".join(_bytes_field(_PATH_ITEM_PARAMETERS, _parameter(p)) for p in item.get("parameters", []))
    return out + _extensions(_PATH_ITEM_EXTENSIONS, item)


def _operation(operation: Mapping[str, Any]) -> bytes:
    out = b""
    for key, number in _OPERATION.items():
        value = operation.get(key)
        if isinstance(value, list):
            out += _strings(number, value)
        elif value:
            out += _string(number, value)
    out += b"".join(
        _bytes_field(_OPERATION_PARAMETERS, _parameter(p)) for p in operation.get("parameters", [])
    )
    responses = b"".join(
        _named(1, code, _bytes_field(1, _response(response)))
        for code, response in operation["responses"].items()
    )
    out += _bytes_field(_OPERATION_RESPONSES, responses)
    out += _bool(_OPERATION_DEPRECATED, bool(operation.get("deprecated")))
    return out + _extensions(_OPERATION_EXTENSIONS, operation)


def _response(response: Mapping[str, Any]) -> bytes:
    out = _string(1, response["description"])
    if "schema" in response:
        out += _bytes_field(2, _bytes_field(1, schema(response["schema"])))  # SchemaItem.schema
    return out


def _parameter(parameter: Mapping[str, Any]) -> bytes:
    """``ParametersItem.parameter``: a ``BodyParameter`` or a path/query sub-schema."""
    if parameter["in"] == "body":
        body = _fields(_BODY_PARAMETER, parameter) + _bool(4, bool(parameter.get("required")))
        body += _bytes_field(5, schema(parameter["schema"]))
        inner = _bytes_field(1, body)
    elif parameter["in"] == "path":
        sub = _bool(1, bool(parameter.get("required"))) + _fields(_PATH_PARAMETER, parameter)
        sub += _bool(19, bool(parameter.get("uniqueItems"))) + _extensions(22, parameter)
        inner = _bytes_field(2, _bytes_field(4, sub))
    else:
        sub = _bool(1, bool(parameter.get("required"))) + _fields(_QUERY_PARAMETER, parameter)
        sub += _bool(20, bool(parameter.get("uniqueItems"))) + _extensions(23, parameter)
        inner = _bytes_field(2, _bytes_field(3, sub))
    return _bytes_field(1, inner)


def schema(value: Mapping[str, Any]) -> bytes:
    """``openapi.v2.Schema``."""
    out = _fields(_SCHEMA, value)
    for key, number in _SCHEMA_NUMBERS.items():
        if key in value:
            out += _double(number, value[key])
    for key, number in _SCHEMA_INTEGERS.items():
        out += _int(number, int(value.get(key, 0)))
    for key, number in _SCHEMA_BOOLS.items():
        out += _bool(number, bool(value.get(key)))
    if "default" in value:
        out += _bytes_field(5, _any(value["default"]))
    out += _strings(19, value.get("required", []))
    out += b"".join(_bytes_field(20, _any(v)) for v in value.get("enum", []))
    extra = value.get("additionalProperties")
    if isinstance(extra, bool):
        out += _bytes_field(21, _varint(2 << 3) + (b"\x01" if extra else b"\x00"))
    elif isinstance(extra, Mapping):
        out += _bytes_field(21, _bytes_field(1, schema(extra)))
    if "type" in value:
        types = value["type"] if isinstance(value["type"], list) else [value["type"]]
        out += _bytes_field(22, _strings(1, types))
    if "items" in value:
        out += _bytes_field(23, _bytes_field(1, schema(value["items"])))
    out += b"".join(_bytes_field(24, schema(s)) for s in value.get("allOf", []))
    if "properties" in value:
        properties = b"".join(_named(1, name, schema(s)) for name, s in value["properties"].items())
        out += _bytes_field(25, properties)
    return out + _extensions(31, value)

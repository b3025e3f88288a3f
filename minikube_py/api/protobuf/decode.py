"""Decode a Kubernetes protobuf body (``application/vnd.kubernetes.protobuf``) into its JSON object.

The body is the 4 magic bytes ``k8s\\x00`` followed by a ``runtime.Unknown`` message
(k8s.io/apimachinery/pkg/runtime/generated.proto)::

    message Unknown  { optional TypeMeta typeMeta = 1; optional bytes raw = 2;
                       optional string contentEncoding = 3; optional string contentType = 4; }
    message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }

``raw`` is the object's own message, described in ``messages.py``. The result is what upstream's JSON
encoding of the decoded Go object renders, with ``kind`` and ``apiVersion`` from the envelope. Replies
stay JSON: nothing here encodes.
"""

from __future__ import annotations

from typing import Any

from minikube_py.api.protobuf.message_decoder import MessageDecoder
from minikube_py.api.protobuf.messages import MESSAGES, REGISTRY
from minikube_py.api.protobuf.wire import BYTES, WIRE_NAMES, ProtobufError, decode_utf8, iter_fields

__all__ = [
    "CONTENT_TYPE",
    "PROTOBUF_MAGIC",
    "ProtobufError",
    "decode_envelope",
    "decode_message",
    "decode_object",
]

PROTOBUF_MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"

_DECODER = MessageDecoder(REGISTRY)


def _bytes_fields(data: bytes, message: str, names: dict[int, str]) -> dict[int, bytes]:
    """The last payload of each length-delimited field in ``names``; other fields are skipped."""
    found: dict[int, bytes] = {}
    for number, wire_type, value in iter_fields(data):
        if number not in names:
            continue
        if wire_type != BYTES:
            raise ProtobufError(
                f"{message}.{names[number]}: wrong wire type {WIRE_NAMES[wire_type]} (expected bytes)"
            )
        assert isinstance(value, bytes)
        found[number] = value
    return found


def decode_envelope(data: bytes) -> tuple[str, str, bytes]:
    """Unwrap the magic prefix and ``runtime.Unknown``: return ``(apiVersion, kind, raw)``.

    Raises ``ProtobufError`` for a body without the prefix, a malformed envelope, or a missing kind or
    apiVersion (upstream's "Object 'Kind' is missing" errors). ``contentEncoding`` and ``contentType``
    are read past and ignored, as upstream's decoder does.
    """
    if not data:
        raise ProtobufError("empty data")
    if not data.startswith(PROTOBUF_MAGIC):
        raise ProtobufError(
            "provided data does not appear to be a protobuf message, expected prefix k8s\\x00"
        )
    if len(data) == len(PROTOBUF_MAGIC):
        raise ProtobufError("empty body")
    envelope = _bytes_fields(data[len(PROTOBUF_MAGIC) :], "Unknown", {1: "typeMeta", 2: "raw"})
    type_meta = _bytes_fields(envelope.get(1, b""), "TypeMeta", {1: "apiVersion", 2: "kind"})
    api_version = decode_utf8(type_meta.get(1, b""), "TypeMeta.apiVersion")
    kind = decode_utf8(type_meta.get(2, b""), "TypeMeta.kind")
    if not kind:
        raise ProtobufError("Object 'Kind' is missing in the protobuf envelope")
    if not api_version:
        raise ProtobufError(f"Object 'apiVersion' is missing in the protobuf envelope of kind {kind}")
    return api_version, kind, envelope.get(2, b"")


def decode_message(name: str, data: bytes) -> dict[str, Any]:
    """Decode ``data`` as the described message ``name`` (e.g. ``"PodSpec"``) into its JSON object."""
    if name not in REGISTRY:
        raise KeyError(f"no message {name!r} is described")
    return _DECODER.decode(name, data)


def decode_object(data: bytes) -> dict[str, Any]:
    """Decode a whole protobuf request body into the JSON-shaped object a JSON client would have sent.

    Field names are upstream's JSON names, unset and empty fields are left out exactly where the Go
    type's ``omitempty`` leaves them out, and ``kind``/``apiVersion`` come from the envelope. Field
    numbers this package does not know are skipped. Raises ``ProtobufError`` (one line, for a 400
    ``Status``) for malformed bytes or an ``(apiVersion, kind)`` that has no description.
    """
    api_version, kind, raw = decode_envelope(data)
    name = MESSAGES.get((api_version, kind))
    if name is None:
        raise ProtobufError(f"no protobuf decoding for {kind} in {api_version}")
    return {"kind": kind, "apiVersion": api_version, **_DECODER.decode(name, raw)}
